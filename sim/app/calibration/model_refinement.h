#pragma once
// The second step of every simulated fit: move the fit's keys so that Tessera's own predictions
// of the calibration points match the measurements, by Gauss-Newton on relative residuals with a
// finite-difference Jacobian (Tessera runs of the points with one key nudged at a time, solved by
// linear least squares with Eigen). A key on which no prediction depends (another limit binds at
// every point) keeps its direct value and says so. Cheap: a microbenchmark runs in milliseconds.
#include <vector>

#include "models/system/system_spec.h"
#include "sim/app/calibration/fit_unit.h"

namespace tessera::app::calibration {

// Tessera's prediction of each point on `system` (the summary field the point's quantity names),
// run on up to `jobs` threads. Throws std::runtime_error naming the result file when a run fails.
std::vector<double> predict_points(const models::SystemSpec& system, const std::vector<const CalibrationPoint*>& points,
                                   const RefineOptions& refine);

// `outcome.values` hold the direct values (value == direct) on entry. With refinement enabled,
// each value moves to where Tessera reproduces the points best; then `outcome.tessera` is set to
// Tessera's residual with the final values, and `outcome.simulated_points` to the points.
void refine_and_check(const FitInputs& inputs, const std::vector<const CalibrationPoint*>& points, FitOutcome& outcome);

}  // namespace tessera::app::calibration

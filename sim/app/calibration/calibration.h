#pragma once
// A whole calibration: the usable microbenchmark results of a measured folder turned into
// points for one system, every fit unit run in order on the system with the earlier fits
// applied, and what was left unused and why. Pattern results are never read here: they are the
// validation data, and calibration and validation stay disjoint.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "models/system/system_spec.h"
#include "sim/app/calibration/fit_unit.h"
#include "sim/app/measured/measured_set.h"

namespace tessera::app::calibration {

struct UnusedResult {
  std::string display_name;
  std::string reason;
};

struct CalibrationResult {
  std::string system_argument;       // as --system named it
  models::SystemSpec base;
  models::SystemSpec calibrated;     // the base with every fitted value
  std::vector<FitOutcome> fits;      // in fit_units() order
  std::vector<CalibrationPoint> points;  // keeps the runs the fits read
  std::vector<UnusedResult> unused;  // microbenchmark results no fit could use
  std::size_t pattern_results = 0;   // passed pattern results left for validate
  std::vector<measured::SkippedFile> skipped;
  std::vector<std::string> devices;  // distinct devices of the used results
  std::string data_digest;           // FNV-1a of the used result files' contents, in path order

  std::size_t used_results() const;
};

// The steps of a calibration, for a progress line: every fit unit in order (named as it), then
// Tessera's residual of every fit with all the fitted values ("residuals").
std::size_t calibration_steps();

// Throws config::ConfigError for a bad --system or a bad tessera.workload of a result (exit 2),
// MeasuredDataError for a result that lacks what its fit needs, std::runtime_error when
// Tessera cannot run a point (exit 1). `step_begun(name)` is called as each step begins.
CalibrationResult calibrate(const measured::MeasuredSet& set, const std::string& system, const RefineOptions& options,
                            const std::function<void(std::string_view step)>& step_begun = {});

}  // namespace tessera::app::calibration

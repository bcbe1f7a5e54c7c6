#pragma once
// One fit: which microbenchmark cases it reads, the linear model it fits to them, the system keys
// it writes and how the fitted numbers map to them. Every fit works in two steps:
//   1. direct: a weighted linear least-squares fit of its model to the measured points alone
//      (docs/validation.md "Calibration" gives each model);
//   2. refined: starting from the direct values, Gauss-Newton on Tessera's own predictions of
//      the same points (model_refinement.h), so that the values written are the ones with which
//      Tessera reproduces the measurements; then Tessera's residual is reported.
// Fits run in order (fit_units.h), each on the system with the earlier fits applied.
#include <chrono>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/system/system_spec.h"
#include "sim/app/calibration/calibration_key.h"
#include "sim/app/calibration/linear_fit.h"
#include "sim/app/measured/measured_case.h"
#include "sim/app/measured/measured_quantity.h"
#include "sim/app/run/run_spec.h"

namespace tessera::app::calibration {

// One measured number a fit may use.
struct CalibrationPoint {
  const measured::MeasuredCase* source = nullptr;
  const measured::CaseQuantity* quantity = nullptr;
  double measured = 0;          // ns for times and latencies, FLOP/s for rates
  std::optional<app::run::RunSpec> run;   // Tessera's run of the case (absent for cases Tessera does not simulate)
};

struct RefineOptions {
  bool enabled = true;  // false: write the direct values (Tessera's residual is still reported)
  unsigned jobs = 1;    // Tessera runs at once
  std::optional<std::chrono::nanoseconds> max_wall;  // `--max-wall`: a run still going after this fails the fit
};

struct FitInputs {
  const models::SystemSpec& system;               // the base system with the earlier fits applied
  const std::vector<CalibrationPoint>& points;    // every usable microbenchmark point for this system
  const RefineOptions& refine;
  // --system as given (a name or a file): what a fit that builds its own Tessera runs loads them
  // with before putting `system` in; empty: the system's name.
  std::string_view system_argument = {};
  // The collective library's kernel times under the measured folder (library_kernel_times.h);
  // null: none.
  const std::vector<measured::LibraryKernelTime>* kernel_times = nullptr;
  // The kernel-boundary measurements under the measured folder (kernel_boundaries.h); null: none.
  const std::vector<measured::KernelBoundaries>* kernel_boundaries = nullptr;
};

struct FittedValue {
  const CalibrationKey* key = nullptr;
  double direct = 0;  // from the direct fit (SI units: ps, B/s, fraction)
  double value = 0;   // what the system file gets
  std::string note;   // e.g. "clamped at 0", "kept: Tessera's predictions do not depend on it here"
};

struct NotFitted {
  std::string key;
  std::string reason;
};

// A fitted gpu.compute.kernel_efficiency entry (a list-valued key, written as one block).
struct FittedKernelEfficiency {
  models::KernelEfficiency entry;
  std::vector<std::string> comments;  // above the entry in the file: the points and how each value came
};

struct FitOutcome {
  std::string fit;     // "hbm"
  std::string model;   // "time = a + 2 bytes / hbm_bandwidth"
  std::string unit;    // of the residual's RMS: "ns" or "TFLOP/s"
  std::vector<FittedValue> values;
  std::vector<std::string> files;  // the results the points came from
  Residual direct;                 // the direct model against the points
  std::optional<Residual> tessera; // Tessera with the written values against the same points
  std::vector<std::size_t> simulated_points;  // indices into FitInputs::points of the points Tessera ran
  std::vector<NotFitted> not_fitted;
  std::vector<std::string> notes;  // points left out and why, and other remarks
  std::vector<FittedKernelEfficiency> kernel_efficiency;  // entries of gpu.compute.kernel_efficiency
};

struct FitUnit {
  std::string_view name;
  std::string_view reads;  // the cases it reads, for help texts
  FitOutcome (*fit)(const FitInputs&);
};

// The points of the named cases, in input order.
std::vector<const CalibrationPoint*> points_of(const FitInputs& inputs, std::initializer_list<std::string_view> cases);

// The points of streams that run a workgroup on every CU (workgroups 0 or at least the CUs):
// bandwidth-bound, so their time is a line in the bytes. Streams of fewer workgroups are
// latency-bound (Little's law) and only the refinement on Tessera's model uses them. All points
// when none fills the GPU.
std::vector<const CalibrationPoint*> bandwidth_bound(const models::SystemSpec& system,
                                                     const std::vector<const CalibrationPoint*>& points);

// The distinct result files of the points, in order.
std::vector<std::string> files_of(const std::vector<const CalibrationPoint*>& points);

}  // namespace tessera::app::calibration

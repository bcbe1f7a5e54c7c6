#pragma once
// One measured pattern case against Tessera's prediction of it: the result file's
// tessera.workload run on the system, its makespan compared with the measured mean time.
//
// Convention: the measured time is timing.mean_ns, the mean of the per-iteration device-event
// times of the slowest rank, as the public benchmarks report it (caches flushed and ranks
// barriered before every iteration); the prediction is Tessera's makespan_ns of one iteration.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/app/measured/measured_set.h"
#include "sim/app/run/run_spec.h"

namespace tessera::app::validation {

struct ValidationCase {
  const measured::MeasuredCase* source = nullptr;
  std::string variant;      // workload.variant, or "" for kinds without variants
  std::string params_text;  // the other workload keys, "m=1024 n=3584 k=8192"
  std::string group_key;    // cases with equal keys differ only by variant
  nlohmann::json workload;  // the workload map that runs (workload.ranks filled in)
  double measured_ns = 0;
  std::optional<double> predicted_ns;
  std::string error;        // why Tessera could not run it (then no prediction)

  // (predicted - measured) / measured, in percent; only with a prediction.
  double error_percent() const { return 100.0 * (*predicted_ns - measured_ns) / measured_ns; }
};

// A case per passed, non-shared pattern result, in file order, with its run checked (not run).
// Results that ran on more GPUs than the system has are set aside with the reason.
struct PreparedCases {
  std::vector<ValidationCase> cases;
  std::vector<run::RunSpec> runs;  // runs[i] is the run of cases[i]
  std::vector<measured::SkippedFile> too_large;
};
// Throws config::ConfigError naming the result file and key for a bad tessera.workload.
// The workload key whose values are the variants compared in a group: `variant`, or `mapping` (attention),
// `xcd_remap` (gemm).
std::string_view variant_key_of(std::string_view kind);

PreparedCases prepare_cases(const measured::MeasuredSet& set, const std::string& system, std::uint32_t system_gpus);

// Runs every case on up to `jobs` threads and fills in the predictions (or the errors).
// `case_done(failed)` is called as each case finishes, from the thread that ran it.
void predict_cases(PreparedCases& prepared, unsigned jobs, const std::function<void(bool failed)>& case_done = {});

}  // namespace tessera::app::validation

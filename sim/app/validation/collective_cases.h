#pragma once
// The kernel suite's vendor-library collectives (cases nccl_<op>, docs/kernels.md "Collectives")
// against Tessera's model of the same library: each passed result becomes
//   {kind: collective, op, size: <metrics.size_bytes> B, dtype, ranks, library: nccl, host: one_thread,
//    iterations: K, algorithm/protocol as the result's library.env forced them}
// run on the system, and its time per collective is compared with the measured one.
//
// Why these settings. The suite runs NCCL as nccl-tests does with several GPUs in one process: one
// thread issues every rank's call of a collective (a group), 20 collectives back to back per
// sample after warm-up ones, and reports the mean time of one. `host: one_thread` charges the
// system's host.collective_call per GPU per call in the same order, so small collectives show
// the host's pace as they do on the machine. K = 20 up to 8 MiB (the suite's sample, so that the
// host's steady state dominates the mean, as after the suite's warm-up); 3 above, where one
// collective takes tens of microseconds or more and the first iteration's start is a small
// share of the mean, and where every iteration costs real simulation time.
//
// These are a different question from the pattern cases (how well Tessera models a vendor
// library's algorithms, protocols and host side, not a kernel of the suite's own), so they are
// reported and summarised apart: sizes from 64 KiB up (bandwidth and pipelining) and below
// (small-message latency, mostly the host), each with NCCL's own cost model beside Tessera.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/app/measured/measured_set.h"
#include "sim/app/run/run_spec.h"
#include "workloads/workload_result.h"

namespace tessera::app::validation {

// Cases whose name starts with this are the vendor library's collectives.
inline constexpr std::string_view kLibraryCollectivePrefix = "nccl_";
// Below this size a collective is small-message latency; from it up, bandwidth.
inline constexpr std::uint64_t kSmallCollectiveBytes = 64 * 1024;
// Iterations Tessera runs per case: the suite's 20 up to this size, 3 above.
inline constexpr std::uint64_t kSteadyStateMaxBytes = 8ULL << 20;
inline constexpr std::uint32_t kSteadyStateIterations = 20;
inline constexpr std::uint32_t kLargeIterations = 3;

bool is_library_collective(const measured::MeasuredCase& result);

// What a library-collective result says it ran, read from its metrics (size_bytes, dtype, ranks)
// and its library.env (NCCL_ALGO, NCCL_PROTO), never from its tessera.workload (whose keys
// predate kind collective's).
struct LibraryCollective {
  std::string op;                  // "all_reduce": the case name without the prefix
  std::uint64_t size_bytes = 0;    // metrics.size_bytes: the size run (nccl-tests' size)
  std::string dtype;               // metrics.dtype (params.dtype when absent)
  std::uint32_t ranks = 0;         // metrics.ranks (the result's ranks when absent)
  std::string algorithm = "auto";  // "ring", "tree" when library.env forced one alone (never all_to_all); else "auto"
  std::string protocol = "auto";   // "ll", "ll128", "simple" when forced alone; else "auto"
  std::string forced_text() const;  // "ring/ll", "ring/auto", "auto"
};

// Throws MeasuredDataError naming the file and the key (metrics.size_bytes, library.env.NCCL_ALGO, ...).
LibraryCollective read_library_collective(const measured::MeasuredCase& result);

// The workload map of kind collective for it; `host` "none", "one_thread" or "per_rank".
nlohmann::json library_collective_workload(const LibraryCollective& c, const std::string& host, std::uint32_t iterations);

// {system: SYSTEM, workload: WORKLOAD} read and checked as `tessera run` reads a config. Throws
// config::ConfigError located at "<result file> (collective case)".
run::RunSpec library_collective_run(const measured::MeasuredCase& result, const std::string& system,
                                    const nlohmann::json& workload);
// The same for a source named `source` (a file, as errors name it).
run::RunSpec library_collective_run(const std::string& source, const std::string& system, const nlohmann::json& workload);

// The iterations validate runs a case of this size with.
std::uint32_t validation_iterations(std::uint64_t size_bytes);

struct CollectiveCase {
  const measured::MeasuredCase* source = nullptr;
  LibraryCollective collective;
  nlohmann::json workload;  // what runs
  double measured_ns = 0;   // timing.mean_ns: the mean time of one collective (nccl-tests' time)
  std::optional<double> predicted_ns;                        // Tessera's time per iteration
  std::optional<workloads::CollectiveFigures> figures;       // what Tessera chose and NCCL's own model
  std::string error;        // why Tessera could not run it (then no prediction)

  bool small() const { return collective.size_bytes < kSmallCollectiveBytes; }
  double error_percent() const { return 100.0 * (*predicted_ns - measured_ns) / measured_ns; }
  // NCCL's own cost model of its choice (library_model_time_us) against the measurement.
  std::optional<double> library_model_error_percent() const;
};

struct PreparedCollectives {
  std::vector<CollectiveCase> cases;
  std::vector<run::RunSpec> runs;  // runs[i] is the run of cases[i]
  std::vector<measured::SkippedFile> too_large;
};

// A case per passed, non-shared library-collective result, in file order, its run checked (not
// run). Results that ran on more GPUs than the system has are set aside with the reason.
PreparedCollectives prepare_collective_cases(const measured::MeasuredSet& set, const std::string& system,
                                             std::uint32_t system_gpus);

// Runs every case on up to `jobs` threads; `case_done(failed)` as each finishes.
void predict_collective_cases(PreparedCollectives& prepared, unsigned jobs,
                              const std::function<void(bool failed)>& case_done = {});

// The mean absolute error of a size class, Tessera's and NCCL's own model's.
struct CollectiveClassSummary {
  std::size_t cases = 0;      // of the class
  std::size_t predicted = 0;  // of them, those Tessera ran
  std::optional<double> mape_percent;
  std::optional<double> max_abs_error_percent;
  std::optional<std::size_t> worst_case;  // index into the cases
  std::optional<double> library_model_mape_percent;  // over the predicted cases that have NCCL's model time
};

struct CollectiveSummary {
  std::size_t cases = 0;
  std::size_t predicted = 0;
  CollectiveClassSummary large;  // size >= kSmallCollectiveBytes
  CollectiveClassSummary small;  // size <  kSmallCollectiveBytes
};

CollectiveSummary summarize_collectives(const std::vector<CollectiveCase>& cases);

}  // namespace tessera::app::validation

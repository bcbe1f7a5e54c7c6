#pragma once
// A run config, read and checked: the system, the workload and the run options. It is the
// first stage of the data flow config -> system -> workload -> replay -> report.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/phold/phold_params.h"
#include "models/system/system_spec.h"
#include "sim/config/config_node.h"
#include "workloads/microbench/microbench_params.h"
#include "workloads/patterns/pattern_workload.h"
#include "workloads/replay/trace_workload.h"

namespace tessera::app {

struct RunOptions {
  std::uint64_t seed = 1;
  std::optional<std::uint64_t> max_events;  // stop after this many events (result marked incomplete)
  // Set by flags and the sweep, not by configs (so they stay out of describe and a sweep
  // point's config hash: a wall-clock limit says nothing about the system or the workload).
  bool ideal_locality = false;  // `run --ablate locality` (ReplayOptions)
  std::optional<std::chrono::nanoseconds> max_wall;  // `--max-wall`: stop after this much wall time (incomplete)
  const std::atomic<bool>* stop_requested = nullptr;  // a sweep's interrupt flag (sim/app/interrupt.h)
};

// The parameters of the workload, by kind: the alternative names the kind, except that every
// generated kind (ag_gemm, gemm, ...) is a PatternWorkload that knows its own kind.
using WorkloadParams = std::variant<workloads::microbench::MicrobenchParams, bench::PholdParams,
                                    workloads::replay::TraceWorkloadParams, workloads::patterns::PatternWorkload>;

struct RunSpec {
  models::SystemSpec system;
  std::string workload_kind;
  WorkloadParams workload;
  RunOptions options;
};

// The workload kinds a run config may name.
const std::vector<std::string>& workload_kinds();

// Reads a loaded run config (system: already resolved to a map, overrides applied).
// Throws config::ConfigError naming file, line and key.
RunSpec read_run_spec(const sim::config::ConfigNode& root);

// The fully resolved configuration, every default filled in, values with units.
std::string describe_yaml(const RunSpec& spec);
nlohmann::json describe_json(const RunSpec& spec);

}  // namespace tessera::app

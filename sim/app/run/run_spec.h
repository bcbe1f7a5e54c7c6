#pragma once
// A run config, read and checked: the system, the workload and the run options. It is the
// first stage of the data flow config -> system -> workload -> replay -> report.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/system/parameter_ranges.h"
#include "models/system/system_spec.h"
#include "sim/config/config_node.h"
#include "sim/config/schema.h"
#include "workloads/workload.h"

namespace tessera::app::run {

struct RunOptions {
  std::uint64_t seed = 1;
  std::optional<std::uint64_t> max_events;  // stop after this many events (result marked incomplete)
  // Set by flags and the sweep, not by configs (so they stay out of describe and a sweep
  // point's config hash: a wall-clock limit says nothing about the system or the workload).
  bool ideal_locality = false;   // `run --ablate locality` (ReplayOptions)
  bool dataflow_oracle = false;  // `run --ablate sync` (ReplayOptions)
  bool skip_host_delays = false;  // `run --ablate launch` (ReplayOptions)
  std::optional<std::chrono::nanoseconds> max_wall;  // `--max-wall`: stop after this much wall time (incomplete)
  const std::atomic<bool>* stop_requested = nullptr;  // a sweep's interrupt flag (sim/app/interrupt.h)
};

struct RunSpec {
  models::SystemSpec system;
  workloads::Workload workload;  // of any registered kind (workloads/workload_kinds.h)
  // The system file's `uncertainty:` ranges (what `tessera run --uncertainty` samples).
  std::vector<models::ParameterRange> parameter_ranges;
  RunOptions options;
};

// The top-level keys of a run config besides system: and workload: (`seed`, `max_events`).
const sim::config::Schema<RunOptions>& run_options_schema();

// Reads a loaded run config (system: already resolved to a map, overrides applied).
// Throws config::ConfigError naming file, line and key.
RunSpec read_run_spec(const sim::config::ConfigNode& root);

// The fully resolved configuration, every default filled in, values with units.
std::string describe_yaml(const RunSpec& spec);
nlohmann::json describe_json(const RunSpec& spec);

}  // namespace tessera::app::run

#pragma once
// The result of one run, typed: what ran (system, workload kind and parameters, seed), what the
// workload produced (workloads/workload_result.h), and the ablated re-runs `run --ablate` adds.
// Every command, report and sweep reads this type; JSON exists only at the edge, through the
// one to_json / run_result_from_json pair below (summary.json, `run --json`, a sweep's points/
// files and the records its MPI ranks exchange). docs/taxes.md "Outputs", docs/config-reference.md
// ("kind: microbench") and docs/workloads.md ("kind: collective") list the fields.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/tick.h"
#include "workloads/replay/activity_log.h"
#include "workloads/workload_result.h"

namespace tessera::app::run {

// The same run with one mechanism idealised (`run --ablate`).
struct AblationResult {
  sim::Tick makespan_ps = 0;
  std::optional<workloads::replay::CategoryTimes> times;  // along the critical GPU; none without a breakdown
};

struct RunResult {
  std::string tessera_version;
  std::string system;    // the system's name
  std::string workload;  // the workload kind
  std::uint64_t seed = 1;
  // Every workload parameter, defaults filled in, as `describe --json` prints them: each kind's
  // schema names its keys, so they stay JSON here.
  nlohmann::json workload_parameters = nlohmann::json::object();
  std::vector<std::string> zero_latency_keys;  // the system's latencies still at 0 ps
  std::vector<std::string> estimated_keys;     // the system's values that are estimates (its uncertainty: map)
  workloads::WorkloadResult result;
  std::map<std::string, AblationResult> ablations;  // by ablation name
  // `sweep --uncertainty N`: the makespan of each of the N sampled systems, in sample order.
  std::vector<double> sampled_makespans_ns;

  // The parameters that tell runs of one kind apart in tables: its variant and its mapping.
  std::optional<std::string> variant() const { return parameter_text("variant"); }
  std::optional<std::string> mapping() const { return parameter_text("mapping"); }
  // The name a run is shown under when nobody named it: its variant, mapping or kind.
  std::string default_label() const { return variant().value_or(mapping().value_or(workload)); }
  double makespan_ns() const { return static_cast<double>(result.makespan_ps) / 1e3; }
  double wall_events_per_s() const {
    return result.wall_s > 0 ? static_cast<double>(result.events) / result.wall_s : 0.0;
  }

 private:
  std::optional<std::string> parameter_text(const char* key) const;
};

nlohmann::json to_json(const RunResult& result);

// Reads what to_json wrote (sections a summary lacks stay empty: a microbenchmark's summary has
// no breakdown). Throws nlohmann::json::exception for a document of another shape.
RunResult run_result_from_json(const nlohmann::json& summary);

// The taxes (taxes = true) or the work parts of a breakdown in ns, keyed by category name, as
// every JSON output writes them.
nlohmann::json category_times_json(const workloads::replay::CategoryTimes& times, bool taxes);

// The nanoseconds of one category of a breakdown.
inline double category_ns(const workloads::replay::CategoryTimes& times, workloads::replay::TimeCategory c) {
  return static_cast<double>(times[static_cast<std::size_t>(c)]) / 1e3;
}

}  // namespace tessera::app::run

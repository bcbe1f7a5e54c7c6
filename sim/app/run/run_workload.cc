#include "sim/app/run/run_workload.h"

#include <nlohmann/json.hpp>

#include "sim/app/run/version.h"

namespace tessera::app::run {
namespace {

// The run's limits: the event limit, the wall-clock deadline (counted from now, so that it
// covers trace generation too) and the sweep's interrupt flag.
sim::RunLimits limits_of(const RunOptions& options) {
  sim::RunLimits limits;
  if (options.max_events) limits.max_events = *options.max_events;
  if (options.max_wall) {
    limits.wall_deadline = sim::WallClock::now() + std::chrono::duration_cast<sim::WallClock::duration>(*options.max_wall);
  }
  limits.stop_requested = options.stop_requested;
  return limits;
}

}  // namespace

std::optional<workloads::trace::Trace> trace_of(const RunSpec& spec) { return spec.workload.trace(spec.system); }

nlohmann::json run_workload(const RunSpec& spec) { return run_workload(spec, false).summary; }

RunOutcome run_workload(const RunSpec& spec, bool record_activity) {
  RunOutcome out;
  nlohmann::json& s = out.summary;
  s["tessera_version"] = kVersion;
  s["system"] = spec.system.name;
  s["workload"] = spec.workload.kind();
  s["seed"] = spec.options.seed;
  // Every workload parameter, defaults filled in; the variant or mapping also on top, for tables.
  const nlohmann::json parameters = describe_json(spec)["workload"];
  s["workload_parameters"] = parameters;
  for (const char* key : {"variant", "mapping"}) {
    if (parameters.contains(key)) s[key] = parameters[key];
  }
  const workloads::RunContext context{.limits = limits_of(spec.options),
                                      .seed = spec.options.seed,
                                      .record_activity = record_activity,
                                      .ideal_locality = spec.options.ideal_locality};
  workloads::WorkloadOutcome outcome = spec.workload.run(spec.system, context);
  s.update(outcome.summary);
  out.activity = std::move(outcome.activity);
  s["zero_latency_keys"] = models::zero_latency_keys(spec.system);
  const double wall_s = s["wall_s"].get<double>();
  s["wall_events_per_s"] = wall_s > 0 ? static_cast<double>(s["events"].get<std::uint64_t>()) / wall_s : 0.0;
  return out;
}

}  // namespace tessera::app::run

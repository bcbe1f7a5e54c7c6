#include "sim/app/run/run_workload.h"

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

RunResult run_workload(const RunSpec& spec) { return run_workload(spec, workloads::replay::ActivityDetail::kNone).result; }

RunOutcome run_workload(const RunSpec& spec, workloads::replay::ActivityDetail activity) {
  RunOutcome out;
  RunResult& r = out.result;
  r.tessera_version = kVersion;
  r.system = spec.system.name;
  r.workload = spec.workload.kind();
  r.seed = spec.options.seed;
  r.workload_parameters = describe_json(spec)["workload"];  // every parameter, defaults filled in
  const workloads::RunContext context{.limits = limits_of(spec.options),
                                      .seed = spec.options.seed,
                                      .activity = activity,
                                      .ideal_locality = spec.options.ideal_locality,
                                      .dataflow_oracle = spec.options.dataflow_oracle,
                                      .skip_host_delays = spec.options.skip_host_delays};
  workloads::WorkloadOutcome outcome = spec.workload.run(spec.system, context);
  r.result = std::move(outcome.result);
  out.activity = std::move(outcome.activity);
  r.zero_latency_keys = models::zero_latency_keys(spec.system);
  r.estimated_keys = models::estimated_keys(spec.parameter_ranges);
  return out;
}

}  // namespace tessera::app::run

#include "sim/app/run_workload.h"

#include <nlohmann/json.hpp>

#include "bench/phold/phold_engine.h"
#include "workloads/microbench/run_microbench.h"
#include "workloads/replay/replay.h"
#include "workloads/replay/replay_error.h"
#include "workloads/trace/trace_file.h"
#include "sim/app/version.h"

namespace tessera::app {
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

// Runs the workload of one kind into the outcome's summary (and activity log, when asked).
struct KindRunner {
  const RunSpec& spec;
  sim::RunLimits limits;
  bool record_activity;
  RunOutcome& out;

  void operator()(bench::PholdParams phold) const {
    phold.limits = limits;
    const bench::PholdResult r = bench::run_phold_engine(phold);
    out.summary.update(nlohmann::json{{"complete", r.complete},
                                      {"stopped_by", r.complete ? nlohmann::json() : nlohmann::json(sim::to_string(r.stop_reason))},
                                      {"makespan_ns", static_cast<double>(r.final_time_ps) / 1e3},
                                      {"final_time_ps", r.final_time_ps},
                                      {"events", r.events},
                                      {"wall_s", r.wall_s}});
  }
  void operator()(const workloads::microbench::MicrobenchParams& params) const {
    out.summary.update(workloads::microbench::to_json(workloads::microbench::run_microbench(spec.system, params, limits)));
  }
  void operator()(const workloads::replay::TraceWorkloadParams& params) const {
    const workloads::trace::Trace trace = workloads::trace::load_trace(params.path);
    try {
      replay(trace);
    } catch (const workloads::replay::ReplayError& e) {
      // What the trace asks that this system cannot run: name the file, as for a config error.
      throw workloads::replay::ReplayError(params.path + ": " + e.what());
    }
  }
  void operator()(const workloads::patterns::PatternWorkload& pattern) const { replay(pattern.make_trace(spec.system)); }

  void replay(const workloads::trace::Trace& trace) const {
    workloads::replay::ReplayOptions options;
    options.limits = limits;
    options.record_activity = record_activity;
    options.ideal_locality = spec.options.ideal_locality;
    workloads::replay::ReplayResult result = workloads::replay::replay_trace(trace, spec.system, options);
    out.summary.update(workloads::replay::to_json(result));
    out.activity = std::move(result.activity);
  }
};

}  // namespace

std::optional<workloads::trace::Trace> trace_of(const RunSpec& spec) {
  if (const auto* pattern = std::get_if<workloads::patterns::PatternWorkload>(&spec.workload)) {
    return pattern->make_trace(spec.system);
  }
  if (const auto* file = std::get_if<workloads::replay::TraceWorkloadParams>(&spec.workload)) {
    return workloads::trace::load_trace(file->path);
  }
  return std::nullopt;
}

nlohmann::json run_workload(const RunSpec& spec) { return run_workload(spec, false).summary; }

RunOutcome run_workload(const RunSpec& spec, bool record_activity) {
  RunOutcome out;
  nlohmann::json& s = out.summary;
  s["tessera_version"] = kVersion;
  s["system"] = spec.system.name;
  s["workload"] = spec.workload_kind;
  s["seed"] = spec.options.seed;
  // Every workload parameter, defaults filled in; the variant or mapping also on top, for tables.
  const nlohmann::json parameters = describe_json(spec)["workload"];
  s["workload_parameters"] = parameters;
  for (const char* key : {"variant", "mapping"}) {
    if (parameters.contains(key)) s[key] = parameters[key];
  }
  std::visit(KindRunner{spec, limits_of(spec.options), record_activity, out}, spec.workload);
  s["zero_latency_keys"] = models::zero_latency_keys(spec.system);
  const double wall_s = s["wall_s"].get<double>();
  s["wall_events_per_s"] = wall_s > 0 ? static_cast<double>(s["events"].get<std::uint64_t>()) / wall_s : 0.0;
  return out;
}

}  // namespace tessera::app

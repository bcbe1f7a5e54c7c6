#include "sim/app/run_workload.h"

#include <nlohmann/json.hpp>

#include "bench/phold/phold_engine.h"
#include "workloads/microbench/run_microbench.h"
#include "workloads/replay/replay.h"
#include "workloads/trace/trace_file.h"
#include "sim/app/version.h"

namespace tessera::app {
namespace {

// Runs the workload of one kind into the outcome's summary (and activity log, when asked).
struct KindRunner {
  const RunSpec& spec;
  bool record_activity;
  RunOutcome& out;

  void operator()(const bench::PholdParams& phold) const {
    const bench::PholdResult r = bench::run_phold_engine(phold);
    out.summary.update(nlohmann::json{{"complete", r.complete},
                                      {"makespan_ns", static_cast<double>(r.final_time_ps) / 1e3},
                                      {"final_time_ps", r.final_time_ps},
                                      {"events", r.events},
                                      {"wall_s", r.wall_s}});
  }
  void operator()(const workloads::microbench::MicrobenchParams& params) const {
    workloads::microbench::RunLimits limits;
    if (spec.options.max_events) limits.max_events = *spec.options.max_events;
    out.summary.update(workloads::microbench::to_json(workloads::microbench::run_microbench(spec.system, params, limits)));
  }
  void operator()(const workloads::replay::TraceWorkloadParams& params) const {
    replay(workloads::trace::load_trace(params.path));
  }
  void operator()(const workloads::patterns::PatternWorkload& pattern) const { replay(pattern.make_trace(spec.system)); }

  void replay(const workloads::trace::Trace& trace) const {
    workloads::replay::ReplayOptions options;
    if (spec.options.max_events) options.max_events = *spec.options.max_events;
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
  std::visit(KindRunner{spec, record_activity, out}, spec.workload);
  s["zero_latency_keys"] = models::zero_latency_keys(spec.system);
  const double wall_s = s["wall_s"].get<double>();
  s["wall_events_per_s"] = wall_s > 0 ? static_cast<double>(s["events"].get<std::uint64_t>()) / wall_s : 0.0;
  return out;
}

}  // namespace tessera::app

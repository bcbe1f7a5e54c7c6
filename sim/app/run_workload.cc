#include "sim/app/run_workload.h"

#include <nlohmann/json.hpp>

#include "bench/phold/phold_engine.h"
#include "workloads/microbench/run_microbench.h"
#include "workloads/replay/replay.h"
#include "workloads/trace/trace_file.h"
#include "sim/app/version.h"

namespace tessera::app {
namespace {

nlohmann::json run_kind(const RunSpec&, const bench::PholdParams& phold) {
  const bench::PholdResult r = bench::run_phold_engine(phold);
  return {{"complete", r.complete},
          {"makespan_ns", static_cast<double>(r.final_time_ps) / 1e3},
          {"final_time_ps", r.final_time_ps},
          {"events", r.events},
          {"wall_s", r.wall_s}};
}

nlohmann::json run_kind(const RunSpec& spec, const workloads::microbench::MicrobenchParams& params) {
  workloads::microbench::RunLimits limits;
  if (spec.options.max_events) limits.max_events = *spec.options.max_events;
  return workloads::microbench::to_json(workloads::microbench::run_microbench(spec.system, params, limits));
}

workloads::replay::ReplayOptions replay_options(const RunSpec& spec) {
  workloads::replay::ReplayOptions options;
  if (spec.options.max_events) options.max_events = *spec.options.max_events;
  return options;
}

nlohmann::json run_trace(const RunSpec& spec, const workloads::trace::Trace& trace) {
  return workloads::replay::to_json(workloads::replay::replay_trace(trace, spec.system, replay_options(spec)));
}

nlohmann::json run_kind(const RunSpec& spec, const workloads::replay::TraceWorkloadParams& params) {
  return run_trace(spec, workloads::trace::load_trace(params.path));
}

nlohmann::json run_kind(const RunSpec& spec, const workloads::patterns::PatternWorkload& pattern) {
  return run_trace(spec, pattern.make_trace(spec.system));
}

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

nlohmann::json run_workload(const RunSpec& spec) {
  nlohmann::json s;
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
  s.update(std::visit([&spec](const auto& params) { return run_kind(spec, params); }, spec.workload));
  s["zero_latency_keys"] = models::zero_latency_keys(spec.system);
  const double wall_s = s["wall_s"].get<double>();
  s["wall_events_per_s"] = wall_s > 0 ? static_cast<double>(s["events"].get<std::uint64_t>()) / wall_s : 0.0;
  return s;
}

}  // namespace tessera::app

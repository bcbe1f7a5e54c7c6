#include "workloads/phold/phold_kind.h"

#include "workloads/phold/phold_engine.h"
#include "workloads/phold/phold_schema.h"

namespace tessera::workloads::phold {
namespace {

WorkloadOutcome run(PholdParams params, const RunContext& context) {
  params.seed = context.seed;
  params.limits = context.limits;
  const PholdResult r = run_phold_engine(params);
  WorkloadResult result;
  result.makespan_ps = r.final_time_ps;
  result.complete = r.complete;
  result.stop_reason = r.stop_reason;
  result.events = r.events;
  result.wall_s = r.wall_s;
  result.final_time_ps = r.final_time_ps;
  return {std::move(result), {}};
}

// PHOLD runs on the engine alone: no machine, no trace.
const Workload::Behaviour<PholdParams> kBehaviour{
    .to_yaml = [](const PholdParams& p, int indent) { return phold_schema().to_yaml(p, indent); },
    .to_json = [](const PholdParams& p) { return phold_schema().to_json(p); },
    .trace = [](const PholdParams&, const models::SystemSpec&) -> std::optional<trace::Trace> { return std::nullopt; },
    .run = [](const PholdParams& p, const models::SystemSpec&, const RunContext& context) { return run(p, context); },
};

}  // namespace

WorkloadKind phold_kind() {
  return {"phold", "the engine's PHOLD benchmark: events per second of wall time",
          [](const sim::config::ConfigNode& workload, const models::SystemSpec&) {
            return Workload("phold", phold_schema().read(workload, {.extra_keys = {"kind"}}), kBehaviour);
          },
          [] { return phold_schema().schema_json(); }};
}

}  // namespace tessera::workloads::phold

#include "workloads/microbench/microbench_kind.h"

#include "workloads/microbench/microbench_schema.h"
#include "workloads/microbench/read_microbench.h"
#include "workloads/microbench/run_microbench.h"

namespace tessera::workloads::microbench {
namespace {

// A microbenchmark drives the machine's models directly: it has no tile-level trace.
const Workload::Behaviour<MicrobenchParams> kBehaviour{
    .to_yaml = [](const MicrobenchParams& p, int indent) { return microbench_schema().to_yaml(p, indent); },
    .to_json = [](const MicrobenchParams& p) { return microbench_schema().to_json(p); },
    .trace = [](const MicrobenchParams&, const models::SystemSpec&) -> std::optional<trace::Trace> {
      return std::nullopt;
    },
    .run = [](const MicrobenchParams& p, const models::SystemSpec& system, const RunContext& context) {
      return WorkloadOutcome{to_workload_result(run_microbench(system, p, context.limits)), {}};
    },
};

}  // namespace

WorkloadKind microbench_kind() {
  return {"microbench", "one microbenchmark: stream, L2, remote and all-to-all bandwidth, atomics, flags, launch, copies",
          [](const sim::config::ConfigNode& workload, const models::SystemSpec& system) {
            return Workload("microbench", read_microbench(workload, system), kBehaviour);
          },
          [] { return microbench_schema().schema_json(); }};
}

}  // namespace tessera::workloads::microbench

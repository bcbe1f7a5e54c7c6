#include "workloads/collectives/collective_kind.h"

#include <fmt/format.h>

#include "sim/config/config_error.h"
#include "workloads/collectives/collective_figures.h"
#include "workloads/collectives/collective_plan.h"
#include "workloads/collectives/collective_schema.h"
#include "workloads/collectives/collective_trace.h"
#include "workloads/replay/replay_limits.h"
#include "workloads/replay/run_trace.h"

namespace tessera::workloads::collectives {
namespace {

using sim::config::ConfigError;
using sim::config::ConfigNode;

CollectiveParams read_collective(const ConfigNode& workload, const models::SystemSpec& system) {
  CollectiveParams params = collective_schema().read(workload, {.extra_keys = {"kind"}});
  if (const auto problem = check_against_system(params, system)) {
    const ConfigNode* at = workload.find(problem->key);
    throw ConfigError(at != nullptr ? *at : workload, problem->message);
  }
  // The sizes against the replay's limits (buffers within one GPU's HBM, operations), before
  // anything runs, as for every generated kind; the trace is a compact description (milliseconds).
  if (auto problem = replay::limits_problem(make_collective_trace(params, system), system)) {
    throw ConfigError(workload, fmt::format("collective is too large: {}", *problem));
  }
  return params;
}

// The replay of its trace, and nccl-tests' figures from the makespan of a complete run (a run a
// limit stopped has no time per iteration to report).
const Workload::Behaviour<CollectiveParams> kBehaviour{
    .to_yaml = [](const CollectiveParams& p, int indent) { return collective_schema().to_yaml(p, indent); },
    .to_json = [](const CollectiveParams& p) { return collective_schema().to_json(p); },
    .trace = [](const CollectiveParams& p, const models::SystemSpec& system) -> std::optional<trace::Trace> {
      return make_collective_trace(p, system);
    },
    .run = [](const CollectiveParams& p, const models::SystemSpec& system, const RunContext& context) {
      WorkloadOutcome outcome = replay::run_trace(make_collective_trace(p, system), system, context);
      if (outcome.result.complete) {
        const std::uint32_t ranks = ranks_of(p, system);
        outcome.result.collective = figures_of(p, plan_of(p, system, ranks), ranks, outcome.result.makespan_ps);
      }
      return outcome;
    },
};

}  // namespace

WorkloadKind collective_kind() {
  return {"collective", "one collective (all_gather, all_reduce, reduce_scatter, broadcast, reduce, all_to_all) on Tessera's, NCCL's or "
          "RCCL's algorithms, with nccl-tests' time, algbw, busbw",
          [](const ConfigNode& workload, const models::SystemSpec& system) {
            return Workload("collective", read_collective(workload, system), kBehaviour);
          },
          [] { return collective_schema().schema_json(); }};
}

}  // namespace tessera::workloads::collectives

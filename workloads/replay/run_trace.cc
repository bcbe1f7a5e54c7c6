#include "workloads/replay/run_trace.h"

#include "workloads/replay/replay.h"

namespace tessera::workloads::replay {

WorkloadOutcome run_trace(const trace::Trace& trace, const models::SystemSpec& system, const RunContext& context) {
  ReplayOptions options;
  options.limits = context.limits;
  options.record_activity = context.record_activity;
  options.ideal_locality = context.ideal_locality;
  ReplayResult result = replay_trace(trace, system, options);
  return {to_json(result), std::move(result.activity)};
}

}  // namespace tessera::workloads::replay

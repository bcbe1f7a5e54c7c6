#pragma once
// A tile-level trace replayed on the system as a run asks (limits, activity log, ablations):
// how every kind that runs a trace (a user's file, every generator) runs.
#include "models/system/system_spec.h"
#include "workloads/trace/trace.h"
#include "workloads/workload.h"

namespace tessera::workloads::replay {

WorkloadOutcome run_trace(const trace::Trace& trace, const models::SystemSpec& system, const RunContext& context);

}  // namespace tessera::workloads::replay

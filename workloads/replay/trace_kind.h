#pragma once
// The workload kind `trace`: a user's tile-level trace file (docs/trace-format.md), text or
// binary, replayed on the system of the run config.
#include "workloads/workload_kind.h"

namespace tessera::workloads::replay {

WorkloadKind trace_kind();

}  // namespace tessera::workloads::replay

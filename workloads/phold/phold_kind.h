#pragma once
// The workload kind `phold`: the engine's PHOLD yardstick as a run (its seed is the run's).
#include "workloads/workload_kind.h"

namespace tessera::workloads::phold {

WorkloadKind phold_kind();

}  // namespace tessera::workloads::phold

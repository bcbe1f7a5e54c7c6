#pragma once
// The workload kind `microbench`: one microbenchmark op on the assembled machine (docs/models.md).
#include "workloads/workload_kind.h"

namespace tessera::workloads::microbench {

WorkloadKind microbench_kind();

}  // namespace tessera::workloads::microbench

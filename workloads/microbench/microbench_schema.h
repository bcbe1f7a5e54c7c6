#pragma once
#include "sim/config/schema.h"
#include "workloads/microbench/microbench_params.h"

namespace tessera::workloads::microbench {

// The `workload:` keys of kind `microbench` (besides `kind`).
const sim::config::Schema<MicrobenchParams>& microbench_schema();

}  // namespace tessera::workloads::microbench

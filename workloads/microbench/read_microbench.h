#pragma once
// A `workload:` map of kind `microbench`, read and checked against the system it runs on.
#include "models/system/system_spec.h"
#include "sim/config/config_node.h"
#include "workloads/microbench/microbench_params.h"

namespace tessera::workloads::microbench {

// The schema's keys (and `kind`), then the op against the system's GPUs and the sizes against
// their limits. Throws sim::config::ConfigError at the key to change.
MicrobenchParams read_microbench(const sim::config::ConfigNode& workload, const models::SystemSpec& system);

}  // namespace tessera::workloads::microbench

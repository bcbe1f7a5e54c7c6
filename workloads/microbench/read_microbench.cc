#include "workloads/microbench/read_microbench.h"

#include "sim/config/config_error.h"
#include "workloads/microbench/microbench_limits.h"
#include "workloads/microbench/microbench_schema.h"

namespace tessera::workloads::microbench {

MicrobenchParams read_microbench(const sim::config::ConfigNode& workload, const models::SystemSpec& system) {
  const MicrobenchParams params = microbench_schema().read(workload, {.extra_keys = {"kind"}});
  auto problem = check_against_system(params, system.num_gpus);
  if (!problem) problem = size_problem(params, system);
  if (problem) {
    const sim::config::ConfigNode* at = workload.find(problem->key);
    throw sim::config::ConfigError(at != nullptr ? *at : workload, problem->message);
  }
  return params;
}

}  // namespace tessera::workloads::microbench

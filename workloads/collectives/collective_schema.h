#pragma once
// The `workload:` keys of kind `collective` and their checks against the system.
#include <cstdint>
#include <optional>

#include "models/system/system_spec.h"
#include "sim/config/schema.h"
#include "workloads/collectives/collective_params.h"
#include "workloads/patterns/param_problem.h"

namespace tessera::workloads::collectives {

const sim::config::Schema<CollectiveParams>& collective_schema();

std::uint32_t ranks_of(const CollectiveParams& params, const models::SystemSpec& system);

// What the system or the op makes impossible, at the key to change: ranks beyond the system's
// GPUs, an algorithm the op has no kernel for, a size the op cannot split.
std::optional<patterns::ParamProblem> check_against_system(const CollectiveParams& params,
                                                           const models::SystemSpec& system);

}  // namespace tessera::workloads::collectives

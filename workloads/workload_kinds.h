#pragma once
// The registry of workload kinds: every kind a run config may name, each registered once here
// (workload_kinds.cc) with its reader; describe, trace and run come with the Workload it reads.
#include <string_view>
#include <vector>

#include "workloads/workload_kind.h"

namespace tessera::workloads {

// In the order help texts list them.
const std::vector<WorkloadKind>& workload_kinds();

// nullptr when no kind has this name.
const WorkloadKind* find_workload_kind(std::string_view name);

}  // namespace tessera::workloads

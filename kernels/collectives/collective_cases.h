// The collective cases (docs/kernels.md, "Collectives"): the vendor library's all-reduce, all-gather,
// reduce-scatter, broadcast, reduce and all-to-all (NCCL on NVIDIA, RCCL on AMD, loaded at run time:
// collectives/collective_library.h), one communicator per GPU of this one process, timed as nccl-tests times them.
#pragma once

#include <vector>

#include "harness/case.h"

namespace tk {

CaseInfo nccl_all_reduce_case();
CaseInfo nccl_all_gather_case();
CaseInfo nccl_reduce_scatter_case();
CaseInfo nccl_broadcast_case();
CaseInfo nccl_reduce_case();
CaseInfo nccl_all_to_all_case();

void append_collective_cases(std::vector<CaseInfo>& cases);

}  // namespace tk

#pragma once
// The workload kind `collective`: one collective op (all_gather, all_reduce, reduce_scatter) on
// the machine, replayed as every trace kind and reported with nccl-tests' figures (time per
// iteration, algbw, busbw; collective_figures.h) besides the breakdown and traffic.
#include "workloads/workload_kind.h"

namespace tessera::workloads::collectives {

WorkloadKind collective_kind();

}  // namespace tessera::workloads::collectives

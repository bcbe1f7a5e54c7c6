#pragma once
// The tile-level trace of kind `collective`: the op's kernel (workloads/patterns/ for library
// tessera, nccl_kernels.h for nccl and rccl; one per rank, `channels` workgroups), launched `iterations`
// times back to back on stream 0 of every rank, as nccl-tests launches its `-n` iterations before
// one synchronisation:
//
//   every host: rank_barrier (nccl-tests' barrier before the timed loop),
//               [delay: the host's calls] launch, x iterations, sync
//
// Buffers, per rank, sized from `size` (collective_sizes.h): `input`, `output` and the receive
// buffer (`scratch` of Tessera's ring reductions, or NCCL's `fifo`); every iteration reuses them,
// as nccl-tests does. The kernels' flags are fresh per iteration: iteration i's flag_base is the
// sum of the flags the earlier ones used (all_*_flags(), nccl_flags()). Stream order makes a rank start iteration
// i + 1 when its own kernel i ends; the flags, not a barrier, order it against its peers.
// Kernels (and their programs) are named after the op ("all_reduce"); with several iterations
// "all_reduce_0", "all_reduce_1", ..., since a program's name is unique in a trace.
#include "models/system/system_spec.h"
#include "workloads/collectives/collective_params.h"
#include "workloads/trace/trace.h"

namespace tessera::workloads::collectives {

// Throws std::invalid_argument ("collective.KEY: ...") for parameters check_against_system refuses.
trace::Trace make_collective_trace(const CollectiveParams& params, const models::SystemSpec& system);

}  // namespace tessera::workloads::collectives

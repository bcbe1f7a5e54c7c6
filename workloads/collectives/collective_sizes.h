#pragma once
// What `size` means, per op, exactly as nccl-tests defines it (its PERFORMANCE.md and the
// *GetCollByteCount functions of its src/*.cu), and the per-rank buffers that follows:
//
//   op              size is                                  per rank: input     output
//   all_gather      the gathered (receive) buffer = R x n e            size / R    size
//   reduce_scatter  the send buffer = R x n e                          size        size / R
//   all_reduce      the buffer (send = receive = n e)                  size        size
//   broadcast       the buffer (root 0's input, every output)          size        size
//   reduce          the buffer (every input, root 0's output)          size        size
//   all_to_all      the send buffer = R blocks of n e                  size        size
//
// with R ranks, n elements per rank (per block for all_to_all) and e bytes per element. The
// scratch buffer is the receive slots: Tessera's ring kernels keep every piece at its own offset
// (the size of the data; reduce.h's chain its own), NCCL's cycle a FIFO per channel
// (workloads/patterns/nccl_kernels.h). nccl-tests runs out of place by default; so do we.
#include <cstdint>
#include <optional>
#include <string>

#include "workloads/collectives/collective_params.h"
#include "workloads/collectives/collective_plan.h"

namespace tessera::workloads::collectives {

struct CollectiveBuffers {
  std::uint64_t input_bytes = 0;    // per rank
  std::uint64_t output_bytes = 0;   // per rank
  std::uint64_t scratch_bytes = 0;  // per rank; 0: none
};

std::uint32_t element_bytes_of(const CollectiveParams& params);
// The elements of `size`, as nccl-tests prints its `count` column (size / element size).
std::uint64_t element_count(const CollectiveParams& params);

// `size` must be a multiple of this: ranks x the element size where each rank has an equal
// whole-element share (all_gather, reduce_scatter and all_to_all by definition, Tessera's ring
// all_reduce for its chunks), else the element size.
std::uint64_t size_granularity_bytes(const CollectiveParams& params, const CollectivePlan& plan, std::uint32_t ranks);

// Why `size` cannot be split on `ranks` ranks, naming the nearest valid sizes; nullopt when it can.
// nccl-tests instead rounds the per-rank count down (an integer division) and reports the size it
// ran; refusing keeps the size a user asked for the size that is reported.
std::optional<std::string> size_problem(const CollectiveParams& params, const CollectivePlan& plan,
                                        std::uint32_t ranks);

// The per-rank buffers; `size` must be valid (size_problem).
CollectiveBuffers buffers_of(const CollectiveParams& params, const CollectivePlan& plan, std::uint32_t ranks);

}  // namespace tessera::workloads::collectives

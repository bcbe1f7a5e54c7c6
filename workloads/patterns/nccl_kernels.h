#pragma once
// NCCL's collective kernels as trace programs: what a call runs once nccl_tuning.h has chosen
// its algorithm, protocol, channels and chunks. Read from NCCL 2.28.9's device code
// (https://github.com/NVIDIA/nccl/tree/v2.28.9-1/src/device): all_reduce.h, all_gather.h,
// reduce_scatter.h, broadcast.h, reduce.h (runRing, runTreeUpDown) and prims_*.h.
//
// One workgroup per channel and rank (a CTA). A channel owns an equal share of the data and
// walks it in loops; each loop moves one chunk per ring step, in slices. Between neighbours a
// slice goes into the receiver's FIFO: NCCL_STEPS = 8 steps of the protocol's buffer per
// channel, that is `fifo_slices` slices. Flow control is NCCL's head/tail pair, as two counter
// flags per channel: the sender waits for a free slot (the receiver's credit), stores the
// slice into the slot on the receiver and releases the tail counter; the receiver waits for the
// tail, reads the slot and returns the credit. A step that reduces reads its two sources together
// (the slot and its input in flight at once, as NCCL's threads load every source of a slice in one
// pass); a step's other reads and writes follow one another, which is what a channel's rate
// measured at large sizes supports (streaming every load and store of a slice at once made the
// two-rank LL and LL128 kernels up to 39% faster than NCCL's at 32-128 MiB). Per ring step and rank
// the kinds of NCCL's ring:
//
//   all_reduce      send, (R-2) x recvReduceSend, recvReduceCopySend, (R-2) x recvCopySend, recv
//   all_gather      copySend, (R-2) x recvCopySend, recv
//   reduce_scatter  send, (R-2) x recvReduceSend, recvReduceCopy
//   broadcast       along the ring from the root: copySend, recvCopySend ..., recv
//   reduce          along the ring into the root: send, recvReduceSend ..., recvReduceCopy
//
// The chunk of each step is NCCL's (runRing): at step j (1-based) rank r works on chunk
// (r - j) mod R, so the sums of chunk r finish on rank r.
//
// The tree all-reduce (one node: a chain 0 <- 1 <- ... <- R-1, runTreeUpDown) runs as two
// workgroups per channel, as NCCL splits a CTA's warps between the two directions: one reduces
// up the chain into rank 0 (send, recvReduceSend, ..., recvReduceCopySend at the root), one
// broadcasts the sums down (recvCopySend, ..., recv at the leaf).
//
// Protocols: the bytes on the wire per data byte (LL: 8 flag bytes per 8 data bytes; LL128: 8
// per 120; Simple: none, its flag is the separate tail store, made after a system fence). LL and
// LL128 carry their flags inside the data lines, so the receiver polls the data itself; here the
// tail counter stands for those flags, released after the slice's stores, which charges an LL or
// LL128 step a flag's latency that the real protocol overlaps with the data.
//
// Ring orders: on a switch or a direct bundle every channel runs the ring 0 -> 1 -> ... -> R-1, as
// NCCL logs it on NVSwitch; on a full mesh (spread_rings) the channels spread over rings of
// different strides (reduce_scatter.h's), each hop on another link, as NCCL's search spreads
// rings over a mesh's links. Across nodes of n GPUs (node_ranks) channel c's ring visits the
// nodes in order and each node's GPUs from local GPU k = c mod n on (k, k+1, ..., k-1): the ring
// leaves a node from its GPU k-1 and enters the next at GPU k, so the classes of channels cross
// through every GPU's NIC, as NCCL's rings NET -> GPUs -> NET take one NIC each. (NCCL keeps a
// ring's way in and out on one rail through PXN; here the crossing goes from rail k-1 to rail k
// through the spine, the same bandwidth on a non-blocking network.)
//
// What the programs leave out, measured: NCCL's kernels take a near-constant time longer than their
// data movement and handshakes (on the H200 pair 9-12 us with Simple, 6-8 us with LL128, ~1 us
// with LL, from 8 KiB to 32 MiB; docs/validation.md, "NCCL's kernels on the GPU"). The system
// file gives it per protocol (gpu.collective_library); every workgroup starts with a delay of it.
//
// Not modelled: NCCL's direct pointers within one process (the last all-gather steps writing the
// peer's output instead of its FIFO: the same link bytes, fewer local copies; tried, it made the
// two-rank all_gather 15% faster than NCCL measured there, so NCCL apparently does not use it for
// buffers it has not registered, although it logs "directMode 1"), the proxy thread
// (unused within a node), and the partial last loop (the loops here are equal, NCCL's last one is
// smaller).
#include <cstdint>
#include <string>
#include <vector>

#include "models/compute/compute_timing.h"
#include "workloads/patterns/collective_op.h"
#include "workloads/patterns/nccl_tuning.h"
#include "workloads/trace/builder.h"

namespace tessera::workloads::patterns {

struct NcclKernelSpec {
  std::string name = "nccl";
  CollectiveOp op = CollectiveOp::kAllReduce;
  NcclPlan plan;
  models::compute::Dtype dtype = models::compute::Dtype::kFp16;
  std::uint64_t size_bytes = 0;  // nccl-tests' size (collective_sizes.h)
  std::uint32_t input_buffer = trace::kNoBuffer;
  std::uint32_t output_buffer = trace::kNoBuffer;
  std::uint32_t fifo_buffer = trace::kNoBuffer;  // nccl_fifo_bytes per rank
  std::uint32_t root = 0;                        // broadcast, reduce
  bool spread_rings = false;  // a full mesh: channels on rings of different strides (reduce_scatter.h ring_stride)
  // Ranks that span nodes of this many GPUs (0: one node): the channels' rings go node by node,
  // each class of channels entering every node at another GPU (below).
  std::uint32_t node_ranks = 0;
  // all_gather with the input inside the output (input_buffer == output_buffer, the rank's block):
  // the first step sends the block from there and skips its copy, as NCCL's runRing does when
  // inputBuf + chunkOffset == outputBuf + offset (src/device/all_gather.h, directSend).
  bool in_place = false;
  std::uint64_t flag_base = 0;
  std::uint32_t stream = 0;
  // The library kernel's GPU time beyond what the program models (nccl_kernel_overhead_ps): every
  // workgroup starts with a delay of it.
  std::uint64_t kernel_overhead_ps = 0;
};

// The system's gpu.collective_library overhead of a kernel with `protocol`.
std::uint64_t nccl_kernel_overhead_ps(const models::GpuSpec& gpu, NcclProtocol protocol);

// The FIFO a rank holds for its channels (per rank, bytes).
std::uint64_t nccl_fifo_bytes(const NcclPlan& plan);
// Flags the kernels use from flag_base.
std::uint64_t nccl_flags(const NcclPlan& plan);

// Adds one program and kernel per rank (a rank's role differs along the ring), launched on each
// rank's host; returns the kernels. all_to_all is not an NCCL collective algorithm (it is
// grouped sends and receives): the caller runs the direct all-to-all for it.
std::vector<std::uint32_t> append_nccl_collective(trace::TraceBuilder& builder, std::uint32_t ranks,
                                                  const NcclKernelSpec& spec);

}  // namespace tessera::workloads::patterns

#pragma once
// The reduce-scatter collective as a kernel of `channels` workgroups per rank, with RCCL's ring
// algorithm over peer memory (the BSP baseline): the time comes out of the links, caches, flags and
// CUs it drives, not out of a formula.
//
// Every rank contributes `ranks` chunks of `shard_bytes` (chunk c at input_offset + c *
// shard_bytes); afterwards rank r's output (shard_bytes at output_offset) holds the element-wise
// sum over all ranks of chunk r.
//
// Ring: chunk c travels the ring and ends at rank c, each rank adding its own part on the way.
// With the ring's stride d (next rank r + d, previous r - d): step 0, rank r sends its part of
// chunk (r - d) mod R to the next rank; step t (1 <= t <= R - 2), it waits for chunk
// (r - (t + 1) d) mod R from the previous rank, adds its own part and sends the sum on; last
// step, it waits for chunk r, adds its own part and stores the result. A reduction step is what
// the ring kernel does per piece: load the received partial sum (a local load after the wait's
// acquire), load its own part, add (compute), store the sum into the next rank's receive buffer
// (a remote store) and release the next rank's flag.
//
// Rings: with `spread_rings` the channels are spread over rings of different strides, as RCCL
// builds several rings over a fully connected node so that every ring drives other links: for a
// power-of-two R >= 4 channel c uses d = 1 + 2 (c mod R/2) (every odd stride: R/2 rings, on 8
// MI300X 4 of the 7 xGMI links each way), for other R >= 3 d = 1 or R - 1 (the ring and its
// reverse). Without it every channel uses d = 1, as all_gather.h's ring does: one link each way.
//
// The receive buffer (`scratch`, ranks x shard_bytes per rank) holds each chunk's partial sum at
// the chunk's slot, so nothing is reused within one run and no flow-control flags are needed.
// RCCL instead cycles a bounded FIFO (NCCL Simple: 8 slots of 512 KiB per channel) with credits
// flowing back; not modelled: the credit round trips, and that a FIFO stays hot in the caches
// while the slots here spread over the buffer.
//
// Work split and pieces as the all-gather (all_gather.h, split_of): the shard is cut into
// channels x pieces line-aligned pieces; channel c moves pieces [c * pieces, (c + 1) * pieces)
// of every chunk, one at a time, so a rank forwards a piece as soon as it has arrived.
//
// The adds: one per element per reduction step, in fp32 on the vector units (RCCL and Iris
// accumulate half precision in fp32). The trace's compute op has no vector unit; an add is
// charged as one FMA slot of the fp32 rate: kFlopsPerAdd = 2 FLOPs (the fp32 rate counts an FMA
// as 2). Memory traffic, not these adds, bounds a reduction on every system here.
//
// Flags: flag_base + (channel * R + chunk) * pieces + piece on the receiver; 0 -> 1 once per run.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/compute/compute_timing.h"
#include "workloads/patterns/all_gather.h"
#include "workloads/trace/builder.h"

namespace tessera::workloads::patterns {

// FLOPs charged per element added (see above).
inline constexpr std::int64_t kFlopsPerAdd = 2;

struct ReduceScatterSpec {
  std::string name = "reduce_scatter";
  models::compute::Dtype dtype = models::compute::Dtype::kFp16;  // of the elements added
  std::uint32_t input_buffer = trace::kNoBuffer;  // ranks x shard_bytes at input_offset
  std::uint64_t input_offset = 0;
  std::uint32_t output_buffer = trace::kNoBuffer;  // shard_bytes at output_offset
  std::uint64_t output_offset = 0;
  std::uint32_t scratch_buffer = trace::kNoBuffer;  // ranks x shard_bytes at scratch_offset
  std::uint64_t scratch_offset = 0;
  std::uint64_t shard_bytes = 0;             // a multiple of the element size
  std::uint32_t channels = 16;               // workgroups per rank
  std::uint64_t chunk_bytes = 512ULL << 10;  // largest piece a channel moves at once
  bool spread_rings = true;                  // channels over rings of different strides (above)
  std::uint64_t flag_base = 0;
  std::uint32_t stream = 0;
  std::uint32_t cu_first = 0;  // CUs per die the kernel may use (Kernel::cu_first / cu_count)
  std::uint32_t cu_count = 0;
};

// Flags the kernel uses from spec.flag_base.
std::uint64_t reduce_scatter_flags(const ReduceScatterSpec& spec, std::uint32_t ranks);

// Adds the program and one kernel per rank, launched on each rank's host in rank order; returns
// the kernel indices. Throws std::invalid_argument for an empty shard, no channels, or a shard
// that is not a multiple of the element size.
std::vector<std::uint32_t> append_reduce_scatter(trace::TraceBuilder& builder, std::uint32_t ranks,
                                                 const ReduceScatterSpec& spec);

// ---- Building blocks shared with the ring all-reduce (all_reduce.h) ----

// The piece arithmetic of a collective program: a split (split_of) written into registers
// r0 (the channel's first unit: wg * pieces * units), r1 (q * units) and r2 ((q + 1) * units)
// for piece q = channel * pieces + j; a piece covers bytes [lo, hi) of the shard.
struct PieceRegisters {
  static constexpr int kRegChannelBase = 0;
  static constexpr int kRegLo = 1;
  static constexpr int kRegHi = 2;

  AllGatherSplit split;
  std::uint32_t divisor = 1;  // channels * pieces
  std::uint32_t elem_bytes = 2;

  // Throws std::invalid_argument when a unit is smaller than an element or the split has more
  // than 2^32 pieces.
  PieceRegisters(const AllGatherSplit& split, std::uint32_t elem_bytes);
  void set_channel(trace::ProgramBuilder& p) const;
  void set_piece(trace::ProgramBuilder& p, int depth) const;  // piece j = loop(depth)
  trace::Expr lo() const;
  trace::Expr hi() const;
  trace::Expr bytes() const;
  // kFlopsPerAdd per element of the piece, times `inputs_added`.
  trace::Expr add_flops(std::int64_t inputs_added) const;
};

// The ring stride of channel `channel` (above).
std::uint32_t ring_stride(std::uint32_t ranks, std::uint32_t channel, bool spread_rings);
// The same stride as a trace expression of the workgroup (the channel), for ring programs.
trace::Expr ring_stride_expr(std::uint32_t ranks, bool spread_rings);

// The ring reduce-scatter steps as a program fragment (registers r0..r7; loop depths 0..1).
// `store_result` appends the last step's stores inside its piece loop (depth 0), when the sum
// of chunk `rank` is in the workgroup: r1/r2 hold the piece, r3 the next rank, r7 the stride;
// it may use r4..r6. With one rank there is nothing to add: the fragment loads chunk 0 and
// stores it.
struct RingReduceLayout {
  std::uint32_t input_buffer = trace::kNoBuffer;
  std::uint64_t input_offset = 0;
  std::uint32_t scratch_buffer = trace::kNoBuffer;
  std::uint64_t scratch_offset = 0;
  std::uint64_t shard_bytes = 0;
  std::uint64_t flag_base = 0;
  bool spread_rings = true;
};
inline constexpr int kRegRingNext = 3;    // (rank + stride) % R
inline constexpr int kRegRingStride = 7;  // this channel's ring stride
using StoreResult = std::function<void(trace::ProgramBuilder&)>;
void append_ring_reduce_steps(trace::ProgramBuilder& p, std::uint32_t ranks, const RingReduceLayout& layout,
                              const PieceRegisters& pieces, const StoreResult& store_result);

}  // namespace tessera::workloads::patterns

#pragma once
// The all-reduce collective as a kernel of `channels` workgroups per rank over peer memory, as
// RCCL/NCCL and the custom all-reduces of the inference stacks run it (the BSP baseline): every rank
// contributes `bytes` (its input); afterwards every rank's output holds the element-wise sum over
// all ranks. The time comes out of the links, caches, flags and CUs the kernel drives.
//
// Ring (RCCL/NCCL's ring all-reduce, one kernel): a reduce-scatter ring (reduce_scatter.h: the
// input cut into `ranks` chunks of bytes / ranks, chunk c summed on its way to rank c) and then
// an all-gather ring of the summed chunks (as all_gather.h's ring), 2 (R - 1) steps in all. As
// in RCCL, the last reduce step and the first gather step are one (recvReduceCopySend): the sum
// of chunk r is stored into the rank's own output slot and straight into the next rank's. Each
// piece of each step is ordered by a flag, so a rank forwards a piece as soon as it has arrived.
// Per rank: 2 (R - 1) / R x bytes sent and received, (R - 1) x bytes / R element adds. The
// channels are spread over rings of different strides (reduce_scatter.h, `spread_rings`).
// Not modelled: RCCL's LL/LL128 protocols (flags inside the data lines) and its tree algorithm.
//
// One-shot (the one-stage custom all-reduce of vLLM / TensorRT-LLM, and Iris's one-shot): every
// rank reads every peer's whole input and reduces it itself; no partial sums move. Each channel
// announces that this rank's input is ready (a flag on every peer: stream order has finished
// the kernel that wrote it), waits for every peer's announcement, then per piece of its slice
// of the buffer loads the piece from every rank (its own first, then the peers, each channel
// starting on another peer: remote loads, served at the peer's memory side), adds, and stores
// the sum into its output.
// A closing barrier (a flag per (source, channel) on every peer, and a wait for all of them)
// keeps a rank's kernel from ending while peers still read its input, as vLLM's does. Per rank:
// (R - 1) x bytes received by remote loads, nothing sent; (R - 1) x bytes element adds. It
// trades link bytes (R - 1 instead of 2 (R - 1) / R times the buffer) for steps (one instead of
// 2 (R - 1)): the choice of small messages. The push form (every rank stores its input into
// every peer, then each reduces locally) moves the same bytes; the pull form is the one those
// libraries use.
//
// Adds are charged as in reduce_scatter.h (kFlopsPerAdd per element at the fp32 rate).
//
// Flags (on the receiver; values 0 -> 1 once per run):
//   ring: reduce steps flag_base + (channel * R + chunk) * pieces + piece, gather steps the same
//         after the reduce steps' R * channels * pieces ids;
//   one-shot: ready flag_base + source * channels + channel, done the same after R * channels.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/compute/compute_timing.h"
#include "workloads/trace/builder.h"

namespace tessera::workloads::patterns {

enum class AllReduceAlgorithm : std::uint8_t { kRing, kOneShot };
const std::vector<std::pair<std::string, AllReduceAlgorithm>>& all_reduce_algorithm_choices();

struct AllReduceSpec {
  std::string name = "all_reduce";
  AllReduceAlgorithm algorithm = AllReduceAlgorithm::kRing;
  models::compute::Dtype dtype = models::compute::Dtype::kFp16;  // of the elements added
  std::uint32_t input_buffer = trace::kNoBuffer;  // `bytes` at input_offset
  std::uint64_t input_offset = 0;
  std::uint32_t output_buffer = trace::kNoBuffer;  // `bytes` at output_offset; another range than the input
  std::uint64_t output_offset = 0;
  std::uint32_t scratch_buffer = trace::kNoBuffer;  // ring: all_reduce_scratch_bytes at scratch_offset
  std::uint64_t scratch_offset = 0;
  std::uint64_t bytes = 0;                   // per rank
  std::uint32_t channels = 16;               // workgroups per rank
  std::uint64_t chunk_bytes = 512ULL << 10;  // largest piece a channel moves at once
  bool spread_rings = true;                  // ring: channels over rings of different strides (reduce_scatter.h)
  std::uint64_t flag_base = 0;
  std::uint32_t stream = 0;
  std::uint32_t cu_first = 0;  // CUs per die the kernel may use (Kernel::cu_first / cu_count)
  std::uint32_t cu_count = 0;
};

// Why the spec cannot run on `ranks` ranks (no bytes or channels; bytes not a multiple of the
// element size, or for the ring of ranks x the element size), or nullopt.
std::optional<std::string> all_reduce_problem(const AllReduceSpec& spec, std::uint32_t ranks);
// The receive buffer the ring needs (bytes), 0 for one-shot.
std::uint64_t all_reduce_scratch_bytes(const AllReduceSpec& spec);
// Flags the kernel uses from spec.flag_base.
std::uint64_t all_reduce_flags(const AllReduceSpec& spec, std::uint32_t ranks);

// Adds the program and one kernel per rank, launched on each rank's host in rank order; returns
// the kernel indices. Throws std::invalid_argument with all_reduce_problem's message.
std::vector<std::uint32_t> append_all_reduce(trace::TraceBuilder& builder, std::uint32_t ranks,
                                             const AllReduceSpec& spec);

}  // namespace tessera::workloads::patterns

#pragma once
// The reduce collective as a kernel of `channels` workgroups per rank over peer memory, as
// NCCL/RCCL's reduce and nccl-tests' reduce run it: every rank contributes `bytes` (its input);
// afterwards the root's output holds the element-wise sum over all ranks (the other ranks'
// outputs are not written). The time comes out of the links, caches, flags and CUs the kernel
// drives.
//
// Work split and pieces as the broadcast's (broadcast.h): channels x pieces line-aligned pieces
// of the whole buffer, channel c moving pieces [c * pieces, (c + 1) * pieces) one at a time; a
// rank's role is a loop that runs once or not at all (set_is_zero_mod).
//
// Ring (NCCL's ring reduce): per channel a chain that ends at the root, each rank one stride
// further (root + d, root + 2 d, ..., root; the strides of reduce_scatter.h's `spread_rings`).
// Per piece: the first rank loads its input and stores it into the next rank's receive buffer
// (`scratch`, a remote store), releasing the next rank's flag for (channel, piece); a rank in
// the middle waits for that flag (acquiring the piece), loads the partial sum it received,
// loads its own input, adds, and stores the sum on the same way; the root does the same but
// stores the sum into its own output. Each piece moves on as soon as it has arrived: the chain
// is pipelined per piece as NCCL's is per chunk step. The receive buffer holds each piece at
// its own offset, so no slot is reused within a run and no credits flow back (NCCL cycles a
// bounded FIFO; see reduce_scatter.h). Per rank: every rank but the root sends `bytes`, every
// rank but the first receives `bytes` and adds bytes / element-size elements; (R - 1) x bytes
// cross the links in all, `bytes` on each link of the chain.
//
// One-shot (a pull reduce, the small-message choice): every other rank's channel releases a
// ready flag on the root (stream order has finished the kernel that wrote its input); the
// root's channel waits for every peer's, then per piece loads its own input and the piece of
// every peer's input (remote loads, served at the peer's memory side; each channel starts on
// another peer so that the channels keep every link busy), adds, and stores the sum into its
// output. Then it releases a done flag on every peer, which each peer's channel waits for: a
// rank's kernel does not end while the root still reads its input. Per rank: the root receives
// (R - 1) x bytes by remote loads and adds (R - 1) x bytes / element-size elements; every other
// rank sends `bytes` (served from its memory), nothing is stored off the root.
//
// Adds are charged as in reduce_scatter.h (kFlopsPerAdd per element at the fp32 rate).
//
// Flags (on the receiver; values 0 -> 1 once per run):
//   ring: flag_base + channel * pieces + piece;
//   one-shot: ready flag_base + source * channels + channel (on the root), done
//             flag_base + R * channels + channel (on every rank but the root).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/compute/compute_timing.h"
#include "workloads/trace/builder.h"

namespace tessera::workloads::patterns {

enum class ReduceAlgorithm : std::uint8_t { kRing, kOneShot };
const std::vector<std::pair<std::string, ReduceAlgorithm>>& reduce_algorithm_choices();

struct ReduceSpec {
  std::string name = "reduce";
  ReduceAlgorithm algorithm = ReduceAlgorithm::kRing;
  models::compute::Dtype dtype = models::compute::Dtype::kFp16;  // of the elements added
  std::uint32_t root = 0;
  std::uint32_t input_buffer = trace::kNoBuffer;  // `bytes` at input_offset on every rank
  std::uint64_t input_offset = 0;
  std::uint32_t output_buffer = trace::kNoBuffer;  // `bytes` at output_offset, written on the root only
  std::uint64_t output_offset = 0;
  std::uint32_t scratch_buffer = trace::kNoBuffer;  // ring: reduce_scratch_bytes at scratch_offset
  std::uint64_t scratch_offset = 0;
  std::uint64_t bytes = 0;                   // per rank
  std::uint32_t channels = 16;               // workgroups per rank
  std::uint64_t chunk_bytes = 512ULL << 10;  // largest piece a channel moves at once
  bool spread_rings = true;                  // ring: channels over chains of different strides
  std::uint64_t flag_base = 0;
  std::uint32_t stream = 0;
  std::uint32_t cu_first = 0;  // CUs per die the kernel may use (Kernel::cu_first / cu_count)
  std::uint32_t cu_count = 0;
};

// Why the spec cannot run on `ranks` ranks (no ranks, bytes or channels; a root outside the
// ranks; bytes not a multiple of the element size), or nullopt.
std::optional<std::string> reduce_problem(const ReduceSpec& spec, std::uint32_t ranks);
// The receive buffer the ring needs (bytes), 0 for one-shot.
std::uint64_t reduce_scratch_bytes(const ReduceSpec& spec);
// Flags the kernel uses from spec.flag_base (the span of ids). Throws std::invalid_argument with
// reduce_problem's message.
std::uint64_t reduce_flags(const ReduceSpec& spec, std::uint32_t ranks);

// Adds the program and one kernel per rank, launched on each rank's host in rank order; returns
// the kernel indices. Throws std::invalid_argument with reduce_problem's message.
std::vector<std::uint32_t> append_reduce(trace::TraceBuilder& builder, std::uint32_t ranks, const ReduceSpec& spec);

}  // namespace tessera::workloads::patterns

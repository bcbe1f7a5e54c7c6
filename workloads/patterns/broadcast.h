#pragma once
// The broadcast collective as a kernel of `channels` workgroups per rank over peer memory, as
// NCCL/RCCL's broadcast and nccl-tests' broadcast run it: the root's `bytes` of input end up in
// every rank's output, the root's own included. The time comes out of the links, caches, flags
// and CUs the kernel drives.
//
// Work split and pieces as the all-gather's (all_gather.h, split_of) over the whole buffer: it
// is cut into channels x pieces line-aligned pieces; channel c moves pieces [c * pieces,
// (c + 1) * pieces), one at a time. A trace program has no branches, so what a rank does in its
// role (root, relay, last of a chain) is a loop that runs once or not at all (the counts are
// worked out from the rank, the root and the channel: set_is_zero_mod below).
//
// Ring (NCCL's ring broadcast): per channel a chain from the root through every rank, each one
// stride further (root, root + d, root + 2 d, ...; the strides of reduce_scatter.h's
// `spread_rings`, so that channels on a full mesh drive different links). Per piece: the root
// loads it from its input, stores it into its own output and into the next rank's output (a
// remote store) and releases the next rank's flag for (channel, piece); a rank in the middle of
// the chain waits for that flag (acquiring the piece), loads the piece from its output and
// forwards it to the next rank the same way; the last rank only waits. The piece lands in a
// rank's output straight from the previous rank's store: that store is NCCL's local copy of the
// received piece, and no receive buffer is needed. Each piece is forwarded as soon as it has
// arrived, so the chain is pipelined per piece as NCCL's is per chunk step. Per rank: the root
// sends `bytes` (and copies them locally), every other rank receives `bytes`, all but the last
// send them on: (R - 1) x bytes cross the links in all, `bytes` on each link of the chain.
//
// One-shot (a pull broadcast, the small-message choice): each of the root's channels releases a
// ready flag on every other rank (stream order has finished the kernel that wrote its input)
// and copies its slice of the input into its own output; every other rank's channel waits for
// its ready flag, loads its slice of the root's input with remote loads (served at the root's
// memory side), stores it into its own output, and tells the root it is done. The root's
// channel waits for every rank's done flag, so the root's kernel does not end while peers still
// read its input (the next kernel on the root may overwrite it). Per rank: the root sends
// (R - 1) x bytes (its links out, all at once), every other rank receives `bytes`; one step
// instead of the ring's R - 1 hops, at the price of the root's links carrying everything.
//
// Flags (on the receiver; values 0 -> 1 once per run):
//   ring: flag_base + channel * pieces + piece;
//   one-shot: ready flag_base + channel (on every rank but the root), done flag_base + channels
//             + source * channels + channel (on the root).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/compute/compute_timing.h"
#include "workloads/trace/builder.h"

namespace tessera::workloads::patterns {

enum class BroadcastAlgorithm : std::uint8_t { kRing, kOneShot };
const std::vector<std::pair<std::string, BroadcastAlgorithm>>& broadcast_algorithm_choices();

struct BroadcastSpec {
  std::string name = "broadcast";
  BroadcastAlgorithm algorithm = BroadcastAlgorithm::kRing;
  // Of the elements: the sizes are whole elements (nccl counts them); nothing is added.
  models::compute::Dtype dtype = models::compute::Dtype::kFp16;
  std::uint32_t root = 0;
  std::uint32_t input_buffer = trace::kNoBuffer;  // `bytes` at input_offset, read on the root only
  std::uint64_t input_offset = 0;
  std::uint32_t output_buffer = trace::kNoBuffer;  // `bytes` at output_offset on every rank
  std::uint64_t output_offset = 0;
  // The root's data is already in its output (in-place broadcast): the input is not read and
  // the root copies nothing.
  bool in_place = false;
  std::uint64_t bytes = 0;                   // the message
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
std::optional<std::string> broadcast_problem(const BroadcastSpec& spec, std::uint32_t ranks);
// Flags the kernel uses from spec.flag_base (the span of ids, the next free one is
// flag_base + broadcast_flags). Throws std::invalid_argument with broadcast_problem's message.
std::uint64_t broadcast_flags(const BroadcastSpec& spec, std::uint32_t ranks);

// Adds the program and one kernel per rank, launched on each rank's host in rank order; returns
// the kernel indices. Throws std::invalid_argument with broadcast_problem's message.
std::vector<std::uint32_t> append_broadcast(trace::TraceBuilder& builder, std::uint32_t ranks,
                                            const BroadcastSpec& spec);

// ---- A building block shared with the reduce (reduce.h) ----

// Writes into register `reg` what makes the returned expression 1 when `value` is a multiple of
// `ranks` and 0 otherwise: a loop of that count runs only on the rank (or channel) the value
// singles out, the program's way to branch. `value` must be non-negative, a constant plus at most
// two terms, and `ranks` at least 2; `reg` must keep its value until the loop has read the count.
trace::Expr set_is_zero_mod(trace::ProgramBuilder& p, int reg, const trace::Expr& value, std::uint32_t ranks);

}  // namespace tessera::workloads::patterns

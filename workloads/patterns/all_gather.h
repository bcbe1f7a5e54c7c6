#pragma once
// The all-gather collective as a kernel of `channels` workgroups per rank that moves the data
// with remote stores and flags, as RCCL/NCCL do over xGMI/NVLink peer memory (the BSP baseline):
// the time it takes comes out of the links, caches and flags it drives, not out of a formula.
//
// Every rank contributes a shard of `shard_bytes`; afterwards every rank's output holds all
// `ranks` shards, shard r at output_offset + r * shard_bytes.
//
// Work split: the shard is cut into channels x pieces near-equal pieces (multiples of 128 B
// where the shard allows); channel c moves pieces [c * pieces, (c + 1) * pieces) of every
// shard, one piece at a time, so a receiver can forward a piece as soon as it has arrived (the
// pipelining RCCL gets from its chunk steps). `chunk_bytes` bounds a piece.
//
// Ring (RCCL's all-gather algorithm): ranks - 1 steps. At step 0 rank r sends its own shard to
// rank r + 1; at step s >= 1 it forwards shard (r - s) mod R, which it received at step s - 1.
// Per piece: [wait for the piece's flag, acquiring it] load it, store it into the next rank's
// output (remote store), release the next rank's flag for (channel, shard, piece). Each channel
// finally waits for the last shard it receives, so the kernel ends only when the rank holds
// every shard: stream order then makes the result visible to the next kernel.
//
// One-shot: every rank stores its shard straight into every peer's output (peers in the order
// r + 1, r + 2, ...), then releases one flag per (source, channel) on each peer; each channel
// waits for its flag from every peer.
//
// Flags: ring: flag_base + (channel * R + shard) * pieces + piece on the receiver;
// one-shot: flag_base + source * channels + channel. Values go 0 -> 1 once per run.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "workloads/trace/builder.h"

namespace tessera::workloads::patterns {

enum class AllGatherAlgorithm : std::uint8_t { kRing, kOneShot };
const std::vector<std::pair<std::string, AllGatherAlgorithm>>& all_gather_algorithm_choices();

struct AllGatherSpec {
  std::string name = "all_gather";
  AllGatherAlgorithm algorithm = AllGatherAlgorithm::kRing;
  std::uint32_t input_buffer = trace::kNoBuffer;  // this rank's shard at input_offset (ignored in place)
  std::uint64_t input_offset = 0;
  std::uint32_t output_buffer = trace::kNoBuffer;  // ranks x shard_bytes at output_offset
  std::uint64_t output_offset = 0;
  // The shard is already in its own output slot (in-place all-gather): no local copy.
  bool in_place = false;
  std::uint64_t shard_bytes = 0;
  std::uint32_t channels = 16;              // workgroups per rank
  std::uint64_t chunk_bytes = 512ULL << 10;  // largest piece a channel moves at once
  // Ring: channels over rings of different strides, as RCCL builds over a full mesh, so that
  // every link carries a ring (reduce_scatter.h ring_stride); false: every channel on rank + 1.
  bool spread_rings = true;
  std::uint64_t flag_base = 0;
  std::uint32_t stream = 0;
  std::uint32_t cu_first = 0;  // CUs per die the kernel may use (Kernel::cu_first / cu_count)
  std::uint32_t cu_count = 0;
};

// How the shard is cut: `channels` workgroups (at most one per 128 B unit), `pieces` per channel.
struct AllGatherSplit {
  std::uint64_t unit_bytes = 0;  // pieces are whole units: 128 B, or less when the shard is not a multiple
  std::uint64_t units = 0;
  std::uint32_t channels = 0;
  std::uint32_t pieces = 0;  // per channel per shard
  // Piece q of the shard (q = channel * pieces + j) covers [start(q), start(q + 1)).
  std::uint64_t start(std::uint64_t q) const { return q * units / (std::uint64_t{channels} * pieces) * unit_bytes; }
};
AllGatherSplit split_of(const AllGatherSpec& spec);

// Flags the kernel uses, from spec.flag_base: the next free id is flag_base + flags_used.
std::uint64_t all_gather_flags(const AllGatherSpec& spec, std::uint32_t ranks);

// Adds the program and one kernel per rank, launched on each rank's host in rank order; returns
// the kernel indices. Throws std::invalid_argument for an empty shard or no channels.
std::vector<std::uint32_t> append_all_gather(trace::TraceBuilder& builder, std::uint32_t ranks,
                                             const AllGatherSpec& spec);

}  // namespace tessera::workloads::patterns

#pragma once
// The all-to-all collective as a kernel of `channels` workgroups per rank over peer memory, as
// NCCL's alltoall (one send and one receive per peer pair) and nccl-tests' alltoall run it:
// each rank's input holds `ranks` blocks of bytes / ranks; block j goes to rank j's output, at
// the slot of the source rank (rank s's block j lands at output_offset + s x bytes / ranks on
// rank j). The time comes out of the links, caches, flags and CUs the kernel drives.
//
// Work split and pieces as the all-gather's (all_gather.h, split_of) over one block: channels x
// pieces line-aligned pieces, channel c moving pieces [c * pieces, (c + 1) * pieces) of every
// block, one at a time.
//
// Direct (the push form of every peer-memory all-to-all): each channel first copies its slice
// of the own block into the own slot (local load and store), then, destination by destination,
// loads its slice of that destination's block and stores it into the destination's output (a
// remote store), and releases one flag per (destination, channel) there as soon as that slice
// is complete. Channel c of rank s visits the peers s + 1 + (i + c) mod (R - 1), i = 0 .. R - 2:
// staggered by rank, so that not every rank targets the same destination first, and by
// channel, so that a rank's channels drive all its links at once. Finally each channel waits for
// the flag of its slice from every peer (acquiring it), so the kernel ends only when the rank's
// output is complete: stream order then makes it visible to the next kernel. Per rank: (R - 1) /
// R x bytes sent and as much received over the links, bytes / R copied locally; nothing added.
// A pull form (each rank loading its blocks from the peers) moves the same bytes; NCCL sends.
//
// Flags (on the receiver; values 0 -> 1 once per run): flag_base + source * channels + channel.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/compute/compute_timing.h"
#include "workloads/trace/builder.h"

namespace tessera::workloads::patterns {

enum class AllToAllAlgorithm : std::uint8_t { kDirect };
const std::vector<std::pair<std::string, AllToAllAlgorithm>>& all_to_all_algorithm_choices();

struct AllToAllSpec {
  std::string name = "all_to_all";
  AllToAllAlgorithm algorithm = AllToAllAlgorithm::kDirect;
  // Of the elements: a block is whole elements (nccl counts them); nothing is added.
  models::compute::Dtype dtype = models::compute::Dtype::kFp16;
  std::uint32_t input_buffer = trace::kNoBuffer;  // `bytes` at input_offset: ranks blocks
  std::uint64_t input_offset = 0;
  std::uint32_t output_buffer = trace::kNoBuffer;  // `bytes` at output_offset: one block per source
  std::uint64_t output_offset = 0;
  std::uint64_t bytes = 0;                   // per rank, in and out
  std::uint32_t channels = 16;               // workgroups per rank
  std::uint64_t chunk_bytes = 512ULL << 10;  // largest piece a channel moves at once
  std::uint64_t flag_base = 0;
  std::uint32_t stream = 0;
  std::uint32_t cu_first = 0;  // CUs per die the kernel may use (Kernel::cu_first / cu_count)
  std::uint32_t cu_count = 0;
};

// Why the spec cannot run on `ranks` ranks (no ranks, bytes or channels; bytes not ranks whole
// blocks of whole elements), or nullopt.
std::optional<std::string> all_to_all_problem(const AllToAllSpec& spec, std::uint32_t ranks);
// Flags the kernel uses from spec.flag_base (the span of ids). Throws std::invalid_argument with
// all_to_all_problem's message.
std::uint64_t all_to_all_flags(const AllToAllSpec& spec, std::uint32_t ranks);

// Adds the program and one kernel per rank, launched on each rank's host in rank order; returns
// the kernel indices. Throws std::invalid_argument with all_to_all_problem's message.
std::vector<std::uint32_t> append_all_to_all(trace::TraceBuilder& builder, std::uint32_t ranks,
                                             const AllToAllSpec& spec);

}  // namespace tessera::workloads::patterns

#pragma once
// The kernels of distributed flash decode (flash_decode_layout.h gives the shapes): split-KV
// attention, the local combine (and its push to the peers), and the global reduce. The
// variants of flash_decode.h differ only in how the combine delivers and how the reduce waits.
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/patterns/flash_decode_layout.h"
#include "workloads/trace/builder.h"

namespace tessera::workloads::patterns {

struct FlashDecodeBuffers {
  std::uint32_t q = trace::kNoBuffer;
  std::uint32_t k = trace::kNoBuffer;
  std::uint32_t v = trace::kNoBuffer;
  std::uint32_t partials = trace::kNoBuffer;
  std::uint32_t combined = trace::kNoBuffer;  // bsp only
  std::uint32_t gathered = trace::kNoBuffer;
  std::uint32_t o = trace::kNoBuffer;
};

// Split-KV attention, one kernel "split_kv" per rank. Workgroup (b, hid, split):
//   load Q (heads_per_wg rows); for each op of blocks_per_op KV blocks: load K, load V (local
//   HBM), compute 4 * block_h * block_n * head_dim per block; then store one partial record per
//   head of the group at partials[b][head][split].
std::vector<std::uint32_t> append_split_kv(trace::TraceBuilder& builder, const FlashDecodeLayout& layout,
                                           const FlashDecodeBuffers& buffers, models::compute::Dtype dtype);

// How the local combine hands over its result.
enum class CombineDelivery : std::uint8_t {
  kLocal,        // bsp: store into `combined`; a collective all-gather moves it
  kPushPerTile,  // fused: store into gathered[rank][b][h] of every rank, release flag (source, b, h) there
  kPushCoarse,   // fused_coarse: store to every rank; the source's last workgroup releases one flag per rank
};

struct CombineSpec {
  CombineDelivery delivery = CombineDelivery::kLocal;
  bool stagger_peers = false;  // destinations (rank + i) % R instead of i
  std::uint64_t flag_base = 0;
};

// Flags, homed on the destination (every rank runs the same program, so ids repeat per rank):
//   per tile: flag_base + source * tiles + (b * q_heads + h)
//   coarse:   flag_base + source; and on the source itself its arrival counter flag_base + ranks.
std::uint64_t tile_flag(const FlashDecodeLayout& layout, std::uint64_t flag_base, std::uint64_t source,
                        std::uint64_t b, std::uint64_t q_head);
inline std::uint64_t pair_flag(std::uint64_t flag_base, std::uint64_t source) { return flag_base + source; }
inline std::uint64_t arrival_counter(const FlashDecodeLayout& layout, std::uint64_t flag_base) {
  return flag_base + layout.ranks;
}

// The local combine of the splits, one kernel per rank ("combine" for kLocal, else
// "combine_push"); grid (batch, q_heads), wg = b + batch * h (program_id 0 fastest):
//   load the head's `splits` records (one contiguous range), merge them, then deliver:
//   kLocal: store the record into combined[b][h];
//   kPushPerTile: for each destination d: store it into gathered[rank][b][h] on d, release
//     tile_flag(rank, b, h) on d (Iris gqa_local_reduce_fused: atomic_xchg, sem release);
//   kPushCoarse: for each destination: store it; then atomic_add 1 to this rank's arrival
//     counter. The grid's last workgroup then waits until the counter reaches the grid (every
//     workgroup has pushed: each op of a workgroup completes before its next one starts) and
//     releases pair_flag(rank) on every destination. Only that workgroup waits, and it needs
//     no more than one slot, so the wait cannot starve the others.
std::vector<std::uint32_t> append_combine(trace::TraceBuilder& builder, const FlashDecodeLayout& layout,
                                          const FlashDecodeBuffers& buffers, const CombineSpec& spec);

// The global reduce, one kernel "global_reduce" per rank; grid (batch, q_heads):
//   for each source s: [wait for s's flag, acquiring gathered[s][b][h]] load gathered[s][b][h];
//   store O[b][h]. The wait is none (bsp: stream order after the all-gather), the tile flag
//   (kPushPerTile) or the pair flag (kPushCoarse).
std::vector<std::uint32_t> append_global_reduce(trace::TraceBuilder& builder, const FlashDecodeLayout& layout,
                                                const FlashDecodeBuffers& buffers, const CombineSpec& spec);

}  // namespace tessera::workloads::patterns

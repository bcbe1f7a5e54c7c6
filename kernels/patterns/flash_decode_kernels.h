// The kernels of distributed flash decode (patterns/flash_decode.hip), as Tessera's
// workloads/patterns/flash_decode_kernels.h models them after Iris examples/13_flash_decode:
//
//   split_kv       grid (batch, head_groups, splits): min(16, group) q heads of one KV head per workgroup, one
//                  split of this rank's KV shard; stores one record per head: partials[b][h][split]
//   combine        grid (batch, q_heads): merges the splits of (b, h), then delivers the record:
//                    local         into combined[b][h] (bsp; an all-gather kernel moves it);
//                    push_per_tile into gathered[rank][b][h] of every rank d, releasing flag (rank, b, h) on d right
//                                  after that store (fused; Iris gqa_local_reduce_fused);
//                    push_coarse   into gathered[rank][b][h] of every rank; the last workgroup of the grid to
//                                  arrive (a counter on this rank) releases one flag per destination, flag (rank)
//                                  there (fused_coarse);
//   all_gather     bsp only: Tessera's one-shot all-gather kernel: channel c copies its slice of this rank's
//                  `combined` into gathered[rank] of every rank, releases flag (rank, c) on each peer, then waits
//                  for flag (peer, c) from every peer;
//   global_reduce  merges gathered[s][b][h] over the sources s into O[b][h], waiting (fused variants) on the flag
//                  of (s, b, h) or of s. A small persistent grid, one wave per (b, h) at a time, so that while it
//                  spins it never holds the GPU that the producers of a rank sharing it still need (--devices 0,0).
//
// A record is head_dim fp16 values (the partial output, already divided by its softmax sum) followed by one fp16
// log-sum-exp (natural log of the sum of exp(score), scores scaled by 1/sqrt(head_dim)): (head_dim + 1) * 2 bytes,
// as Iris stores them and Tessera counts them.
#pragma once

#include <cstddef>

#include "port/hip_port.h"

namespace tk {

inline constexpr int kFlashDecodeMaxRanks = 8;
inline constexpr int kFlashDecodeBlockN = 64;  // KV tokens per block (Iris BLOCK_N)
inline constexpr int kFlashDecodeBlockH = 16;  // query-head rows of the matrix tile (Iris BLOCK_H)

struct FlashDecodeShape {
  int batch = 4;
  int q_heads = 96;
  int kv_heads = 12;
  int head_dim = 128;
  int kv_len = 16384;  // tokens per rank per sequence
  int splits = 32;
  int ranks = 1;

  int group() const { return q_heads / kv_heads; }
  int heads_per_workgroup() const { return group() < kFlashDecodeBlockH ? group() : kFlashDecodeBlockH; }
  int head_groups() const { return q_heads / heads_per_workgroup(); }
  int tiles() const { return batch * q_heads; }  // (batch, q head) pairs
  int record_elements() const { return head_dim + 1; }
  std::size_t kv_elements() const {  // K or V of one rank: [batch][kv_heads][kv_len][head_dim]
    return static_cast<std::size_t>(batch) * kv_heads * kv_len * head_dim;
  }
};

// One pointer per rank (a kernel argument, so that a kernel can store into every peer's buffer).
template <class T>
struct PerRank {
  T at[kFlashDecodeMaxRanks] = {};
};

enum class CombineDelivery : int { local = 0, push_per_tile = 1, push_coarse = 2 };

// On the current device (once per rank, before the first launch): raises the split-KV kernel's dynamic
// shared-memory limit and loads every kernel of this file, so that no launch has to load a kernel while a
// spinning kernel of a rank sharing the GPU occupies it.
void prepare_flash_decode_kernels(int head_dim);

void launch_split_kv(const FlashDecodeShape& shape, const __half* q, const __half* k, const __half* v,
                     __half* partials, hipStream_t stream);

// `staggered`: destinations in the order rank, rank + 1, ... (mod ranks) instead of 0, 1, ... (Tessera peer_order).
// combined: local only; gathered, tile_flags ([ranks][tiles] ints), pair_flags ([ranks] ints): every rank's;
// arrival_counter: this rank's (push_coarse).
void launch_combine(const FlashDecodeShape& shape, CombineDelivery delivery, int rank, bool staggered,
                    const __half* partials, __half* combined, const PerRank<__half*>& gathered,
                    const PerRank<int*>& tile_flags, const PerRank<int*>& pair_flags, int* arrival_counter,
                    hipStream_t stream);

// The channels actually used for a shard of `shard_bytes` (at most one per copy unit).
int all_gather_channels(std::size_t shard_bytes, int channels);
// flags: every rank's [ranks][channels] ints.
void launch_all_gather_one_shot(int rank, int ranks, const __half* shard, std::size_t shard_bytes,
                                const PerRank<__half*>& gathered, const PerRank<int*>& flags, int channels,
                                hipStream_t stream);

// This rank's gathered ([ranks][tiles] records), flags and output O ([batch][q_heads][head_dim]).
void launch_global_reduce(const FlashDecodeShape& shape, CombineDelivery delivery, int rank, bool staggered,
                          const __half* gathered, const int* tile_flags, const int* pair_flags, __half* o,
                          int workgroups, hipStream_t stream);
// The grid launch_global_reduce uses for `workgroups` requested.
int global_reduce_grid(const FlashDecodeShape& shape, int workgroups);

}  // namespace tk

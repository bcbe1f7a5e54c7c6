#pragma once
// The producer of the push All-Gather + GEMM (push with per-tile flags; Iris
// examples/14_all_gather_gemm, push_shards_kernel): one workgroup per A block (pid_m, kk) of the
// rank's shard (grid tiles_m x steps, pid_m fastest as Triton's 2-D grid). It loads the block
// once, then for every destination rank d (itself included, as Iris does): stores it into
// slot `rank` of d's inbox (a remote store for d != rank) and releases flag
// block_flag(flag_base, tiling, steps, rank, pid_m, kk) on d.
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/patterns/gemm_tiling.h"
#include "workloads/patterns/tile_addressing.h"
#include "workloads/trace/builder.h"

namespace tessera::workloads::patterns {

struct PushShardsSpec {
  std::string name = "push_shards";
  SlabLayout shard;  // placement kOwnSlab: the rank's m x k_s shard
  SlabLayout inbox;  // placement kStacked: slot s holds rank s's shard
  std::uint32_t shard_buffer = trace::kNoBuffer;
  std::uint32_t inbox_buffer = trace::kNoBuffer;
  std::uint64_t flag_base = 0;
  bool stagger_destinations = false;  // destinations (rank + i) % R instead of i
  std::uint32_t stream = 0;
};

// Adds the program and one kernel per rank (launched in rank order); returns the kernel indices.
std::vector<std::uint32_t> append_push_shards(trace::TraceBuilder& builder, std::uint32_t ranks,
                                              const GemmTiling& tiling, const PushShardsSpec& spec);

}  // namespace tessera::workloads::patterns

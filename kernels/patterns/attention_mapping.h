// Which (batch, q head, Q block) workgroup `wg` of the Flash-Attention-2 forward computes: the four mappings of
// the NUMA paper (arXiv 2511.02132), exactly as Tessera's workloads/patterns/attention_mapping.{h,cc} writes them,
// so that a run of the kernel and a replay of Tessera's trace assign the same work to the same launched id.
//
//  1. logical id L = wg (naive) or the chiplet swizzle L = (wg % dies) * (G / dies) + wg / dies (swizzled;
//     G = batch x q_heads x q_blocks must be a multiple of dies; with dies <= 1 the swizzle is the identity, as
//     Tessera's remap_workgroup);
//  2. head-first: L = (b * q_heads + h) * q_blocks + m (the usual FA2 grid);
//     block-first: L = (b * q_blocks + m) * q_heads + h.
//
// `dies` is Tessera's gpu.compute.num_dies of the system the run is compared with: 2 for h100-* and h200-* (the two
// L2 partitions, configs/systems/h100-1.yaml), 8 for mi300x-*. The hardware is told nothing; on an NVIDIA GPU the
// mapping only changes which work the block scheduler hands out together.
#pragma once

#include <cstdint>
#include <string>

#include "port/hip_port.h"

namespace tk {

enum class AttentionMapping : int {
  naive_block_first = 0,
  swizzled_block_first = 1,
  naive_head_first = 2,
  swizzled_head_first = 3,
};

struct AttentionCoord {
  int batch;
  int head;     // q head
  int q_block;  // block of block_m query rows
};

__host__ __device__ inline AttentionCoord attention_coord(std::int64_t wg, int batch, int q_heads, int q_blocks,
                                                          int dies, AttentionMapping mapping) {
  const std::int64_t workgroups = static_cast<std::int64_t>(batch) * q_heads * q_blocks;
  const bool swizzled =
      mapping == AttentionMapping::swizzled_block_first || mapping == AttentionMapping::swizzled_head_first;
  const bool head_first =
      mapping == AttentionMapping::naive_head_first || mapping == AttentionMapping::swizzled_head_first;
  const std::int64_t logical = (swizzled && dies > 1) ? (wg % dies) * (workgroups / dies) + wg / dies : wg;
  const std::int64_t per_batch = static_cast<std::int64_t>(q_heads) * q_blocks;
  const std::int64_t rest = logical % per_batch;
  AttentionCoord coord;
  coord.batch = static_cast<int>(logical / per_batch);
  if (head_first) {
    coord.head = static_cast<int>(rest / q_blocks);
    coord.q_block = static_cast<int>(rest % q_blocks);
  } else {
    coord.q_block = static_cast<int>(rest / q_heads);
    coord.head = static_cast<int>(rest % q_heads);
  }
  return coord;
}

// The mapping named as Tessera's `mapping` key names it; false for an unknown name.
inline bool parse_attention_mapping(const std::string& name, AttentionMapping& mapping) {
  if (name == "naive_block_first") mapping = AttentionMapping::naive_block_first;
  else if (name == "swizzled_block_first") mapping = AttentionMapping::swizzled_block_first;
  else if (name == "naive_head_first") mapping = AttentionMapping::naive_head_first;
  else if (name == "swizzled_head_first") mapping = AttentionMapping::swizzled_head_first;
  else return false;
  return true;
}

}  // namespace tk

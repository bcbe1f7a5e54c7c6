#pragma once
// Which (batch, head, Q block) a launched workgroup of the Flash-Attention-2 forward computes:
// the four workgroup-to-XCD mappings of the NUMA paper (arXiv 2511.02132).
//
// The hardware is not told anything: workgroup `wg` of the launch runs on die wg mod D (round
// robin, chunk 1, MI300X SPX mode; models/compute/dispatch_order.h). A mapping is therefore a
// permutation of the work over the launched ids, written in two steps:
//
//  1. a *logical id* L: L = wg (naive), or the chiplet swizzle of gemm_tiling.h,
//     L = (wg % D) * (G / D) + wg / D (swizzled; G = batch x q_heads x q_blocks), which gives die
//     d the contiguous logical range [d G / D, (d + 1) G / D), in order;
//  2. a *logical order* that names the work unit of L, batch outermost in both:
//     - block-first: the Q block index is the first (major) index after the batch, the head the
//       last: L = (b * q_blocks + m) * q_heads + h. Consecutive ids are the same Q block of
//       consecutive heads.
//     - head-first: the head is the first index, the Q block the last:
//       L = (b * q_heads + h) * q_blocks + m. Consecutive ids are consecutive Q blocks of one
//       head: the usual FA2 launch grid, with the Q-block index as its fastest dimension,
//       i.e. the conventional order the paper improves on.
//  The swizzle assumes dispatch chunk 1 (SPX mode), as Iris's formula does.
//
// What each puts on a die (D = 8, batch 1, H q heads and M Q blocks a head, multiples of 8):
//   naive_block_first:    die d gets heads d, d + 8, ...: every block of a head on ONE die, but
//                         each die interleaves its H / 8 heads (works on all of them at once).
//   swizzled_block_first: die d gets Q blocks [d M / 8, (d + 1) M / 8) of EVERY head: each
//                         head's K and V are streamed by all 8 dies.
//   naive_head_first:     die d gets blocks d, d + 8, ... of every head: all 8 dies work on the
//                         same head at a time, each streaming its K and V (the FA2 default).
//   swizzled_head_first:  die d gets heads [d H / 8, (d + 1) H / 8), all blocks of one head
//                         before the next: every block of a head on one die, each die working
//                         on one head at a time (the paper's proposal). It equals the listing
//                         of the paper's Figure 11 as a public port of it gives it
//                         (head = (wg % 8) * H / 8 + wg / (8 M), block = (wg % (8 M)) / 8).
//
// GQA: q head h reads KV head h / (q_heads / kv_heads) (PyTorch's repeat_interleave, the FA2
// convention), so the q heads sharing a KV head are consecutive heads. Head-first orders
// therefore keep a KV group together without any extra permutation: swizzled_head_first puts
// H / 8 consecutive q heads on a die, which is exactly one KV head's group when kv_heads = 8
// (the paper's GQA case), and whole groups whenever the group size divides H / 8.
//
// The names follow the paper; which index is "first" is our reading of it (the outer, major
// index of the order), stated here by formula so that nothing depends on the reading.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "workloads/trace/builder.h"

namespace tessera::workloads::patterns {

enum class AttentionMapping : std::uint8_t {
  kNaiveBlockFirst,
  kSwizzledBlockFirst,
  kNaiveHeadFirst,
  kSwizzledHeadFirst,
};
const std::vector<std::pair<std::string, AttentionMapping>>& attention_mapping_choices();

// The work units of one attention forward: batch x q_heads x q_blocks workgroups.
struct AttentionGrid {
  std::uint64_t batch = 1;
  std::uint64_t q_heads = 1;
  std::uint64_t q_blocks = 1;  // Q blocks per (batch, head): seq_len / block_m

  std::uint64_t workgroups() const { return batch * q_heads * q_blocks; }
};

struct AttentionCoord {
  std::uint64_t batch = 0;
  std::uint64_t head = 0;  // q head
  std::uint64_t q_block = 0;
  friend bool operator==(const AttentionCoord&, const AttentionCoord&) = default;
};

// What launched workgroup `wg` computes (host side; the trace computes the same with
// append_attention_coord).
AttentionCoord attention_coord(const AttentionGrid& grid, std::uint32_t num_dies, AttentionMapping mapping,
                               std::uint64_t wg);

// Why the mapping is not a permutation of this grid (a swizzle needs the grid to be a multiple
// of the dies), or nullopt.
std::optional<std::string> attention_mapping_problem(const AttentionGrid& grid, std::uint32_t num_dies,
                                                     AttentionMapping mapping);

// The kernel argument that loads the logical id L into r0.
trace::Expr attention_logical_id_expr(const AttentionGrid& grid, std::uint32_t num_dies, AttentionMapping mapping);

// Appends the sets that turn r0 = L into r<bh_reg> = batch * q_heads + head (the q head's
// index over all batches) and r<block_reg> = the Q block.
void append_attention_coord(trace::ProgramBuilder& program, const AttentionGrid& grid, AttentionMapping mapping,
                            int bh_reg, int block_reg);

}  // namespace tessera::workloads::patterns

#pragma once
// The workgroup programs of GEMM + All-Scatter (gemm_all_scatter.h): where A, B and C lie, one
// output tile's K-loop, and what happens to a finished tile (stored locally, released by a
// per-tile lock, stored to every rank, or pushed to the peers by a communication workgroup).
//
// Layout (tile_addressing.h, panels): A (m x k) replicated on every rank; B = the rank's
// columns of B (k x n_local); C (m x n, the global result) as `ranks` slots of m x n_local
// elements, slot r holding rank r's columns. Within a slot, C is in column panels of block_n
// columns (as CLayout), but compact: the last, narrower panel has its row-blocks cols_last wide
// and a tile partial in both directions is one rows x cols range. So every tile is ONE
// contiguous range of exactly its bytes and a slot has no padding: an all-gather of the slots
// moves exactly the m x n_local elements of each rank. (With n_local a multiple of block_n this
// is CLayout's panels, and the slots are the global C's column panels in order.)
//
// A tile's offset and size are products of its row- and column-block edges, which the trace's
// expressions cannot form: they are computed into registers with one-iteration-or-none loops
// (count = "is this the last block", 0 or 1) as conditionals.
//
// Registers (gemm_tiling.h): r0 pid, r1 tile, r2 pid_m, r3 pid_n; a tile body uses r4 (A base,
// then the C tile's offset), r5 (B base, then the C tile's bytes) and r7 (the peer); r6 is free.
#include <cstdint>
#include <string>
#include <utility>

#include "models/compute/compute_timing.h"
#include "workloads/patterns/gemm_tiling.h"
#include "workloads/patterns/tile_addressing.h"
#include "workloads/trace/builder.h"

namespace tessera::workloads::patterns {

struct ScatterLayout {
  GemmTiling tiling;  // one rank's GEMM: m x n_local x k
  models::compute::Dtype dtype = models::compute::Dtype::kFp16;
  std::uint32_t ranks = 1;
  SlabLayout a;  // A: one m x k matrix
  BLayout b;     // the rank's B columns: k x n_local
  std::uint32_t a_buffer = trace::kNoBuffer;
  std::uint32_t b_buffer = trace::kNoBuffer;
  std::uint32_t c_buffer = trace::kNoBuffer;

  std::uint64_t c_slot_bytes() const { return tiling.m * tiling.n * tiling.elem_bytes; }
  std::uint64_t c_buffer_bytes() const { return c_slot_bytes() * ranks; }
  // Tile (pid_m, pid_n)'s range in a slot: {offset from the slot's start, bytes}.
  std::pair<std::uint64_t, std::uint64_t> c_tile_range(std::uint64_t pid_m, std::uint64_t pid_n) const;
};

// Sets r4 = the offset in C of the current tile (r2, r3) of THIS rank's slot, r5 = its bytes;
// the conditionals are loops one level below the current nesting.
void set_c_tile(trace::ProgramBuilder& program, const ScatterLayout& layout);
// The tile set_c_tile described, in `owner`'s copy of C.
BlockAccess c_tile(const ScatterLayout& layout, trace::Expr owner);

// Panels layouts of one rank's m x n_local x k GEMM (buffers left unset).
ScatterLayout scatter_layout(const GemmTiling& local_tiling, models::compute::Dtype dtype, std::uint32_t ranks);

enum class TileEnd : std::uint8_t {
  kStoreLocal,         // store the tile into this rank's copy of C (bsp)
  kStoreLocalRelease,  // ... then release the tile's lock on this rank (producer_consumer, wg_specialized)
  kStoreEveryRank,     // store it into every rank's copy, ranks 0, 1, .. in turn, from registers (fused)
};

// One output tile at tile-loop depth `depth`: the prefetched K-loop of gemm_tiling.h (each step's
// A and B blocks, 2 * block_m * block_n * block_k FLOPs per step, at depth + 1), then `end` (loops
// at depth + 1).
void append_gemm_tile(trace::ProgramBuilder& program, const ScatterLayout& layout, int depth, TileEnd end,
                      std::uint64_t lock_base);

// One tile pushed by a communication workgroup: wait for the tile's lock (acquiring the tile),
// load it from the local C, store it into every peer's C (peers in rank order, skipping self).
void append_scatter_tile(trace::ProgramBuilder& program, const ScatterLayout& layout, int depth,
                         std::uint64_t lock_base);

// A persistent GEMM of `num_wgs` workgroups (r0 = remapped pid, a kernel argument).
trace::ProgramBuilder scatter_gemm_program(std::string name, const ScatterLayout& layout, std::uint64_t num_wgs,
                                           TileEnd end, std::uint64_t lock_base);

// The persistent all-scatter of `num_wgs` workgroups of the producer_consumer variant.
trace::ProgramBuilder all_scatter_program(std::string name, const ScatterLayout& layout, std::uint64_t num_wgs,
                                          std::uint64_t lock_base);

// One kernel of gemm_wgs + comm_wgs workgroups: pid < gemm_wgs run the GEMM (kStoreLocalRelease);
// the others push tiles, pid - gemm_wgs over comm_wgs, then tell every peer they are done and
// wait for every peer's same communication workgroup (as Iris's kernel ends).
trace::ProgramBuilder wg_specialized_program(std::string name, const ScatterLayout& layout, std::uint64_t gemm_wgs,
                                             std::uint64_t comm_wgs, std::uint64_t lock_base,
                                             std::uint64_t done_base);

}  // namespace tessera::workloads::patterns

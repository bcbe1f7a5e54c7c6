#pragma once
// One output tile of the fused GEMM + all-reduce kernels (gemm_all_reduce.h), as Iris's
// examples write them: the tile's K-loop over this rank's K slice, then the tile's share of the
// all-reduce, by one of two means.
//
//  * one-shot (examples/09_gemm_one_shot_all_reduce): store the partial tile into the local
//    C_partial, release a flag (source = rank, tile) on every peer (Iris: an atomic add with
//    release semantics on a per-tile counter; here one flag per source, the same order and the
//    same release of the die's dirty data), wait for the flag of every peer, then load the tile
//    of C_partial from every rank (its own is a local load, the others remote loads served at
//    the peer's memory side), add, and store the sum into the local C. Every rank computes and
//    reduces every tile.
//  * atomics (examples/08_gemm_atomics_all_reduce): add the partial tile straight into every
//    rank's C (tl.atomic_add locally, iris.atomic_add for the peers), one ranged atomic add
//    (trace op atomic_add_range) per rank, performed at that rank's memory side. No flags:
//    addition commutes; C must be zero beforehand (outside the timed region).
//
// Rank order: Iris loops over ranks 0, 1, .., R - 1 and issues the loads (atomics) back to
// back without waiting for each, so all R are in flight on all links at once; the replay runs a
// workgroup's ops one after another. In Iris's order every workgroup of every rank, all in the
// same phase of their tiles, would hit rank 0 first, then rank 1, ..: one link busy at a time
// instead of all. So the workgroup reducing tile t on rank r visits the ranks from
// (r + t) mod R on: at any moment a rank's workgroups spread over every source, as issuing the
// accesses together spreads them.
//
// Registers: the tile loop's r0..r3 (gemm_tiling.h); the body uses r4..r7 and loop depths 1..3.
#include <cstdint>

#include "models/compute/compute_timing.h"
#include "workloads/patterns/gemm_tiling.h"
#include "workloads/patterns/tile_addressing.h"
#include "workloads/trace/builder.h"

namespace tessera::workloads::patterns {

struct PartialTileSpec {
  models::compute::Dtype dtype = models::compute::Dtype::kFp16;
  std::uint32_t ranks = 1;
  SlabLayout a;  // this rank's m x k_s shard of A: one slab
  std::uint32_t a_buffer = trace::kNoBuffer;
  BLayout b;  // this rank's k_s x n shard of B
  std::uint32_t b_buffer = trace::kNoBuffer;
  CLayout c;
  std::uint32_t c_buffer = trace::kNoBuffer;          // the result, on every rank
  std::uint32_t c_partial_buffer = trace::kNoBuffer;  // one-shot: this rank's partial C
  std::uint64_t flag_base = 0;                        // one-shot: flag (source, tile) = base + source * tiles + tile
};

// The K-loop of the current tile (as append_output_tile's, one slab): the prefetched K-loop of
// gemm_tiling.h (each step's A and B blocks, 2 * block_m * block_n * block_k FLOPs per step).
// Uses r4, r5, r7 and depths 1..2.
void append_partial_k_loop(trace::ProgramBuilder& p, const GemmTiling& tiling, const PartialTileSpec& spec);

// One-shot: after the K-loop, the partial tile is published and the tile reduced (above).
void append_one_shot_tile(trace::ProgramBuilder& p, const GemmTiling& tiling, const PartialTileSpec& spec);

// Atomics: after the K-loop, one ranged atomic add of the tile into every rank's C.
void append_atomics_tile(trace::ProgramBuilder& p, const GemmTiling& tiling, const PartialTileSpec& spec);

}  // namespace tessera::workloads::patterns

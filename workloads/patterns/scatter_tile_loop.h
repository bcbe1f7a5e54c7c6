#pragma once
// The persistent tile loop of gemm_tiling.h (`for tile in range(pid, tiles, NUM_WGS)` in
// Triton's grouped order) at any loop depth and for a pid given as an expression.
//
// Why gemm_tiling's append_tile_loop is not enough: a workgroup-specialised kernel
// (gemm_all_scatter's wg_specialized) runs two different tile loops in one program, one for the GEMM workgroups (pid < GEMM_WGS)
// and one for the communication workgroups (pid - GEMM_WGS over COMM_WGS). A trace program has
// no branches, so each loop sits inside a "role" loop that runs once or not at all for the
// workgroup; the tile loop then lives one level deeper than append_tile_loop puts it.
//
// Registers as in gemm_tiling.h: r1 tile, r2 pid_m, r3 pid_n are set for the body; r4, r5 are
// scratch of the loop (the body may clobber r4..r7). The tiles visited, and their order, are
// those of append_tile_loop for the same pid.
#include <cstdint>

#include "workloads/patterns/gemm_tiling.h"
#include "workloads/trace/builder.h"

namespace tessera::workloads::patterns {

// Appends the tile loop of a grid of `num_wgs` workgroups whose id in that grid is `pid` (at most
// one variable term, e.g. r0 - GEMM_WGS), with the loop counter at `depth`; the body may use
// depths depth + 1 .. 3. Throws std::invalid_argument for a pid of more than one term or a
// depth beyond the trace's loop nesting.
void append_tile_loop_at(trace::ProgramBuilder& program, const GemmTiling& tiling, std::uint64_t num_wgs,
                         const trace::Expr& pid, int depth, const TileBody& body);

}  // namespace tessera::workloads::patterns

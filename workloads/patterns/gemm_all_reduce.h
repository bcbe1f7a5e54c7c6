#pragma once
// GEMM + all-reduce (kind `gemm_all_reduce`; one-shot and atomics, as the Iris examples 08 and
// 09): K is sharded over the ranks. Rank r owns A's columns and B's rows
// [r * k_s, (r + 1) * k_s), k_s = k / ranks (A_shard: m x k_s, B_shard: k_s x n), computes the
// partial product over its slice, and the partials are summed so that every rank holds the
// whole C = A·B (m x n). Three ways (the Iris examples 08 and 09, and the BSP baseline):
//
//  * bsp: the GEMM kernel writes the partial into C_partial; then an all-reduce collective
//    kernel (all_reduce.h: `collective: ring` as RCCL, or `one_shot`; or `nccl` / `rccl`, the
//    library's own, bsp_collective.h) sums the C_partials of all ranks into C; one stream, so
//    stream order is the barrier between them; with host: pytorch, the framework's host time
//    before each launch.
//  * one_shot (examples/09_gemm_one_shot_all_reduce): one persistent kernel; after computing a
//    tile the workgroup stores it into C_partial and releases a flag on every peer, waits for
//    every peer's flag of that tile, loads the tile of C_partial from every rank (remote loads),
//    adds and stores the sum into C (gemm_all_reduce_tile.h).
//  * atomics (examples/08_gemm_atomics_all_reduce): one persistent kernel; each tile is added
//    atomically into every rank's C (one ranged atomic add per rank: trace op
//    atomic_add_range, performed at the owner's memory side). C starts at zero.
//
// Every variant starts with a host rank barrier (the benchmarks barrier the ranks before each
// iteration; flags start at 0, C at 0 for atomics) and ends with a host sync. In bsp a rank's
// kernels end when it holds all of C (the collective's last waits); in one_shot when it has
// reduced every tile; in atomics a rank's C is complete when every rank's kernel has ended (the
// Iris benchmark's closing barrier), i.e. at the makespan.
//
// Coarsening (k_steps_per_op, default 1: the exact K-loop), as gemm_all_scatter's: the trace's
// K-loop step is g block_k steps, g the largest divisor of (k / ranks) / block_k up to
// k_steps_per_op: one op loads g A blocks (block_m x g block_k, contiguous in panels), one g B
// blocks, one compute op issues their FLOPs. Kept: bytes, FLOPs, footprints, which tiles share
// which blocks, every flag, every byte of the reduction. Changed: the double-buffered K-loop
// prefetches g blocks at once, so a load's latency is paid once per g blocks (gemm_all_scatter.h
// says how far that moves a calibrated prediction): a speed setting, not a fidelity one. The
// fine trace at 8192 x 4608 x 36864 on 8 ranks is ~2 M ops and ~6 M events.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/system/system_spec.h"
#include "sim/config/schema.h"
#include "workloads/patterns/all_reduce.h"
#include "workloads/patterns/bsp_collective.h"
#include "workloads/patterns/gemm_params.h"
#include "workloads/patterns/gemm_tiling.h"
#include "workloads/patterns/param_problem.h"
#include "workloads/trace/trace.h"

namespace tessera::workloads::patterns {

enum class GemmAllReduceVariant : std::uint8_t { kBsp, kOneShot, kAtomics };
const std::vector<std::pair<std::string, GemmAllReduceVariant>>& gemm_all_reduce_variant_choices();

struct GemmAllReduceParams {
  GemmShapeParams gemm{
      // The Iris benchmarks of both fused examples (examples/08_gemm_atomics_all_reduce/benchmark.py
      // and examples/09_gemm_one_shot_all_reduce/benchmark.py): -m 8192 -n 4608 -k 36864, fp16.
      .m = 8192,
      .n = 4608,
      .k = 36864,
      .dtype = models::compute::Dtype::kFp16,
      // examples/08's benchmark defaults (--BLK_M 256 --BLK_N 128 --BLK_K 64 --gsize_m 6).
      .block_m = 256,
      .block_n = 128,
      .block_k = 64,
      .group_m = 6,
      // Both examples' matmul wrappers pass NUM_XCDS = the GPU's XCD count, so the kernels remap.
      .xcd_remap = XcdRemap::kChipletSwizzle,
  };
  std::uint32_t ranks = 0;       // 0: every GPU of the system
  std::uint32_t workgroups = 0;  // persistent GEMM grid; 0: one per CU (the benchmarks pass --gemm_sms 288)
  std::uint32_t k_steps_per_op = 1;  // trace coarsening, see above; 1: one op per block_k step (exact)
  GemmAllReduceVariant variant = GemmAllReduceVariant::kBsp;
  TileAddressing addressing = TileAddressing::kPanels;
  // bsp only.
  BspCollective collective = BspCollective::kRing;      // bsp_collective.h
  std::uint32_t collective_workgroups = 16;             // Tessera's kernels: channels (a library picks its own)
  std::uint64_t collective_chunk_bytes = 512ULL << 10;  // NCCL Simple: a 4 MiB buffer in 8 steps
  BspHost host = BspHost::kNone;
};

// The `workload:` keys of kind `gemm_all_reduce` (besides `kind`).
const sim::config::Schema<GemmAllReduceParams>& gemm_all_reduce_schema();

std::uint32_t ranks_of(const GemmAllReduceParams& params, const models::SystemSpec& system);
// The tiling of one rank's GEMM: m x n x k / ranks, in the kernel's block_k steps.
GemmTiling tiling_of(const GemmAllReduceParams& params, std::uint32_t ranks);
// The K-steps one trace op covers: the largest divisor of k / ranks / block_k up to k_steps_per_op.
std::uint32_t k_steps_per_op_of(const GemmAllReduceParams& params, std::uint32_t ranks);
// The tiling the trace runs: tiling_of with block_k x k_steps_per_op_of as its step.
GemmTiling trace_tiling_of(const GemmAllReduceParams& params, std::uint32_t ranks);
std::optional<ParamProblem> check_against_system(const GemmAllReduceParams& params, const models::SystemSpec& system);

// The trace; throws std::invalid_argument naming the key of an impossible parameter.
trace::Trace make_gemm_all_reduce(const GemmAllReduceParams& params, const models::SystemSpec& system);

}  // namespace tessera::workloads::patterns

#pragma once
// GEMM + All-Scatter (kind `gemm_all_scatter`; Iris examples 07, 10, 11, 12 and their
// benchmarks): C = A·B with A (m x k) on every rank and B (k x n) sharded by columns. `n` is the
// GLOBAL N, as in the Iris benchmark: rank r owns columns [r * n / ranks, (r + 1) * n / ranks) of
// B and computes those m x (n / ranks) columns of C with a persistent GEMM; the all-scatter gives
// every rank the whole m x n C. Four ways (docs/workloads.md):
//
//  * bsp: the GEMM kernel stores the rank's C tiles into its slot of C; then an all-gather
//    collective kernel (all_gather.h, in place: RCCL's ring by default; or the library's own,
//    bsp_collective.h) distributes the slots; both on stream 0, so stream order is the barrier;
//    with host: pytorch, the framework's host time before each launch.
//  * producer_consumer: two kernels on two streams at once, on a partition of each die's CUs
//    (the first gemm_wgs / dies CUs for the GEMM, the next comm_wgs / dies for the all-scatter):
//    the GEMM stores each tile locally and releases a per-tile lock; the all-scatter kernel's
//    persistent workgroups wait on each lock, load the tile and store it into every peer's C.
//  * fused_sequential: one persistent kernel; after its K-loop a workgroup stores the tile into
//    every rank's C straight from registers (ranks 0, 1, .. in turn, itself included), with no
//    local re-read; the last wave pays the stores after its compute (the tail).
//  * wg_specialized: one persistent kernel of gemm_wgs + comm_wgs workgroups; pid < gemm_wgs run
//    the GEMM and release per-tile locks; the others spin on the locks and push the finished
//    tiles to the peers, then signal every peer and wait for every peer's same workgroup (as
//    Iris's kernel ends), so the kernel ends when the rank holds all of C.
//
// Every variant starts with a host rank barrier and ends with a host sync. In bsp and
// wg_specialized a rank's kernels end only when it holds all of C (the ring's last waits, the
// done flags); in producer_consumer and fused_sequential a rank's C is complete when every
// rank's kernels have ended (the Iris benchmarks' closing barrier), i.e. at the makespan.
//
// Workgroup counts (0 = the default):
//  * gemm_wgs: bsp, fused_sequential: every CU (304 on MI300X); producer_consumer,
//    wg_specialized: the CUs minus comm_wgs (256 of 304 on MI300X, 128 of 132 on H100/H200).
//  * comm_wgs: producer_consumer, wg_specialized: the CUs left over by the largest power of two
//    that fits (Iris's default: 304 - 256 = 48 on MI300X, 132 - 128 = 4 on H100/H200), or an
//    eighth of the CUs when their number is a power of two. bsp: the all-gather's channels, 16
//    by default (as ag_gemm's collective; a placeholder until calibrated against RCCL).
//    Unused by fused_sequential.
//
// Addressing: panels (tile_addressing.h), one op per tile block; C as compact per-rank slots,
// every tile one contiguous range (scatter_programs.h).
//
// Coarsening (k_steps_per_op, default 1: the exact K-loop): the trace's K-loop step is g block_k
// steps: one op loads g consecutive A blocks (block_m x g * block_k) and g B blocks, and one
// compute op issues their 2 * block_m * block_n * g * block_k FLOPs. g is the largest divisor of
// k / block_k that is at most k_steps_per_op, so any k works. What it keeps: bytes moved, FLOPs,
// footprints, which tiles share which A and B blocks, remote vs local traffic, every flag and
// store of C. What it changes: the double-buffered K-loop prefetches g blocks at once, so a
// workgroup pays a load's latency once per g blocks: with a loaded L2 latency (the calibrated
// systems) the coarsened step is far shorter than g real steps (g = 4: 3.3x fast on the H200's
// measured case, docs/validation.md), so it is a speed setting for what-if sweeps, not a
// fidelity one. Replay cost at 8192 x 4608 x 36864 on 8 ranks: g = 1 about 9 M events, ~8 s
// on the development machine; g = 4 1.6 M events, ~1.2 s.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/system/system_spec.h"
#include "sim/config/schema.h"
#include "workloads/patterns/all_gather.h"
#include "workloads/patterns/bsp_collective.h"
#include "workloads/patterns/gemm_params.h"
#include "workloads/patterns/gemm_tiling.h"
#include "workloads/patterns/param_problem.h"
#include "workloads/trace/trace.h"

namespace tessera::workloads::patterns {

enum class GemmAllScatterVariant : std::uint8_t { kBsp, kProducerConsumer, kFusedSequential, kWgSpecialized };
const std::vector<std::pair<std::string, GemmAllScatterVariant>>& gemm_all_scatter_variant_choices();

struct GemmAllScatterParams {
  GemmShapeParams gemm{
      .m = 8192,  // the public benchmarks: 8192 x 4608 x 36864 (fp16)
      .n = 4608,  // global N: each rank computes n / ranks columns
      .k = 36864,
      .dtype = models::compute::Dtype::kFp16,
      .block_m = 256,  // the Iris benchmark's BLK_M, BLK_N, BLK_K
      .block_n = 64,
      .block_k = 64,
      .group_m = 6,  // --gsize_m
      // The Iris all-scatter kernels remap with NUM_XCDS = the GPU's XCDs.
      .xcd_remap = XcdRemap::kChipletSwizzle,
  };
  std::uint32_t ranks = 0;     // 0: every GPU of the system
  std::uint32_t gemm_wgs = 0;  // 0: see the header comment
  std::uint32_t comm_wgs = 0;  // 0: see the header comment
  std::uint32_t k_steps_per_op = 1;  // trace coarsening, see above; 1: one op per block_k step (exact)
  GemmAllScatterVariant variant = GemmAllScatterVariant::kBsp;
  // bsp only.
  BspCollective collective = BspCollective::kRing;  // bsp_collective.h
  std::uint64_t collective_chunk_bytes = 512ULL << 10;
  BspHost host = BspHost::kNone;
};

// The `workload:` keys of kind `gemm_all_scatter` (besides `kind`).
const sim::config::Schema<GemmAllScatterParams>& gemm_all_scatter_schema();

std::uint32_t ranks_of(const GemmAllScatterParams& params, const models::SystemSpec& system);
// One rank's GEMM: m x (n / ranks) x k, in the kernel's block_k steps.
GemmTiling local_tiling_of(const GemmAllScatterParams& params, std::uint32_t ranks);
// The K-steps one trace op covers: the largest divisor of k / block_k up to k_steps_per_op.
std::uint32_t k_steps_per_op_of(const GemmAllScatterParams& params);
// The tiling the trace runs: local_tiling_of with block_k x k_steps_per_op_of as its step.
GemmTiling trace_tiling_of(const GemmAllScatterParams& params, std::uint32_t ranks);

// The workgroup counts after the defaults (comm is 0 for fused_sequential).
struct ScatterWorkgroups {
  std::uint64_t gemm = 0;
  std::uint64_t comm = 0;
};
ScatterWorkgroups workgroups_of(const GemmAllScatterParams& params, const models::SystemSpec& system);

std::optional<ParamProblem> check_against_system(const GemmAllScatterParams& params,
                                                 const models::SystemSpec& system);

// The trace; throws std::invalid_argument naming the key of an impossible parameter.
trace::Trace make_gemm_all_scatter(const GemmAllScatterParams& params, const models::SystemSpec& system);

}  // namespace tessera::workloads::patterns

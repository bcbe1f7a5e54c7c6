#pragma once
// The GEMM workload (kind `gemm`): C = A·B on one GPU, as the persistent Triton GEMM of the Iris
// examples runs it (persistent loop, grouped order, optional XCD remap).
//
// Trace: one rank; buffers A (m x k), B (k x n), C (m x n), row-major (tile_addressing.h says
// how blocks are addressed); one kernel "gemm" whose workgroups each run the tile loop, a K-loop
// per tile (load A block, load B block, compute; the next step's loads issued before the compute)
// and one C store per tile.
#include <cstdint>
#include <optional>

#include "models/system/system_spec.h"
#include "sim/config/schema.h"
#include "workloads/patterns/gemm_params.h"
#include "workloads/patterns/gemm_tiling.h"
#include "workloads/patterns/param_problem.h"
#include "workloads/trace/trace.h"

namespace tessera::workloads::patterns {

struct GemmParams {
  GemmShapeParams gemm{
      // The first GEMM + All-Scatter shape of the public benchmarks (8192 x 4608 x 36864, fp16).
      .m = 8192,
      .n = 4608,
      .k = 36864,
      .dtype = models::compute::Dtype::kFp16,
      .block_m = 256,
      .block_n = 256,
      .block_k = 64,
      .group_m = 6,  // the Iris examples' --gsize_m default
      .xcd_remap = XcdRemap::kNone,
  };
  std::uint32_t workgroups = 0;  // persistent grid; 0: one per CU of the GPU
  // chiplet_swizzle's family (gemm_tiling.h, SwizzleFamily): the die count it assumes (0: the
  // GPU's) and the runs of consecutive workgroups it keeps together (1: the plain swizzle).
  std::uint32_t remap_dies = 0;
  std::uint32_t remap_chunk = 1;
  bool persistent = true;        // false: one workgroup per tile
  TileAddressing addressing = TileAddressing::kPanels;
};

// The `workload:` keys of kind `gemm` (besides `kind`).
const sim::config::Schema<GemmParams>& gemm_schema();

GemmTiling tiling_of(const GemmParams& params);
// The swizzle family member the remap uses on this system (remap_dies 0: the GPU's dies).
SwizzleFamily swizzle_of(const GemmParams& params, const models::SystemSpec& system);
// The grid: `workgroups` (or all CUs) when persistent, else one workgroup per tile.
std::uint64_t gemm_grid(const GemmParams& params, const models::SystemSpec& system);
// What the system makes impossible (the swizzle of a grid that is not a multiple of the dies).
std::optional<ParamProblem> check_against_system(const GemmParams& params, const models::SystemSpec& system);

// The trace; throws std::invalid_argument naming the key of an impossible parameter.
trace::Trace make_gemm(const GemmParams& params, const models::SystemSpec& system);

}  // namespace tessera::workloads::patterns

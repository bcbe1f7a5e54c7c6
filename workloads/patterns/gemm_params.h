#pragma once
// The GEMM every GEMM-family workload kind runs (gemm, ag_gemm, gemm_all_scatter,
// gemm_all_reduce): its shape, element type, tiling, tile order and workgroup remap, as one block
// of parameters each kind's Params embeds with the defaults of the benchmark it reproduces.
//
// The block's keys sit flat in the kind's `workload:` map (`{kind: ag_gemm, m: 64, block_n: 64}`):
// each kind's schema embeds gemm_shape_schema() (Schema::embed). They are declared here once, so
// that the four kinds keep the same keys, ranges and checks; what a key means for the kind (a
// global or a per-rank N, a K sharded over the ranks) is the kind's doc.
#include <cstdint>
#include <optional>
#include <string>

#include "models/compute/compute_timing.h"
#include "sim/config/schema.h"
#include "workloads/patterns/gemm_tiling.h"
#include "workloads/patterns/param_problem.h"

namespace tessera::workloads::patterns {

// Each kind sets every field (its benchmark's values, with their source); the defaults here are
// GemmTiling's and no remap, and the shape is unset.
struct GemmShapeParams {
  std::uint64_t m = 0;
  std::uint64_t n = 0;
  std::uint64_t k = 0;
  models::compute::Dtype dtype = models::compute::Dtype::kFp16;
  std::uint32_t block_m = 256;
  std::uint32_t block_n = 256;
  std::uint32_t block_k = 64;
  std::uint32_t group_m = 6;
  XcdRemap xcd_remap = XcdRemap::kNone;
};

// The docs of the keys whose meaning depends on the kind: how N and K relate to the ranks, and
// which kernel's workgroups the remap renumbers. The defaults are the single-GPU GEMM's.
struct GemmShapeDocs {
  std::string n = "columns of B and C";
  std::string k = "columns of A, rows of B; a multiple of block_k";
  std::string xcd_remap = "workgroup id remap: chiplet_swizzle puts consecutive tiles on one die";
};

// The block's keys, in the order every kind lists them (m, n, k, dtype, block_m, block_n,
// block_k, group_m, xcd_remap), and the check that the tiling is possible. The kinds list
// xcd_remap after their own workgroup keys: they embed without({kXcdRemapKey}) and, later,
// only({kXcdRemapKey}).
inline constexpr const char* kXcdRemapKey = "xcd_remap";
sim::config::Schema<GemmShapeParams> gemm_shape_schema(const GemmShapeDocs& docs = {});

// The whole GEMM's tiling: m x n x k in block_k steps (a kind that shards N or K adjusts it).
GemmTiling tiling_of(const GemmShapeParams& gemm);

// K sharded over the ranks (ag_gemm, gemm_all_reduce): each rank walks k / ranks columns in
// block_k steps, so k must be a multiple of ranks x block_k. For positive ranks and block_k (after
// ranks_problem and tiling_problem).
std::optional<ParamProblem> k_shard_problem(const GemmShapeParams& gemm, std::uint32_t ranks);

}  // namespace tessera::workloads::patterns

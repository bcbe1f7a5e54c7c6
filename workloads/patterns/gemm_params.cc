#include "workloads/patterns/gemm_params.h"

#include <fmt/format.h>

namespace tessera::workloads::patterns {

namespace {

constexpr double kMaxDim = 1 << 24;

}  // namespace

sim::config::Schema<GemmShapeParams> gemm_shape_schema(const GemmShapeDocs& docs) {
  using P = GemmShapeParams;
  return sim::config::Schema<P>("gemm_shape", "the shape, tiling and workgroup remap of a GEMM")
      .count("m", &P::m, "rows of A and C").range(1, kMaxDim)
      .count("n", &P::n, docs.n).range(1, kMaxDim)
      .count("k", &P::k, docs.k).range(1, kMaxDim)
      .choice("dtype", &P::dtype, dtype_choices(), "element type of A, B and C")
      .count("block_m", &P::block_m, "tile rows").range(1, 4096)
      .count("block_n", &P::block_n, "tile columns").range(1, 4096)
      .count("block_k", &P::block_k, "K-loop step").range(1, 4096)
      .count("group_m", &P::group_m, "row-blocks per group of the tile order (GROUP_SIZE_M)").range(1, 1 << 16)
      .choice(kXcdRemapKey, &P::xcd_remap, xcd_remap_choices(), docs.xcd_remap)
      .check([](const P& gemm) -> std::optional<std::string> {
        if (auto problem = tiling_problem(tiling_of(gemm))) return problem->key + ": " + problem->message;
        return std::nullopt;
      });
}

GemmTiling tiling_of(const GemmShapeParams& g) {
  return GemmTiling{g.m, g.n, g.k, g.block_m, g.block_n, g.block_k, g.group_m, element_bytes(g.dtype)};
}

std::optional<ParamProblem> k_shard_problem(const GemmShapeParams& g, std::uint32_t ranks) {
  const std::uint64_t step = std::uint64_t{ranks} * g.block_k;
  if (g.k % step == 0) return std::nullopt;
  return ParamProblem{"k", fmt::format("k ({}) must be a multiple of ranks x block_k ({} x {} = {}): each rank owns "
                                       "k / ranks columns of A, walked in block_k steps",
                                       g.k, ranks, g.block_k, step)};
}

}  // namespace tessera::workloads::patterns

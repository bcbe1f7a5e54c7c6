#include "workloads/patterns/gemm.h"

namespace tessera::workloads::patterns {

const sim::config::Schema<GemmParams>& gemm_schema() {
  using S = sim::config::Schema<GemmParams>;
  static const sim::config::Schema<GemmShapeParams> gemm = gemm_shape_schema();
  static const S s =
      S("gemm", "C = A·B on one GPU: a persistent tiled GEMM")
          .embed(&GemmParams::gemm, gemm.without({kXcdRemapKey}))
          .count("workgroups", &GemmParams::workgroups, "persistent grid; 0: one per CU").range(0, 1 << 20)
          .embed(&GemmParams::gemm, gemm.only({kXcdRemapKey}))
          .count("remap_dies", &GemmParams::remap_dies,
                 "chiplet_swizzle: the dies it groups workgroups by (0: the GPU's); another count is a swizzle "
                 "tuned for another GPU").range(0, 1024)
          .count("remap_chunk", &GemmParams::remap_chunk,
                 "chiplet_swizzle: runs of consecutive workgroups kept together (1: pid % D, the plain swizzle)")
          .range(1, 1 << 16)
          .boolean("persistent", &GemmParams::persistent,
                   "a persistent grid looping over tiles; false: one workgroup per tile")
          .choice("addressing", &GemmParams::addressing, tile_addressing_choices(),
                  "panels: one op per tile block; rows: one op per block row (exact row-major, ~100x the ops)");
  return s;
}

GemmTiling tiling_of(const GemmParams& p) {
  return tiling_of(p.gemm);
}

SwizzleFamily swizzle_of(const GemmParams& p, const models::SystemSpec& system) {
  return {p.remap_dies != 0 ? p.remap_dies : system.gpu.compute.num_dies, p.remap_chunk};
}

std::uint64_t gemm_grid(const GemmParams& p, const models::SystemSpec& system) {
  if (!p.persistent) return tiling_of(p).tiles();
  return p.workgroups != 0 ? p.workgroups : models::total_compute_units(system.gpu);
}

std::optional<ParamProblem> check_against_system(const GemmParams& p, const models::SystemSpec& system) {
  if (auto problem = tiling_problem(tiling_of(p))) return problem;
  const std::uint64_t grid = gemm_grid(p, system);
  if (grid == 0) return ParamProblem{"workgroups", "the system has no compute units"};
  if (auto problem = remap_problem(grid, swizzle_of(p, system), p.gemm.xcd_remap)) {
    return ParamProblem{p.persistent ? "workgroups" : "xcd_remap", *problem};
  }
  return std::nullopt;
}

trace::Trace make_gemm(const GemmParams& p, const models::SystemSpec& system) {
  throw_if_problem("gemm", check_against_system(p, system));
  const GemmTiling t = tiling_of(p);
  const std::uint64_t grid = gemm_grid(p, system);

  OutputTileSpec spec;
  spec.dtype = p.gemm.dtype;
  spec.a = SlabLayout{t.m, t.k, 1, t.block_m, t.block_k, t.elem_bytes, p.addressing, SlabPlacement::kOneMatrix};
  spec.b = BLayout{t.k, t.n, t.block_k, t.block_n, t.elem_bytes, p.addressing};
  spec.c = CLayout{t.m, t.n, t.block_m, t.block_n, t.elem_bytes, p.addressing};

  trace::TraceBuilder tb(1);
  spec.a_buffer = tb.buffer("A", spec.a.buffer_bytes());
  spec.b_buffer = tb.buffer("B", spec.b.buffer_bytes());
  spec.c_buffer = tb.buffer("C", spec.c.buffer_bytes());
  const std::uint32_t program = tb.program(output_tile_program("gemm", t, grid, spec));
  trace::Kernel kernel;
  kernel.name = "gemm";
  kernel.grid = grid;
  kernel.program = program;
  kernel.args = {remap_expr(grid, swizzle_of(p, system), p.gemm.xcd_remap)};
  tb.launch(std::move(kernel));
  tb.sync(0);
  return std::move(tb).build();
}

}  // namespace tessera::workloads::patterns

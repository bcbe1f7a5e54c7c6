#include "workloads/patterns/gemm_all_reduce.h"

#include <algorithm>

#include <fmt/format.h>

#include "workloads/patterns/gemm_all_reduce_tile.h"

namespace tessera::workloads::patterns {

namespace {

// The pieces every variant shares.
struct Plan {
  std::uint32_t ranks = 1;
  GemmTiling tiling;  // one rank's GEMM: m x n x k_s
  std::uint64_t grid = 1;
  SlabLayout a;  // A_shard: m x k_s
  BLayout b;     // B_shard: k_s x n
  CLayout c;
};

std::uint64_t grid_of(const GemmAllReduceParams& p, const models::SystemSpec& system) {
  return p.workgroups != 0 ? p.workgroups : models::total_compute_units(system.gpu);
}

Plan plan_of(const GemmAllReduceParams& p, const models::SystemSpec& system) {
  Plan plan;
  plan.ranks = ranks_of(p, system);
  plan.tiling = trace_tiling_of(p, plan.ranks);
  plan.grid = grid_of(p, system);
  const GemmTiling& t = plan.tiling;
  plan.a = SlabLayout{t.m, t.k, 1, t.block_m, t.block_k, t.elem_bytes, p.addressing, SlabPlacement::kOneMatrix};
  plan.b = BLayout{t.k, t.n, t.block_k, t.block_n, t.elem_bytes, p.addressing};
  plan.c = CLayout{t.m, t.n, t.block_m, t.block_n, t.elem_bytes, p.addressing};
  return plan;
}

// The BSP all-reduce of C_partial into C (buffers set by the caller).
AllReduceSpec collective_of(const GemmAllReduceParams& p, const Plan& plan) {
  AllReduceSpec ar;
  ar.algorithm = tessera_all_reduce(p.collective);
  ar.dtype = p.gemm.dtype;
  ar.bytes = plan.c.buffer_bytes();
  ar.channels = p.collective_workgroups;
  ar.chunk_bytes = p.collective_chunk_bytes;
  return ar;
}


}  // namespace

const std::vector<std::pair<std::string, GemmAllReduceVariant>>& gemm_all_reduce_variant_choices() {
  static const std::vector<std::pair<std::string, GemmAllReduceVariant>> names{
      {"bsp", GemmAllReduceVariant::kBsp},
      {"one_shot", GemmAllReduceVariant::kOneShot},
      {"atomics", GemmAllReduceVariant::kAtomics}};
  return names;
}

const sim::config::Schema<GemmAllReduceParams>& gemm_all_reduce_schema() {
  using S = sim::config::Schema<GemmAllReduceParams>;
  using P = GemmAllReduceParams;
  static const sim::config::Schema<GemmShapeParams> gemm = gemm_shape_schema({
      .k = "columns of A and rows of B (all ranks together); a multiple of ranks x block_k",
      .xcd_remap = "GEMM workgroup id remap: chiplet_swizzle puts consecutive tiles on one die",
  });
  static const S s =
      S("gemm_all_reduce", "GEMM + all-reduce: K sharded over the ranks, partial products summed so that every rank "
                           "holds C (Iris examples, arXiv 2511.12500)")
          .embed(&P::gemm, gemm.without({kXcdRemapKey}))
          .count("ranks", &P::ranks, "GPUs taking part; 0: all GPUs of the system").range(0, 1 << 16)
          .count("workgroups", &P::workgroups, "persistent GEMM grid; 0: one per CU").range(0, 1 << 20)
          .count("k_steps_per_op", &P::k_steps_per_op,
                 "trace coarsening: block_k steps per K-loop op (the largest divisor of the steps up to this); "
                 "1: exact")
          .range(1, 1 << 16)
          .embed(&P::gemm, gemm.only({kXcdRemapKey}))
          .choice("variant", &P::variant, gemm_all_reduce_variant_choices(),
                  "bsp: GEMM kernel, then an all-reduce kernel; one_shot: per tile, publish the partial with a "
                  "flag and reduce it from every rank's partial; atomics: per tile, an atomic add into every "
                  "rank's C")
          .choice("addressing", &P::addressing, tile_addressing_choices(),
                  "panels: one op per tile block; rows: one op per block row (exact row-major, ~100x the ops)")
          .choice("collective", &P::collective, bsp_collective_choices(),
                  "bsp: the all-reduce: Tessera's ring (reduce-scatter + all-gather rings) or one_shot (every rank "
                  "reads every peer's partial) kernel, or NCCL's or RCCL's own choice")
          .count("collective_workgroups", &P::collective_workgroups, "bsp: all-reduce channels of Tessera's kernels")
          .range(1, 1 << 16)
          .bytes("collective_chunk", &P::collective_chunk_bytes,
                 "bsp: the largest piece an all-reduce channel of Tessera's kernels moves at once")
          .range(128, 1ULL << 40)
          .choice("host", &P::host, bsp_host_choices(),
                  "bsp: none, kernels back to back; pytorch, the system's host.framework_op / "
                  "framework_collective before each launch, one process per GPU");
  return s;
}

std::uint32_t ranks_of(const GemmAllReduceParams& p, const models::SystemSpec& system) {
  return p.ranks != 0 ? p.ranks : system.num_gpus;
}

GemmTiling tiling_of(const GemmAllReduceParams& p, std::uint32_t ranks) {
  GemmTiling t = tiling_of(p.gemm);
  t.k = p.gemm.k / ranks;
  return t;
}

std::uint32_t k_steps_per_op_of(const GemmAllReduceParams& p, std::uint32_t ranks) {
  const std::uint64_t steps = p.gemm.k / ranks / p.gemm.block_k;
  std::uint32_t g = std::max<std::uint32_t>(1, p.k_steps_per_op);
  while (g > 1 && steps % g != 0) --g;
  return g;
}

GemmTiling trace_tiling_of(const GemmAllReduceParams& p, std::uint32_t ranks) {
  GemmTiling t = tiling_of(p, ranks);
  t.block_k = p.gemm.block_k * k_steps_per_op_of(p, ranks);
  return t;
}

std::optional<ParamProblem> check_against_system(const GemmAllReduceParams& p, const models::SystemSpec& system) {
  const std::uint32_t ranks = ranks_of(p, system);
  if (auto problem = ranks_problem(ranks, system)) return problem;
  if (auto problem = tiling_problem(tiling_of(p.gemm))) return problem;
  if (auto problem = k_shard_problem(p.gemm, ranks)) return problem;
  const std::uint64_t grid = grid_of(p, system);
  if (grid == 0) return ParamProblem{"workgroups", "the system has no compute units"};
  if (auto problem = remap_problem(grid, system.gpu.compute.num_dies, p.gemm.xcd_remap)) {
    return ParamProblem{"workgroups", *problem};
  }
  if (p.variant == GemmAllReduceVariant::kBsp) {
    if (p.addressing == TileAddressing::kPanels && p.gemm.n % p.gemm.block_n != 0) {
      return ParamProblem{"n", fmt::format("bsp reduces C as one tensor of m x n elements, but with panels "
                                           "addressing a partial last column panel (n = {}, block_n = {}) leaves "
                                           "gaps in C's buffer (tile_addressing.h); use addressing: rows",
                                           p.gemm.n, p.gemm.block_n)};
    }
    if (auto problem = host_problem(p.host, system)) return problem;
    const Plan plan = plan_of(p, system);
    if (runs_library(p.collective)) return std::nullopt;
    if (auto problem = all_reduce_problem(collective_of(p, plan), ranks)) {
      return ParamProblem{"collective", fmt::format("C (m x n = {} x {}): {}; use collective: one_shot", p.gemm.m,
                                                    p.gemm.n, *problem)};
    }
  }
  return std::nullopt;
}

trace::Trace make_gemm_all_reduce(const GemmAllReduceParams& p, const models::SystemSpec& system) {
  throw_if_problem("gemm_all_reduce", check_against_system(p, system));
  const Plan plan = plan_of(p, system);
  const GemmTiling& t = plan.tiling;

  trace::TraceBuilder tb(plan.ranks);
  const std::uint32_t a_buffer = tb.buffer("A_shard", plan.a.buffer_bytes());
  const std::uint32_t b_buffer = tb.buffer("B_shard", plan.b.buffer_bytes());
  const std::uint32_t c_buffer = tb.buffer("C", plan.c.buffer_bytes());
  const std::uint32_t c_partial_buffer =
      p.variant == GemmAllReduceVariant::kAtomics ? trace::kNoBuffer : tb.buffer("C_partial", plan.c.buffer_bytes());
  tb.rank_barrier();

  if (p.variant == GemmAllReduceVariant::kBsp) {
    OutputTileSpec gemm;
    gemm.dtype = p.gemm.dtype;
    gemm.a = plan.a;
    gemm.a_buffer = a_buffer;
    gemm.b = plan.b;
    gemm.b_buffer = b_buffer;
    gemm.c = plan.c;
    gemm.c_buffer = c_partial_buffer;
    append_framework_op(tb, plan.ranks, system, p.host);
    launch_gemm_on_every_rank(tb, "gemm", plan.ranks, plan.grid, tb.program(output_tile_program("gemm", t, plan.grid, gemm)),
                              system.gpu.compute.num_dies, p.gemm.xcd_remap);
    append_framework_collective(tb, plan.ranks, system, p.host);
    if (runs_library(p.collective)) {
      LibraryCollectiveSpec ar;
      ar.name = "all_reduce";
      ar.op = CollectiveOp::kAllReduce;
      ar.library = p.collective;
      ar.dtype = p.gemm.dtype;
      ar.size_bytes = plan.c.buffer_bytes();
      ar.input_buffer = c_partial_buffer;
      ar.output_buffer = c_buffer;
      append_library_collective(tb, plan.ranks, system, ar);
    } else {
      AllReduceSpec ar = collective_of(p, plan);
      ar.input_buffer = c_partial_buffer;
      ar.output_buffer = c_buffer;
      if (const std::uint64_t scratch = all_reduce_scratch_bytes(ar); scratch > 0) {
        ar.scratch_buffer = tb.buffer("C_scratch", scratch);
      }
      append_all_reduce(tb, plan.ranks, ar);
    }
  } else {
    PartialTileSpec tile;
    tile.dtype = p.gemm.dtype;
    tile.ranks = plan.ranks;
    tile.a = plan.a;
    tile.a_buffer = a_buffer;
    tile.b = plan.b;
    tile.b_buffer = b_buffer;
    tile.c = plan.c;
    tile.c_buffer = c_buffer;
    tile.c_partial_buffer = c_partial_buffer;
    trace::ProgramBuilder program("gemm_all_reduce");
    append_tile_loop(program, t, plan.grid, [&](trace::ProgramBuilder& body) {
      if (p.variant == GemmAllReduceVariant::kOneShot) {
        append_one_shot_tile(body, t, tile);
      } else {
        append_atomics_tile(body, t, tile);
      }
    });
    launch_gemm_on_every_rank(tb, "gemm_all_reduce", plan.ranks, plan.grid, tb.program(std::move(program)),
                              system.gpu.compute.num_dies, p.gemm.xcd_remap);
  }
  tb.sync_all();
  return std::move(tb).build();
}

}  // namespace tessera::workloads::patterns

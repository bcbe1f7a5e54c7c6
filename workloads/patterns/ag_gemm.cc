#include "workloads/patterns/ag_gemm.h"

#include "workloads/patterns/concat_kernel.h"
#include "workloads/patterns/push_shards.h"

namespace tessera::workloads::patterns {

namespace {

// The pieces every variant shares: tiling, layouts, grid.
struct Plan {
  std::uint32_t ranks = 1;
  GemmTiling tiling;
  std::uint64_t grid = 1;
  SlabLayout shard;    // rank r's m x k_s shard
  SlabLayout stacked;  // [ranks][m x k_s]: A_gathered, A_inbox
  SlabLayout whole;    // one m x k matrix: A after the concat
  BLayout b;
  CLayout c;
};

Plan plan_of(const AgGemmParams& p, const models::SystemSpec& system) {
  Plan plan;
  plan.ranks = ranks_of(p, system);
  plan.tiling = tiling_of(p);
  plan.grid = p.workgroups != 0 ? p.workgroups : models::total_compute_units(system.gpu);
  const GemmTiling& t = plan.tiling;
  const SlabLayout slabs{t.m, t.k / plan.ranks, plan.ranks, t.block_m, t.block_k, t.elem_bytes, p.addressing,
                         SlabPlacement::kOwnSlab};
  plan.shard = slabs;
  plan.stacked = slabs;
  plan.stacked.placement = SlabPlacement::kStacked;
  plan.whole = slabs;
  plan.whole.placement = SlabPlacement::kOneMatrix;
  plan.b = BLayout{t.k, t.n, t.block_k, t.block_n, t.elem_bytes, p.addressing};
  plan.c = CLayout{t.m, t.n, t.block_m, t.block_n, t.elem_bytes, p.addressing};
  return plan;
}


}  // namespace

const std::vector<std::pair<std::string, AgGemmVariant>>& ag_gemm_variant_choices() {
  static const std::vector<std::pair<std::string, AgGemmVariant>> names{
      {"bsp", AgGemmVariant::kBsp}, {"pull", AgGemmVariant::kPull}, {"push", AgGemmVariant::kPush}};
  return names;
}

const std::vector<std::pair<std::string, PeerOrder>>& peer_order_choices() {
  static const std::vector<std::pair<std::string, PeerOrder>> names{{"natural", PeerOrder::kNatural},
                                                                    {"staggered", PeerOrder::kStaggered}};
  return names;
}

const sim::config::Schema<AgGemmParams>& ag_gemm_schema() {
  using S = sim::config::Schema<AgGemmParams>;
  static const sim::config::Schema<GemmShapeParams> gemm = gemm_shape_schema({
      .k = "columns of A (all ranks together); a multiple of ranks x block_k",
      .xcd_remap = "GEMM workgroup id remap: chiplet_swizzle puts consecutive tiles on one die",
  });
  static const S s =
      S("ag_gemm", "All-Gather + GEMM: A sharded along K, B replicated, every rank computes C (Iris examples, arXiv 2511.12500)")
          .embed(&AgGemmParams::gemm, gemm.without({kXcdRemapKey}))
          .count("ranks", &AgGemmParams::ranks, "GPUs taking part; 0: all GPUs of the system").range(0, 1 << 16)
          .count("workgroups", &AgGemmParams::workgroups, "persistent GEMM grid; 0: one per CU").range(0, 1 << 20)
          .embed(&AgGemmParams::gemm, gemm.only({kXcdRemapKey}))
          .choice("variant", &AgGemmParams::variant, ag_gemm_variant_choices(),
                  "bsp: all-gather kernel, concat, GEMM; pull: remote loads in the K-loop; push: producer "
                  "stores blocks to every inbox with a flag each, GEMM waits per block")
          .choice("addressing", &AgGemmParams::addressing, tile_addressing_choices(),
                  "panels: one op per tile block; rows: one op per block row (exact row-major, ~100x the ops)")
          .choice("peer_order", &AgGemmParams::peer_order, peer_order_choices(),
                  "order of the ranks a GEMM reads (pull, push) or a producer writes (push)")
          .choice("collective", &AgGemmParams::collective, bsp_collective_choices(),
                  "bsp: the all-gather: Tessera's ring or one_shot kernel, or NCCL's or RCCL's own choice")
          .count("collective_workgroups", &AgGemmParams::collective_workgroups,
                 "bsp: all-gather channels of Tessera's kernels")
          .range(1, 1 << 16)
          .bytes("collective_chunk", &AgGemmParams::collective_chunk_bytes,
                 "bsp: the largest piece an all-gather channel moves at once")
          .range(128, 1ULL << 40)
          .boolean("concat", &AgGemmParams::concat,
                   "bsp: copy the gathered shards into one m x k matrix before the GEMM (torch.cat)")
          .choice("host", &AgGemmParams::host, bsp_host_choices(),
                  "bsp: none, kernels back to back; pytorch, the system's host.framework_op / "
                  "framework_collective before each launch, one process per GPU");
  return s;
}

std::uint32_t ranks_of(const AgGemmParams& p, const models::SystemSpec& system) {
  return p.ranks != 0 ? p.ranks : system.num_gpus;
}

GemmTiling tiling_of(const AgGemmParams& p) {
  return tiling_of(p.gemm);
}

std::optional<ParamProblem> check_against_system(const AgGemmParams& p, const models::SystemSpec& system) {
  const std::uint32_t ranks = ranks_of(p, system);
  if (auto problem = ranks_problem(ranks, system)) return problem;
  if (auto problem = tiling_problem(tiling_of(p))) return problem;
  if (auto problem = k_shard_problem(p.gemm, ranks)) return problem;
  const std::uint64_t grid = p.workgroups != 0 ? p.workgroups : models::total_compute_units(system.gpu);
  if (grid == 0) return ParamProblem{"workgroups", "the system has no compute units"};
  if (auto problem = remap_problem(grid, system.gpu.compute.num_dies, p.gemm.xcd_remap)) {
    return ParamProblem{"workgroups", *problem};
  }
  if (p.variant == AgGemmVariant::kBsp) return host_problem(p.host, system);
  return std::nullopt;
}

trace::Trace make_ag_gemm(const AgGemmParams& p, const models::SystemSpec& system) {
  throw_if_problem("ag_gemm", check_against_system(p, system));
  const Plan plan = plan_of(p, system);
  const GemmTiling& t = plan.tiling;
  const bool stagger = p.peer_order == PeerOrder::kStaggered;

  trace::TraceBuilder tb(plan.ranks);
  const std::uint32_t shard = tb.buffer("A_shard", plan.shard.buffer_bytes());
  OutputTileSpec gemm;
  gemm.dtype = p.gemm.dtype;
  gemm.b = plan.b;
  gemm.c = plan.c;
  gemm.b_buffer = tb.buffer("B", plan.b.buffer_bytes());
  gemm.c_buffer = tb.buffer("C", plan.c.buffer_bytes());
  tb.rank_barrier();

  switch (p.variant) {
    case AgGemmVariant::kBsp: {
      const std::uint32_t gathered = tb.buffer("A_gathered", plan.stacked.buffer_bytes());
      append_framework_collective(tb, plan.ranks, system, p.host);
      if (runs_library(p.collective)) {
        LibraryCollectiveSpec ag;
        ag.name = "all_gather";
        ag.op = CollectiveOp::kAllGather;
        ag.library = p.collective;
        ag.dtype = p.gemm.dtype;
        ag.size_bytes = plan.ranks * plan.shard.slab_bytes();
        ag.input_buffer = shard;
        ag.output_buffer = gathered;
        append_library_collective(tb, plan.ranks, system, ag);
      } else {
        AllGatherSpec ag;
        ag.algorithm = tessera_all_gather(p.collective);
        ag.input_buffer = shard;
        ag.output_buffer = gathered;
        ag.shard_bytes = plan.shard.slab_bytes();
        ag.channels = p.collective_workgroups;
        ag.chunk_bytes = p.collective_chunk_bytes;
        append_all_gather(tb, plan.ranks, ag);
      }
      gemm.a = plan.stacked;
      gemm.a_buffer = gathered;
      if (p.concat) {
        append_framework_op(tb, plan.ranks, system, p.host);
        ConcatSpec concat;
        concat.slabs = plan.stacked;
        concat.source_buffer = gathered;
        concat.destination_buffer = tb.buffer("A", plan.whole.buffer_bytes());
        concat.workgroups = plan.grid;
        append_concat(tb, plan.ranks, concat);
        gemm.a = plan.whole;
        gemm.a_buffer = concat.destination_buffer;
      }
      break;
    }
    case AgGemmVariant::kPull:
      gemm.a = plan.shard;
      gemm.a_buffer = shard;
      gemm.a_from_slab_owner = true;
      gemm.stagger_slabs = stagger;
      break;
    case AgGemmVariant::kPush: {
      PushShardsSpec push;
      push.shard = plan.shard;
      push.inbox = plan.stacked;
      push.shard_buffer = shard;
      push.inbox_buffer = tb.buffer("A_inbox", plan.stacked.buffer_bytes());
      push.stagger_destinations = stagger;
      append_push_shards(tb, plan.ranks, t, push);
      gemm.a = plan.stacked;
      gemm.a_buffer = push.inbox_buffer;
      gemm.wait_flag_base = push.flag_base;
      gemm.stagger_slabs = stagger;
      break;
    }
  }
  const std::uint32_t program = tb.program(output_tile_program("gemm", t, plan.grid, gemm));
  if (p.variant == AgGemmVariant::kBsp) append_framework_op(tb, plan.ranks, system, p.host);
  launch_gemm_on_every_rank(tb, "gemm", plan.ranks, plan.grid, program, system.gpu.compute.num_dies, p.gemm.xcd_remap);
  tb.sync_all();
  return std::move(tb).build();
}

}  // namespace tessera::workloads::patterns

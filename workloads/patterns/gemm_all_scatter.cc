#include "workloads/patterns/gemm_all_scatter.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "workloads/patterns/scatter_programs.h"

namespace tessera::workloads::patterns {

namespace {

constexpr std::uint32_t kBspChannels = 16;  // ag_gemm's collective default, until calibrated
constexpr std::uint64_t kLockBase = 0;      // lock of tile t: kLockBase + t

// Iris's default split: the GEMM gets the largest power of two of the CUs, communication the rest.
std::uint64_t default_comm_wgs(std::uint64_t cus) {
  const std::uint64_t leftover = cus - std::bit_floor(cus);
  return leftover > 0 ? leftover : std::max<std::uint64_t>(1, cus / 8);
}

// Launches one kernel per rank; returns nothing (indices are not needed).
void launch_per_rank(trace::TraceBuilder& tb, std::uint32_t ranks, const std::string& name, std::uint32_t program,
                     std::uint64_t grid, std::uint32_t stream, trace::Expr pid, std::uint32_t cu_first,
                     std::uint32_t cu_count) {
  for (std::uint32_t rank = 0; rank < ranks; ++rank) {
    trace::Kernel k;
    k.name = name;
    k.rank = rank;
    k.stream = stream;
    k.grid = grid;
    k.program = program;
    k.args = {pid};
    k.cu_first = cu_first;
    k.cu_count = cu_count;
    tb.launch(std::move(k));
  }
}

}  // namespace

const std::vector<std::pair<std::string, GemmAllScatterVariant>>& gemm_all_scatter_variant_choices() {
  static const std::vector<std::pair<std::string, GemmAllScatterVariant>> names{
      {"bsp", GemmAllScatterVariant::kBsp},
      {"producer_consumer", GemmAllScatterVariant::kProducerConsumer},
      {"fused_sequential", GemmAllScatterVariant::kFusedSequential},
      {"wg_specialized", GemmAllScatterVariant::kWgSpecialized}};
  return names;
}

const sim::config::Schema<GemmAllScatterParams>& gemm_all_scatter_schema() {
  using P = GemmAllScatterParams;
  using S = sim::config::Schema<P>;
  static const sim::config::Schema<GemmShapeParams> gemm = gemm_shape_schema({
      .n = "columns of B and C, all ranks together (global N); a multiple of ranks",
      .xcd_remap = "workgroup id remap: chiplet_swizzle puts consecutive tiles on one die (Iris: NUM_XCDS)",
  });
  static const S s =
      S("gemm_all_scatter",
        "GEMM + All-Scatter: B sharded by columns, each rank computes its columns of C and scatters them so that "
        "every rank holds all of C (Iris examples, arXiv 2511.12500)")
          .embed(&P::gemm, gemm.without({kXcdRemapKey}))
          .count("ranks", &P::ranks, "GPUs taking part; 0: all GPUs of the system").range(0, 1 << 16)
          .count("gemm_wgs", &P::gemm_wgs,
                 "GEMM workgroups; 0: every CU (bsp, fused_sequential) or the CUs minus comm_wgs "
                 "(producer_consumer, wg_specialized)")
          .range(0, 1 << 20)
          .count("comm_wgs", &P::comm_wgs,
                 "communication workgroups; 0: the CUs beyond the largest power of two (48 of 304) for "
                 "producer_consumer and wg_specialized, 16 all-gather channels for bsp")
          .range(0, 1 << 20)
          .embed(&P::gemm, gemm.only({kXcdRemapKey}))
          .choice("variant", &P::variant, gemm_all_scatter_variant_choices(),
                  "bsp: GEMM then all-gather kernel; producer_consumer: GEMM and all-scatter kernels on two "
                  "streams and a CU partition, per-tile locks; fused_sequential: each tile stored to every rank "
                  "from registers; wg_specialized: one kernel, GEMM and communication workgroups, per-tile locks")
          .count("k_steps_per_op", &P::k_steps_per_op,
                 "trace coarsening: block_k steps per load/compute op (at most; a divisor of k / block_k); "
                 "1: exact K-loop")
          .range(1, 1 << 16)
          .choice("collective", &P::collective, bsp_collective_choices(),
                  "bsp: the all-gather: Tessera's ring or one_shot kernel, or NCCL's or RCCL's own choice")
          .bytes("collective_chunk", &P::collective_chunk_bytes,
                 "bsp: the largest piece an all-gather channel of Tessera's kernels moves at once")
          .range(128, 1ULL << 40)
          .choice("host", &P::host, bsp_host_choices(),
                  "bsp: none, kernels back to back; pytorch, the system's host.framework_op / "
                  "framework_collective before each launch, one process per GPU");
  return s;
}

std::uint32_t ranks_of(const GemmAllScatterParams& p, const models::SystemSpec& system) {
  return p.ranks != 0 ? p.ranks : system.num_gpus;
}

GemmTiling local_tiling_of(const GemmAllScatterParams& p, std::uint32_t ranks) {
  GemmTiling t = tiling_of(p.gemm);
  t.n = ranks > 0 ? p.gemm.n / ranks : p.gemm.n;
  return t;
}

std::uint32_t k_steps_per_op_of(const GemmAllScatterParams& p) {
  const std::uint64_t steps = p.gemm.block_k > 0 ? p.gemm.k / p.gemm.block_k : 0;
  std::uint32_t g = std::max<std::uint32_t>(1, p.k_steps_per_op);
  while (g > 1 && (steps == 0 || steps % g != 0)) --g;
  return g;
}

GemmTiling trace_tiling_of(const GemmAllScatterParams& p, std::uint32_t ranks) {
  GemmTiling t = local_tiling_of(p, ranks);
  t.block_k *= k_steps_per_op_of(p);
  return t;
}

ScatterWorkgroups workgroups_of(const GemmAllScatterParams& p, const models::SystemSpec& system) {
  const std::uint64_t cus = models::total_compute_units(system.gpu);
  ScatterWorkgroups w;
  switch (p.variant) {
    case GemmAllScatterVariant::kBsp:
      w.gemm = p.gemm_wgs != 0 ? p.gemm_wgs : cus;
      w.comm = p.comm_wgs != 0 ? p.comm_wgs : kBspChannels;
      break;
    case GemmAllScatterVariant::kFusedSequential:
      w.gemm = p.gemm_wgs != 0 ? p.gemm_wgs : cus;
      break;
    case GemmAllScatterVariant::kProducerConsumer:
    case GemmAllScatterVariant::kWgSpecialized:
      w.comm = p.comm_wgs != 0 ? p.comm_wgs : (cus > 0 ? default_comm_wgs(cus) : 0);
      w.gemm = p.gemm_wgs != 0 ? p.gemm_wgs : (cus > w.comm ? cus - w.comm : 0);
      break;
  }
  return w;
}

std::optional<ParamProblem> check_against_system(const GemmAllScatterParams& p, const models::SystemSpec& system) {
  const std::uint32_t ranks = ranks_of(p, system);
  if (auto problem = ranks_problem(ranks, system)) return problem;
  if (p.gemm.n % ranks != 0) {
    return ParamProblem{"n", fmt::format("n ({}) must be a multiple of ranks ({}): n is the global N and each rank "
                                         "computes n / ranks columns", p.gemm.n, ranks)};
  }
  if (auto problem = tiling_problem(local_tiling_of(p, ranks))) return problem;
  const std::uint32_t dies = system.gpu.compute.num_dies;
  const std::uint64_t cus = models::total_compute_units(system.gpu);
  if (cus == 0) return ParamProblem{"gemm_wgs", "the system has no compute units"};
  const ScatterWorkgroups w = workgroups_of(p, system);
  if (w.gemm == 0) {
    return ParamProblem{"gemm_wgs", fmt::format("no CUs left for the GEMM ({} CUs, comm_wgs {})", cus, w.comm)};
  }
  switch (p.variant) {
    case GemmAllScatterVariant::kBsp:
      if (auto problem = host_problem(p.host, system)) return problem;
      [[fallthrough]];
    case GemmAllScatterVariant::kFusedSequential:
      if (auto problem = remap_problem(w.gemm, dies, p.gemm.xcd_remap)) return ParamProblem{"gemm_wgs", *problem};
      break;
    case GemmAllScatterVariant::kProducerConsumer: {
      // The two kernels share each die's CUs: [0, gemm / dies) and [gemm / dies, + comm / dies).
      if (w.gemm % dies != 0) {
        return ParamProblem{"gemm_wgs", fmt::format("gemm_wgs ({}) must be a multiple of the {} dies: the CU "
                                                    "partition gives each die the same CUs", w.gemm, dies)};
      }
      if (w.comm % dies != 0) {
        return ParamProblem{"comm_wgs", fmt::format("comm_wgs ({}) must be a multiple of the {} dies: the CU "
                                                    "partition gives each die the same CUs", w.comm, dies)};
      }
      if ((w.gemm + w.comm) / dies > system.gpu.compute.compute_units_per_die) {
        return ParamProblem{"comm_wgs", fmt::format("gemm_wgs + comm_wgs ({} + {}) exceed the {} CUs", w.gemm,
                                                    w.comm, cus)};
      }
      if (auto problem = remap_problem(w.comm, dies, p.gemm.xcd_remap)) return ParamProblem{"comm_wgs", *problem};
      if (auto problem = remap_problem(w.gemm, dies, p.gemm.xcd_remap)) return ParamProblem{"gemm_wgs", *problem};
      break;
    }
    case GemmAllScatterVariant::kWgSpecialized: {
      // Spinning communication workgroups must not keep GEMM workgroups from being dispatched.
      const std::uint64_t slots = cus * system.gpu.compute.workgroup_slots_per_cu;
      if (w.gemm + w.comm > slots) {
        return ParamProblem{"comm_wgs", fmt::format("gemm_wgs + comm_wgs ({} + {}) exceed the {} workgroup slots: "
                                                    "spinning workgroups could starve the GEMM", w.gemm, w.comm,
                                                    slots)};
      }
      if (auto problem = remap_problem(w.gemm + w.comm, dies, p.gemm.xcd_remap)) {
        return ParamProblem{"gemm_wgs", "gemm_wgs + comm_wgs: " + *problem};
      }
      break;
    }
  }
  return std::nullopt;
}

trace::Trace make_gemm_all_scatter(const GemmAllScatterParams& p, const models::SystemSpec& system) {
  throw_if_problem("gemm_all_scatter", check_against_system(p, system));
  const std::uint32_t ranks = ranks_of(p, system);
  const std::uint32_t dies = system.gpu.compute.num_dies;
  const ScatterWorkgroups w = workgroups_of(p, system);
  ScatterLayout layout = scatter_layout(trace_tiling_of(p, ranks), p.gemm.dtype, ranks);
  const std::uint64_t tiles = layout.tiling.tiles();

  trace::TraceBuilder tb(ranks);
  layout.a_buffer = tb.buffer("A", layout.a.buffer_bytes());
  layout.b_buffer = tb.buffer("B", layout.b.buffer_bytes());
  layout.c_buffer = tb.buffer("C", layout.c_buffer_bytes());
  tb.rank_barrier();
  const auto remap = [&](std::uint64_t grid) { return remap_expr(grid, dies, p.gemm.xcd_remap); };

  switch (p.variant) {
    case GemmAllScatterVariant::kBsp: {
      const std::uint32_t gemm = tb.program(scatter_gemm_program("gemm_all_scatter_gemm", layout, w.gemm, TileEnd::kStoreLocal, 0));
      append_framework_op(tb, ranks, system, p.host);
      launch_per_rank(tb, ranks, "gemm_all_scatter_gemm", gemm, w.gemm, 0, remap(w.gemm), 0, 0);
      append_framework_collective(tb, ranks, system, p.host);
      if (runs_library(p.collective)) {
        // In place, as all_gather_into_tensor(C, C's slot of the rank): the rank's block is sent
        // from its slot of C, and NCCL skips its local copy there.
        LibraryCollectiveSpec ag;
        ag.name = "all_gather";
        ag.op = CollectiveOp::kAllGather;
        ag.library = p.collective;
        ag.dtype = p.gemm.dtype;
        ag.size_bytes = ranks * layout.c_slot_bytes();
        ag.input_buffer = layout.c_buffer;
        ag.output_buffer = layout.c_buffer;
        ag.in_place = true;
        append_library_collective(tb, ranks, system, ag);
      } else {
        AllGatherSpec ag;
        ag.algorithm = tessera_all_gather(p.collective);
        ag.output_buffer = layout.c_buffer;
        ag.in_place = true;
        ag.shard_bytes = layout.c_slot_bytes();
        ag.channels = static_cast<std::uint32_t>(w.comm);
        ag.chunk_bytes = p.collective_chunk_bytes;
        append_all_gather(tb, ranks, ag);
      }
      break;
    }
    case GemmAllScatterVariant::kProducerConsumer: {
      const auto gemm_cus = static_cast<std::uint32_t>(w.gemm / dies);
      const auto comm_cus = static_cast<std::uint32_t>(w.comm / dies);
      const std::uint32_t gemm =
          tb.program(scatter_gemm_program("gemm_all_scatter_gemm", layout, w.gemm, TileEnd::kStoreLocalRelease, kLockBase));
      const std::uint32_t scatter = tb.program(all_scatter_program("all_scatter", layout, w.comm, kLockBase));
      for (std::uint32_t rank = 0; rank < ranks; ++rank) {
        // Per rank: the GEMM on stream 0, then the all-scatter on stream 1, as the benchmark launches them.
        trace::Kernel g{"gemm_all_scatter_gemm", rank, 0, w.gemm, gemm, {remap(w.gemm)}, 0, gemm_cus};
        tb.launch(std::move(g));
        trace::Kernel s{"all_scatter", rank, 1, w.comm, scatter, {remap(w.comm)}, gemm_cus, comm_cus};
        tb.launch(std::move(s));
      }
      break;
    }
    case GemmAllScatterVariant::kFusedSequential: {
      const std::uint32_t fused =
          tb.program(scatter_gemm_program("gemm_all_scatter", layout, w.gemm, TileEnd::kStoreEveryRank, 0));
      launch_per_rank(tb, ranks, "gemm_all_scatter", fused, w.gemm, 0, remap(w.gemm), 0, 0);
      break;
    }
    case GemmAllScatterVariant::kWgSpecialized: {
      const std::uint64_t grid = w.gemm + w.comm;
      const std::uint32_t program = tb.program(
          wg_specialized_program("gemm_all_scatter_wgs", layout, w.gemm, w.comm, kLockBase, kLockBase + tiles));
      launch_per_rank(tb, ranks, "gemm_all_scatter_wgs", program, grid, 0, remap(grid), 0, 0);
      break;
    }
  }
  tb.sync_all();
  return std::move(tb).build();
}

}  // namespace tessera::workloads::patterns

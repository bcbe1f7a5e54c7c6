// gemm_all_scatter (pattern, 1..8 ranks): GEMM + All-Scatter as Tessera's `gemm_all_scatter` workload
// (workloads/patterns/gemm_all_scatter.h, Iris examples 07/10/11/12). A (m x k) is the same on every rank; B is
// sharded by columns: `n` is the global N and rank r holds columns [r * n_r, (r + 1) * n_r), n_r = n / ranks, as a
// k x n_r row-major shard, and computes those columns of C with a persistent GEMM (patterns/gemm_tile.h). C is a
// row-major m x n fp16 matrix on every rank; every rank must end with all of it. Variants:
//
//  * bsp: the GEMM stores the rank's tiles into its own C; then a one-shot all-gather kernel
//    (patterns/gemm_one_shot_all_gather.h, comm_wgs channels, in place) stores the rank's columns into every
//    peer's C and waits for the peers' columns; one stream, two launches.
//  * fused_sequential: one persistent kernel; after its K-loop a workgroup stores the finished tile into every
//    rank's C, ranks 0, 1, .. in turn, itself included, straight from the epilogue (no local re-read).
//  * wg_specialized: one persistent kernel of gemm_wgs + comm_wgs workgroups; after the remap, pid < gemm_wgs
//    compute tiles, store them locally and release a per-tile flag; the others wait for each tile's flag
//    (acquire), load the tile once and store it into every peer's C, then release a "done" flag on every peer and
//    wait for every peer's (as Iris's kernel ends), so the kernel ends when the rank holds all of C.
//
// Flags are set back to 0 in reset(), outside the timed region.
//
// Ranks sharing one GPU (--devices 0,0, a functional check): there a kernel queued behind a running kernel that
// spins holds back every kernel enqueued after it, on any stream (seen on an H200). Every variant here ends its
// stream with its only spinning kernel (bsp: the all-gather after the GEMM; wg_specialized: the one kernel), so
// the later ranks' kernels always start; check_co_residency makes sure they also find room.
#include <algorithm>

#include "harness/device_data.h"
#include "harness/timing.h"
#include "patterns/gemm_cases.h"
#include "patterns/gemm_launch.h"
#include "patterns/gemm_one_shot_all_gather.h"
#include "patterns/gemm_reference.h"
#include "patterns/gemm_tile.h"

namespace tk {

namespace {

template <class Shape>
__global__ void TK_GEMM_LAUNCH_BOUNDS(Shape::kThreads)
    scatter_gemm_kernel(gemm::GemmArgs args, int dies, gemm::Remap remap) {
  __shared__ gemm::SharedStorage<Shape> shared;
  const int pid = gemm::remap_workgroup(static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x), dies, remap);
  gemm::run_gemm_tiles<Shape>(args, pid, static_cast<int>(gridDim.x), shared);
}

constexpr int kAllGatherThreads = 256;

__global__ void __launch_bounds__(kAllGatherThreads) scatter_all_gather_kernel(gemm::AllGatherArgs args) {
  gemm::one_shot_all_gather_channel(args);
}

// What the communication workgroups of wg_specialized need.
struct ScatterArgs {
  __half* c[gemm::kMaxRanks] = {};  // every rank's C (m x n, ld elements per row)
  int ld = 0;
  int column_offset = 0;  // this rank's first column of C
  int tiles_m = 0;
  int tiles_n = 0;
  int group_m = 1;
  int ranks = 1;
  int rank = 0;
  const int* tile_done = nullptr;  // this rank's per-tile flags, released by the GEMM workgroups
  int* done[gemm::kMaxRanks] = {};   // rank d's done flags: (communication workgroup w, source s) at w * ranks + s
};

// Communication workgroup `comm_pid` of `comm_wgs`: tiles comm_pid, comm_pid + comm_wgs, .. (the GEMM's grouped
// order), each once its flag is released: loaded once from the local C into registers, stored into every peer's C
// in rank order. Then the done flags with the peers' same workgroup.
template <class Shape>
__device__ void scatter_tiles(const ScatterArgs& s, int comm_pid, int comm_wgs) {
  constexpr int kVectorsPerRow = Shape::kBlockN / 8;
  constexpr int kVectorsPerThread = Shape::kBlockM * kVectorsPerRow / Shape::kThreads;
  static_assert(Shape::kBlockM * kVectorsPerRow % Shape::kThreads == 0, "whole tile rows per pass");
  const int tiles = s.tiles_m * s.tiles_n;
  for (int tile = comm_pid; tile < tiles; tile += comm_wgs) {
    const gemm::TileCoord coord = gemm::grouped_tile(tile, s.tiles_m, s.tiles_n, s.group_m);
    if (threadIdx.x == 0) flag_wait_at_least(s.tile_done + tile, 1);
    __syncthreads();  // passes thread 0's acquisition of the tile on to the workgroup
    std::size_t offsets[kVectorsPerThread];
    uint4 values[kVectorsPerThread];
#pragma unroll
    for (int i = 0; i < kVectorsPerThread; ++i) {
      const int v = static_cast<int>(threadIdx.x) + i * Shape::kThreads;
      const std::size_t row = static_cast<std::size_t>(coord.m) * Shape::kBlockM + v / kVectorsPerRow;
      offsets[i] = row * s.ld + s.column_offset + static_cast<std::size_t>(coord.n) * Shape::kBlockN +
                   (v % kVectorsPerRow) * 8;
      values[i] = *reinterpret_cast<const uint4*>(s.c[s.rank] + offsets[i]);
    }
    for (int peer = 0; peer < s.ranks; ++peer) {
      if (peer == s.rank) continue;
#pragma unroll
      for (int i = 0; i < kVectorsPerThread; ++i) *reinterpret_cast<uint4*>(s.c[peer] + offsets[i]) = values[i];
    }
  }
  if (s.ranks == 1) return;
  // Every thread's remote stores are visible system-wide before thread 0 tells the peers.
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x != 0) return;
  for (int peer = 0; peer < s.ranks; ++peer) {
    if (peer != s.rank) flag_release_system(s.done[peer] + comm_pid * s.ranks + s.rank, 1);
  }
  for (int peer = 0; peer < s.ranks; ++peer) {
    if (peer != s.rank) flag_wait_at_least(s.done[s.rank] + comm_pid * s.ranks + peer, 1);
  }
}

template <class Shape>
__global__ void TK_GEMM_LAUNCH_BOUNDS(Shape::kThreads)
    wg_specialized_kernel(gemm::GemmArgs args, ScatterArgs scatter, int gemm_wgs, int dies, gemm::Remap remap) {
  __shared__ gemm::SharedStorage<Shape> shared;
  const int grid = static_cast<int>(gridDim.x);
  const int pid = gemm::remap_workgroup(static_cast<int>(blockIdx.x), grid, dies, remap);
  if (pid < gemm_wgs) {
    gemm::run_gemm_tiles<Shape>(args, pid, gemm_wgs, shared);
  } else {
    scatter_tiles<Shape>(scatter, pid - gemm_wgs, grid - gemm_wgs);
  }
}

enum class Variant { bsp, fused_sequential, wg_specialized };

Variant parse_variant(const std::string& text) {
  if (text == "bsp") return Variant::bsp;
  if (text == "fused_sequential") return Variant::fused_sequential;
  if (text == "wg_specialized") return Variant::wg_specialized;
  throw std::invalid_argument("variant: expected bsp, fused_sequential or wg_specialized, got \"" + text + "\"");
}

constexpr std::uint64_t kSeedA = 1;
constexpr std::uint64_t kSeedShard = 200;  // + rank
constexpr int kBspChannels = 16;           // Tessera's default all-gather channels for bsp

// Tessera's default split of the CUs for wg_specialized (gemm_all_scatter.cc default_comm_wgs): the GEMM gets the
// largest power of two of them, communication the rest (132 SMs: 128 + 4), or an eighth when they are a power of 2.
int default_comm_wgs(int cus) {
  int power = 1;
  while (power * 2 <= cus) power *= 2;
  return cus > power ? cus - power : std::max(1, cus / 8);
}

class GemmAllScatter final : public Case {
 public:
  GemmAllScatter(const Params& params, int ranks)
      : ranks_(ranks),
        m_(params.integer("m")),
        n_(params.integer("n")),
        k_(params.integer("k")),
        shape_(gemm::parse_shape(params.integer("block_m"), params.integer("block_n"), params.integer("block_k"))),
        block_m_(static_cast<int>(params.integer("block_m"))),
        block_n_(static_cast<int>(params.integer("block_n"))),
        block_k_(static_cast<int>(params.integer("block_k"))),
        group_m_(static_cast<int>(params.integer("group_m"))),
        variant_(parse_variant(params.text("variant"))),
        gemm_wgs_(static_cast<int>(params.integer("gemm_wgs"))),
        comm_wgs_(static_cast<int>(params.integer("comm_wgs"))),
        remap_(gemm::parse_remap("xcd_remap", params.text("xcd_remap"))),
        dies_(static_cast<int>(params.integer("dies"))),
        check_rows_(params.integer("check_rows")) {
    if (ranks_ < 1 || ranks_ > gemm::kMaxRanks) throw std::invalid_argument("ranks: gemm_all_scatter runs on 1 to 8 ranks");
    gemm::require_multiple("m", m_, block_m_, "block_m");
    gemm::require_multiple("n", n_, std::int64_t{ranks_} * block_n_, "ranks x block_n");
    gemm::require_multiple("k", k_, block_k_, "block_k");
    gemm::require_range("group_m", group_m_, 1, 1 << 16);
    gemm::require_range("gemm_wgs", params.integer("gemm_wgs"), 0, 1 << 20);
    gemm::require_range("comm_wgs", params.integer("comm_wgs"), 0, 4096);
    gemm::require_range("dies", params.integer("dies"), 0, 64);
    gemm::require_range("check_rows", check_rows_, 0, 4096);
    if (dies_ == 0) dies_ = gemm::default_remap_dies();
    n_rank_ = n_ / ranks_;
    gemm::require_gather_slot("n", m_, n_rank_);
    tiles_m_ = static_cast<int>(m_ / block_m_);
    tiles_n_ = static_cast<int>(n_rank_ / block_n_);
  }

  void setup(Context& context) override {
    const int cus = gemm::compute_units(context, 0);
    switch (variant_) {
      case Variant::bsp:
        if (gemm_wgs_ == 0) gemm_wgs_ = cus;
        if (comm_wgs_ == 0) comm_wgs_ = kBspChannels;
        break;
      case Variant::fused_sequential:
        if (gemm_wgs_ == 0) gemm_wgs_ = cus;
        break;
      case Variant::wg_specialized:
        if (comm_wgs_ == 0) comm_wgs_ = default_comm_wgs(cus);
        if (gemm_wgs_ == 0) gemm_wgs_ = std::max(1, cus - comm_wgs_);
        break;
    }
    const int remapped_grid = variant_ == Variant::wg_specialized ? gemm_wgs_ + comm_wgs_ : gemm_wgs_;
    const std::string problem = gemm::remap_problem(remapped_grid, dies_, remap_);
    if (!problem.empty()) throw std::invalid_argument("gemm_wgs: " + problem);
    check_co_residency(context);
    for (int rank = 0; rank < ranks_; ++rank) {
      a_.push_back(context.allocate<__half>(rank, static_cast<std::size_t>(m_ * k_)));
      b_.push_back(context.allocate<__half>(rank, static_cast<std::size_t>(k_ * n_rank_)));
      c_.push_back(context.allocate<__half>(rank, static_cast<std::size_t>(m_ * n_)));
      fill_uniform(context, rank, a_[rank], static_cast<std::size_t>(m_ * k_), context.seed() * 1000 + kSeedA, -1.0f,
                   1.0f);
      fill_uniform(context, rank, b_[rank], static_cast<std::size_t>(k_ * n_rank_),
                   context.seed() * 1000 + kSeedShard + rank, -1.0f, 1.0f);
      if (flag_count() > 0) flags_.push_back(context.allocate<int>(rank, flag_count()));
    }
  }

  void poison_outputs(Context& context) override {
    for (int rank = 0; rank < ranks_; ++rank) poison(context, rank, c_[rank], static_cast<std::size_t>(m_ * n_) * 2);
  }

  void reset(Context& context) override {
    for (int rank = 0; rank < static_cast<int>(flags_.size()); ++rank) {
      context.use(rank);
      HIP_CHECK(hipMemsetAsync(flags_[rank], 0, flag_count() * sizeof(int), context.stream(rank)));
    }
  }

  void enqueue(Context& context, int rank) override {
    gemm::GemmArgs args;
    args.a.slab[0] = a_[rank];
    args.a.ld = static_cast<int>(k_);
    args.a.slabs = 1;
    args.a.steps_per_slab = static_cast<int>(k_ / block_k_);
    args.b.data = b_[rank];
    args.b.ld = static_cast<int>(n_rank_);
    args.c.c[0] = c_[rank];
    args.c.count = 1;
    args.c.ld = static_cast<int>(n_);
    args.c.column_offset = static_cast<int>(rank * n_rank_);
    args.tiles_m = tiles_m_;
    args.tiles_n = tiles_n_;
    args.group_m = group_m_;
    const hipStream_t stream = context.stream(rank);
    switch (variant_) {
      case Variant::bsp: {
        gemm::with_shape(shape_, [&](auto shape) {
          using Shape = decltype(shape);
          hipLaunchKernelGGL(scatter_gemm_kernel<Shape>, dim3(gemm_wgs_), dim3(Shape::kThreads), 0, stream, args,
                             dies_, remap_);
        });
        gemm::AllGatherArgs gather;
        gather.source = c_[rank] + rank * n_rank_;
        gather.source_ld = static_cast<int>(n_);
        for (int d = 0; d < ranks_; ++d) {
          gather.destination[d] = c_[d] + rank * n_rank_;
          gather.flags[d] = flags_[d];
        }
        gather.destination_ld = static_cast<int>(n_);
        gather.rows = static_cast<int>(m_);
        gather.columns = static_cast<int>(n_rank_);
        gather.ranks = ranks_;
        gather.rank = rank;
        gather.copy_to_self = 0;  // in place: the GEMM already stored this rank's columns
        hipLaunchKernelGGL(scatter_all_gather_kernel, dim3(comm_wgs_), dim3(kAllGatherThreads), 0, stream, gather);
        break;
      }
      case Variant::fused_sequential: {
        for (int d = 0; d < ranks_; ++d) args.c.c[d] = c_[d];
        args.c.count = ranks_;
        gemm::with_shape(shape_, [&](auto shape) {
          using Shape = decltype(shape);
          hipLaunchKernelGGL(scatter_gemm_kernel<Shape>, dim3(gemm_wgs_), dim3(Shape::kThreads), 0, stream, args,
                             dies_, remap_);
        });
        break;
      }
      case Variant::wg_specialized: {
        args.tile_done = flags_[rank];
        ScatterArgs scatter;
        for (int d = 0; d < ranks_; ++d) {
          scatter.c[d] = c_[d];
          scatter.done[d] = flags_[d] + tiles();
        }
        scatter.ld = static_cast<int>(n_);
        scatter.column_offset = static_cast<int>(rank * n_rank_);
        scatter.tiles_m = tiles_m_;
        scatter.tiles_n = tiles_n_;
        scatter.group_m = group_m_;
        scatter.ranks = ranks_;
        scatter.rank = rank;
        scatter.tile_done = flags_[rank];
        gemm::with_shape(shape_, [&](auto shape) {
          using Shape = decltype(shape);
          hipLaunchKernelGGL(wg_specialized_kernel<Shape>, dim3(gemm_wgs_ + comm_wgs_), dim3(Shape::kThreads), 0,
                             stream, args, scatter, gemm_wgs_, dies_, remap_);
        });
        break;
      }
    }
  }

  CheckResult check(Context& context) override {
    const std::vector<std::int64_t> rows =
        gemm::sample_rows(m_, gemm::automatic_check_rows(check_rows_, m_, k_, n_));
    std::vector<std::vector<float>> a_rows;
    for (std::int64_t row : rows) a_rows.push_back(copy_to_host(context, 0, a_[0] + row * k_, static_cast<std::size_t>(k_)));
    // The global B (k x n): rank r's shard holds its columns [r * n_r, (r + 1) * n_r).
    std::vector<float> b(static_cast<std::size_t>(k_ * n_));
    for (int r = 0; r < ranks_; ++r) {
      const std::vector<float> shard = copy_to_host(context, r, b_[r], static_cast<std::size_t>(k_ * n_rank_));
      for (std::int64_t kk = 0; kk < k_; ++kk) {
        std::copy_n(shard.begin() + kk * n_rank_, n_rank_, b.begin() + kk * n_ + r * n_rank_);
      }
    }
    const std::vector<double> expected = gemm::reference_rows(a_rows, b, k_, n_);
    CheckResult result;
    for (int rank = 0; rank < ranks_; ++rank) {
      const std::vector<float> got = gemm::copy_rows(context, rank, c_[rank], n_, 0, n_, rows);
      const CheckResult one = compare_relative(got, expected, gemm::fp16_gemm_tolerance(k_),
                                               "rank " + std::to_string(rank) + " C (all ranks' columns): " +
                                                   gemm::rows_detail(rows.size(), m_, n_));
      result = rank == 0 ? one : combine(result, one);
    }
    return result;
  }

  void derive_metrics(const Context& /*context*/, const Timing& timing, nlohmann::json& metrics) const override {
    const double flops = 2.0 * static_cast<double>(m_) * static_cast<double>(n_) * static_cast<double>(k_);
    metrics["counted_flops"] = flops;
    metrics["gemm_TFLOPs_all_ranks_median"] = flops / timing.median_ns / 1e3;
    metrics["gemm_TFLOPs_all_ranks_mean"] = flops / timing.mean_ns / 1e3;
    metrics["scattered_bytes_per_rank"] = 2.0 * static_cast<double>(m_ * n_rank_) * (ranks_ - 1);
    metrics["gemm_wgs"] = gemm_wgs_;
    if (variant_ != Variant::fused_sequential) metrics["comm_wgs"] = comm_wgs_;
    metrics["tiles_per_rank"] = tiles();
    metrics["remap_dies"] = dies_;
  }

 private:
  int tiles() const { return tiles_m_ * tiles_n_; }

  // bsp: the all-gather's (source, channel) flags; wg_specialized: a flag per tile, then the done flags
  // (communication workgroup, source).
  std::size_t flag_count() const {
    switch (variant_) {
      case Variant::bsp: return static_cast<std::size_t>(ranks_) * comm_wgs_;
      case Variant::wg_specialized: return static_cast<std::size_t>(tiles()) + static_cast<std::size_t>(comm_wgs_) * ranks_;
      case Variant::fused_sequential: return 0;
    }
    return 0;
  }

  // Workgroups that spin must leave room for the work they wait for. wg_specialized: the communication
  // workgroups of every rank on this GPU may spin at once while the GEMM workgroups (of their own or, on a shared
  // GPU, a later rank's kernel) still need slots. bsp on a shared GPU: a rank's all-gather channels wait for a
  // later rank's all-gather, queued behind that rank's GEMM.
  void check_co_residency(Context& context) const {
    for (int rank = 0; rank < ranks_; ++rank) {
      const int sharing = gemm::ranks_sharing_gpu(context, rank);
      gemm::with_shape(shape_, [&](auto shape) {
        using Shape = decltype(shape);
        if (variant_ == Variant::wg_specialized) {
          const int resident = gemm::resident_workgroups(context, rank, wg_specialized_kernel<Shape>, Shape::kThreads);
          // As Tessera requires, the whole grid is resident at once (the communication workgroups then never
          // hold a slot a GEMM workgroup waits for).
          if (gemm_wgs_ + comm_wgs_ > resident) {
            throw std::runtime_error("gemm_wgs: gemm_wgs + comm_wgs (" + std::to_string(gemm_wgs_) + " + " +
                                     std::to_string(comm_wgs_) + ") exceed the " + std::to_string(resident) +
                                     " workgroups of this kernel the GPU holds at once");
          }
          gemm::require_room_beside_spinning("comm_wgs", sharing * comm_wgs_, resident,
                                             "wg_specialized: communication workgroups wait for GEMM workgroups");
        } else if (variant_ == Variant::bsp && sharing > 1) {
          const int resident = gemm::resident_workgroups(context, rank, scatter_gemm_kernel<Shape>, Shape::kThreads);
          gemm::require_room_beside_spinning("comm_wgs", (sharing - 1) * comm_wgs_, resident,
                                             "bsp on a shared GPU: all-gather channels wait for a later rank's GEMM");
        }
      });
    }
  }

  int ranks_;
  std::int64_t m_, n_, k_;
  gemm::ShapeId shape_;
  int block_m_, block_n_, block_k_;
  int group_m_;
  Variant variant_;
  int gemm_wgs_;
  int comm_wgs_;
  gemm::Remap remap_;
  int dies_;
  std::int64_t check_rows_;
  std::int64_t n_rank_ = 0;
  int tiles_m_ = 0, tiles_n_ = 0;
  std::vector<__half*> a_, b_, c_;
  std::vector<int*> flags_;
};

}  // namespace

CaseInfo gemm_all_scatter_case() {
  CaseInfo info;
  info.name = "gemm_all_scatter";
  info.kind = "pattern";
  info.description = "GEMM + All-Scatter: B sharded by columns, each rank computes its columns of C and scatters "
                     "them to every rank (bsp, fused_sequential, wg_specialized)";
  info.min_ranks = 1;
  info.max_ranks = gemm::kMaxRanks;
  info.params = {
      {"m", ParamType::integer, "4096", "rows of A and C; a multiple of block_m"},
      {"n", ParamType::integer, "4608", "columns of C, all ranks together (global N); a multiple of ranks x block_n"},
      {"k", ParamType::integer, "8192", "columns of A, rows of B; a multiple of block_k"},
      {"block_m", ParamType::integer, "128", "tile rows (tiles: 128x128x32, 128x64x32, 64x64x32)"},
      {"block_n", ParamType::integer, "64", "tile columns"},
      {"block_k", ParamType::integer, "32", "K-loop step"},
      {"group_m", ParamType::integer, "6", "row-blocks per group of the tile order (GROUP_SIZE_M)"},
      {"variant", ParamType::text, "bsp",
       "bsp: GEMM then all-gather kernel; fused_sequential: each tile stored to every rank by its GEMM workgroup; "
       "wg_specialized: GEMM and communication workgroups in one kernel, per-tile flags"},
      {"gemm_wgs", ParamType::integer, "0",
       "GEMM workgroups; 0: one per CU/SM (bsp, fused_sequential) or the CUs/SMs minus comm_wgs (wg_specialized)"},
      {"comm_wgs", ParamType::integer, "0",
       "communication workgroups; 0: 16 all-gather channels (bsp), the CUs/SMs beyond the largest power of two "
       "(wg_specialized: 4 of 132); unused by fused_sequential"},
      {"xcd_remap", ParamType::text, "chiplet_swizzle", "workgroup id remap: none or chiplet_swizzle (Tessera's default)"},
      {"dies", ParamType::integer, "0",
       "dies of the chiplet swizzle; 0: Tessera's die count for this platform (NVIDIA: 2 L2 partitions, AMD: 8 XCDs)"},
      {"check_rows", ParamType::integer, "0",
       "rows of C checked on every rank against the host reference, spread over m; 0: 8 to 64, as the host affords (~1 G multiply-adds)"},
  };
  info.make = [](const Params& params, int ranks) { return std::make_unique<GemmAllScatter>(params, ranks); };
  info.tessera_workload = [](const Params& params, int ranks) {
    nlohmann::json workload{{"kind", "gemm_all_scatter"},
                            {"variant", params.text("variant")},
                            {"m", params.integer("m")},
                            {"n", params.integer("n")},
                            {"k", params.integer("k")},
                            {"dtype", "fp16"},
                            {"block_m", params.integer("block_m")},
                            {"block_n", params.integer("block_n")},
                            {"block_k", params.integer("block_k")},
                            {"group_m", params.integer("group_m")},
                            {"ranks", ranks},
                            {"gemm_wgs", params.integer("gemm_wgs")},
                            {"comm_wgs", params.integer("comm_wgs")},
                            {"xcd_remap", params.text("xcd_remap")},
                            // The kernel loads and multiplies one block_k step at a time: the trace does the same (the
                            // generator's default coarsening of 4 steps pays the load latency a quarter as often,
                            // which made Tessera 1.7x faster on the one-workgroup-per-SM H200 case: docs/validation.md).
                            {"k_steps_per_op", 1}};
    if (params.text("variant") == "bsp") workload["collective"] = "one_shot";
    return workload;
  };
  return info;
}

}  // namespace tk

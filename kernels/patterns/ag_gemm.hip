// ag_gemm (pattern, 2..8 ranks): All-Gather + GEMM as Tessera's `ag_gemm` workload (workloads/patterns/ag_gemm.h).
// A (m x k) is sharded along K: rank r owns columns [r * k_s, (r + 1) * k_s), k_s = k / ranks, as an m x k_s
// row-major shard; B (k x n) is replicated (the same values on every rank); every rank computes the whole
// C = A * B (m x n, fp16). Variants:
//
//  * bsp: a one-shot all-gather kernel (patterns/gemm_one_shot_all_gather.h: each rank stores its shard into
//    every rank's full A, m x k, and per-channel flags say when the peers' shards have arrived), then the
//    persistent GEMM on the full A; one stream, two launches, stream order is the barrier.
//  * pull: one persistent GEMM whose K-loop loads the A blocks of slab s straight from rank s's shard (remote
//    loads through peer access); no flags: the shards are inputs, in place before the run.
//  * push: a producer kernel stores every A block (pid_m, kk) of the rank's shard into slot `rank` of every
//    rank's inbox ([ranks][m x k_s]) and releases a flag per (source, m-tile, k-step) on it; then the GEMM, on the
//    same stream, waits for each block's flag (acquire) before loading it from the local inbox.
//
// peer_order natural: every rank visits slabs (and, push, destinations) 0, 1, ..; staggered: rank, rank + 1, ..
// Flags are set back to 0 in reset(), outside the timed region.
//
// Ranks sharing one GPU (--devices 0,0, a functional check): there a kernel queued behind a running kernel that
// spins holds back every kernel enqueued after it, on any stream (seen on an H200: the later rank's all-gather
// never started), so bsp's all-gather, which spins until the later ranks' shards arrive, must not be followed by
// the GEMM on its stream. On a shared GPU the all-gather therefore only sends and releases, and the GEMM's
// workgroups wait for the same flags before their first tile (GemmArgs::gate): the same data path and flags, the
// wait one kernel later. push needs nothing: its spinning kernel (the GEMM) is the last of its stream.
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
    ag_gemm_kernel(gemm::GemmArgs args, int dies, gemm::Remap remap) {
  __shared__ gemm::SharedStorage<Shape> shared;
  const int pid = gemm::remap_workgroup(static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x), dies, remap);
  gemm::run_gemm_tiles<Shape>(args, pid, static_cast<int>(gridDim.x), shared);
}

constexpr int kAllGatherThreads = 256;

__global__ void __launch_bounds__(kAllGatherThreads) ag_gemm_all_gather_kernel(gemm::AllGatherArgs args) {
  gemm::one_shot_all_gather_channel(args);
}

struct PushArgs {
  const __half* shard = nullptr;  // this rank's m x k_slab shard
  int k_slab = 0;
  int m = 0;
  __half* inbox[gemm::kMaxRanks] = {};  // rank d's inbox: [ranks][m x k_slab]
  int* ready[gemm::kMaxRanks] = {};     // rank d's flags: (source, pid_m, kk) at (source * tiles_m + pid_m) * steps + kk
  int tiles_m = 0;
  int steps = 0;  // block_k steps per slab
  int ranks = 1;
  int rank = 0;
  int first_destination = 0;  // natural: 0; staggered: rank
};

// The producer of the push variant (Tessera's push_shards): workgroup b moves A block (pid_m = b % tiles_m,
// kk = b / tiles_m) of this rank's shard: one load into registers, then per destination d a store into slot
// `rank` of d's inbox and the release of flag (rank, pid_m, kk) on d.
template <class Shape>
__global__ void __launch_bounds__(Shape::kThreads) push_shard_kernel(PushArgs p) {
  const int pid_m = static_cast<int>(blockIdx.x) % p.tiles_m;
  const int kk = static_cast<int>(blockIdx.x) / p.tiles_m;
  constexpr int kVectorsPerRow = Shape::kBlockK / 8;
  std::size_t offsets[Shape::kVectorsAPerThread];
  uint4 values[Shape::kVectorsAPerThread];
#pragma unroll
  for (int i = 0; i < Shape::kVectorsAPerThread; ++i) {
    const int v = static_cast<int>(threadIdx.x) + i * Shape::kThreads;
    const std::size_t row = static_cast<std::size_t>(pid_m) * Shape::kBlockM + v / kVectorsPerRow;
    offsets[i] = row * p.k_slab + static_cast<std::size_t>(kk) * Shape::kBlockK + (v % kVectorsPerRow) * 8;
    values[i] = *reinterpret_cast<const uint4*>(p.shard + offsets[i]);
  }
  const std::size_t slot = static_cast<std::size_t>(p.rank) * p.m * p.k_slab;
  for (int i = 0; i < p.ranks; ++i) {
    int destination = p.first_destination + i;
    if (destination >= p.ranks) destination -= p.ranks;
    __half* to = p.inbox[destination] + slot;
#pragma unroll
    for (int j = 0; j < Shape::kVectorsAPerThread; ++j) *reinterpret_cast<uint4*>(to + offsets[j]) = values[j];
    // Every thread's stores to d are visible system-wide before thread 0 releases d's flag.
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0) {
      flag_release_system(p.ready[destination] + (p.rank * p.tiles_m + pid_m) * p.steps + kk, 1);
    }
  }
}

enum class Variant { bsp, pull, push };

Variant parse_variant(const std::string& text) {
  if (text == "bsp") return Variant::bsp;
  if (text == "pull") return Variant::pull;
  if (text == "push") return Variant::push;
  throw std::invalid_argument("variant: expected bsp, pull or push, got \"" + text + "\"");
}

bool parse_staggered(const std::string& text) {
  if (text == "natural") return false;
  if (text == "staggered") return true;
  throw std::invalid_argument("peer_order: expected natural or staggered, got \"" + text + "\"");
}

constexpr std::uint64_t kSeedB = 2;
constexpr std::uint64_t kSeedShard = 100;  // + rank

class AgGemm final : public Case {
 public:
  AgGemm(const Params& params, int ranks)
      : ranks_(ranks),
        m_(params.integer("m")),
        n_(params.integer("n")),
        k_(params.integer("k")),
        shape_(gemm::parse_shape(params.integer("block_m"), params.integer("block_n"), params.integer("block_k"))),
        block_m_(static_cast<int>(params.integer("block_m"))),
        block_n_(static_cast<int>(params.integer("block_n"))),
        block_k_(static_cast<int>(params.integer("block_k"))),
        group_m_(static_cast<int>(params.integer("group_m"))),
        workgroups_(static_cast<int>(params.integer("workgroups"))),
        remap_(gemm::parse_remap("xcd_remap", params.text("xcd_remap"))),
        dies_(static_cast<int>(params.integer("dies"))),
        variant_(parse_variant(params.text("variant"))),
        staggered_(parse_staggered(params.text("peer_order"))),
        channels_(static_cast<int>(params.integer("collective_workgroups"))),
        check_rows_(params.integer("check_rows")) {
    if (ranks_ < 2 || ranks_ > gemm::kMaxRanks) throw std::invalid_argument("ranks: ag_gemm runs on 2 to 8 ranks");
    gemm::require_multiple("m", m_, block_m_, "block_m");
    gemm::require_multiple("n", n_, block_n_, "block_n");
    gemm::require_multiple("k", k_, std::int64_t{ranks_} * block_k_, "ranks x block_k");
    gemm::require_range("group_m", group_m_, 1, 1 << 16);
    gemm::require_range("workgroups", params.integer("workgroups"), 0, 1 << 20);
    gemm::require_range("dies", params.integer("dies"), 0, 64);
    gemm::require_range("collective_workgroups", params.integer("collective_workgroups"), 1, 4096);
    gemm::require_range("check_rows", check_rows_, 0, 4096);
    if (dies_ == 0) dies_ = gemm::default_remap_dies();
    if (workgroups_ != 0) {
      const std::string problem = gemm::remap_problem(workgroups_, dies_, remap_);
      if (!problem.empty()) throw std::invalid_argument("workgroups: " + problem);
    }
    k_slab_ = k_ / ranks_;
    gemm::require_gather_slot("k", m_, k_slab_);
    tiles_m_ = static_cast<int>(m_ / block_m_);
    tiles_n_ = static_cast<int>(n_ / block_n_);
    steps_per_slab_ = static_cast<int>(k_slab_ / block_k_);
  }

  void setup(Context& context) override {
    grid_ = workgroups_ != 0 ? workgroups_ : gemm::compute_units(context, 0);
    const std::string problem = gemm::remap_problem(grid_, dies_, remap_);
    if (!problem.empty()) throw std::invalid_argument("workgroups: " + problem);
    check_co_residency(context);
    for (int rank = 0; rank < ranks_; ++rank) shared_gpu_ = shared_gpu_ || gemm::ranks_sharing_gpu(context, rank) > 1;
    for (int rank = 0; rank < ranks_; ++rank) {
      shard_.push_back(context.allocate<__half>(rank, static_cast<std::size_t>(m_ * k_slab_)));
      b_.push_back(context.allocate<__half>(rank, static_cast<std::size_t>(k_ * n_)));
      c_.push_back(context.allocate<__half>(rank, static_cast<std::size_t>(m_ * n_)));
      fill_uniform(context, rank, shard_[rank], static_cast<std::size_t>(m_ * k_slab_),
                   context.seed() * 1000 + kSeedShard + rank, -1.0f, 1.0f);
      fill_uniform(context, rank, b_[rank], static_cast<std::size_t>(k_ * n_), context.seed() * 1000 + kSeedB, -1.0f,
                   1.0f);
      if (variant_ == Variant::bsp) {
        a_full_.push_back(context.allocate<__half>(rank, static_cast<std::size_t>(m_ * k_)));
        flags_.push_back(context.allocate<int>(rank, static_cast<std::size_t>(ranks_) * channels_));
      } else if (variant_ == Variant::push) {
        inbox_.push_back(context.allocate<__half>(rank, static_cast<std::size_t>(m_ * k_)));
        flags_.push_back(context.allocate<int>(rank, static_cast<std::size_t>(ranks_) * tiles_m_ * steps_per_slab_));
      }
    }
  }

  void poison_outputs(Context& context) override {
    for (int rank = 0; rank < ranks_; ++rank) {
      poison(context, rank, c_[rank], static_cast<std::size_t>(m_ * n_) * 2);
      // The gathered A is an intermediate: poisoned too, so that a block never delivered cannot pass.
      if (variant_ == Variant::bsp) poison(context, rank, a_full_[rank], static_cast<std::size_t>(m_ * k_) * 2);
      if (variant_ == Variant::push) poison(context, rank, inbox_[rank], static_cast<std::size_t>(m_ * k_) * 2);
    }
  }

  void reset(Context& context) override {
    for (int rank = 0; rank < static_cast<int>(flags_.size()); ++rank) {
      context.use(rank);
      HIP_CHECK(hipMemsetAsync(flags_[rank], 0, flag_count() * sizeof(int), context.stream(rank)));
    }
  }

  void enqueue(Context& context, int rank) override {
    gemm::GemmArgs args;
    args.b.data = b_[rank];
    args.b.ld = static_cast<int>(n_);
    args.c.c[0] = c_[rank];
    args.c.count = 1;
    args.c.ld = static_cast<int>(n_);
    args.tiles_m = tiles_m_;
    args.tiles_n = tiles_n_;
    args.group_m = group_m_;
    const hipStream_t stream = context.stream(rank);
    const int first_slab = staggered_ ? rank : 0;
    switch (variant_) {
      case Variant::bsp: {
        gemm::AllGatherArgs gather;
        gather.source = shard_[rank];
        gather.source_ld = static_cast<int>(k_slab_);
        for (int d = 0; d < ranks_; ++d) {
          gather.destination[d] = a_full_[d] + rank * k_slab_;
          gather.flags[d] = flags_[d];
        }
        gather.destination_ld = static_cast<int>(k_);
        gather.rows = static_cast<int>(m_);
        gather.columns = static_cast<int>(k_slab_);
        gather.ranks = ranks_;
        gather.rank = rank;
        gather.copy_to_self = 1;
        gather.wait_for_peers = shared_gpu_ ? 0 : 1;
        hipLaunchKernelGGL(ag_gemm_all_gather_kernel, dim3(channels_), dim3(kAllGatherThreads), 0, stream, gather);
        if (shared_gpu_) {
          args.gate = flags_[rank];
          args.gate_sources = ranks_;
          args.gate_channels = channels_;
          args.gate_own_source = rank;
        }
        args.a.slab[0] = a_full_[rank];
        args.a.ld = static_cast<int>(k_);
        args.a.slabs = 1;
        args.a.steps_per_slab = static_cast<int>(k_ / block_k_);
        break;
      }
      case Variant::pull:
        for (int s = 0; s < ranks_; ++s) args.a.slab[s] = shard_[s];
        args.a.ld = static_cast<int>(k_slab_);
        args.a.slabs = ranks_;
        args.a.steps_per_slab = steps_per_slab_;
        args.a.first_slab = first_slab;
        break;
      case Variant::push: {
        PushArgs push;
        push.shard = shard_[rank];
        push.k_slab = static_cast<int>(k_slab_);
        push.m = static_cast<int>(m_);
        for (int d = 0; d < ranks_; ++d) {
          push.inbox[d] = inbox_[d];
          push.ready[d] = flags_[d];
        }
        push.tiles_m = tiles_m_;
        push.steps = steps_per_slab_;
        push.ranks = ranks_;
        push.rank = rank;
        push.first_destination = staggered_ ? rank : 0;
        gemm::with_shape(shape_, [&](auto shape) {
          using Shape = decltype(shape);
          hipLaunchKernelGGL(push_shard_kernel<Shape>, dim3(tiles_m_ * steps_per_slab_), dim3(Shape::kThreads), 0,
                             stream, push);
        });
        for (int s = 0; s < ranks_; ++s) args.a.slab[s] = inbox_[rank] + s * m_ * k_slab_;
        args.a.ld = static_cast<int>(k_slab_);
        args.a.slabs = ranks_;
        args.a.steps_per_slab = steps_per_slab_;
        args.a.first_slab = first_slab;
        args.a.ready = flags_[rank];
        break;
      }
    }
    gemm::with_shape(shape_, [&](auto shape) {
      using Shape = decltype(shape);
      hipLaunchKernelGGL(ag_gemm_kernel<Shape>, dim3(grid_), dim3(Shape::kThreads), 0, stream, args, dies_, remap_);
    });
  }

  CheckResult check(Context& context) override {
    const std::vector<std::int64_t> rows =
        gemm::sample_rows(m_, gemm::automatic_check_rows(check_rows_, m_, k_, n_));
    // Row i of A is the concatenation of row i of every rank's shard.
    std::vector<std::vector<float>> a_rows;
    for (std::int64_t row : rows) {
      std::vector<float> a_row;
      a_row.reserve(static_cast<std::size_t>(k_));
      for (int s = 0; s < ranks_; ++s) {
        const std::vector<float> part =
            copy_to_host(context, s, shard_[s] + row * k_slab_, static_cast<std::size_t>(k_slab_));
        a_row.insert(a_row.end(), part.begin(), part.end());
      }
      a_rows.push_back(std::move(a_row));
    }
    const std::vector<float> b = copy_to_host(context, 0, b_[0], static_cast<std::size_t>(k_ * n_));
    const std::vector<double> expected = gemm::reference_rows(a_rows, b, k_, n_);
    CheckResult result;
    for (int rank = 0; rank < ranks_; ++rank) {
      const std::vector<float> got = gemm::copy_rows(context, rank, c_[rank], n_, 0, n_, rows);
      const CheckResult one = compare_relative(got, expected, gemm::fp16_gemm_tolerance(k_),
                                               "rank " + std::to_string(rank) + " C: " +
                                                   gemm::rows_detail(rows.size(), m_, n_));
      result = rank == 0 ? one : combine(result, one);
    }
    return result;
  }

  void derive_metrics(const Context& /*context*/, const Timing& timing, nlohmann::json& metrics) const override {
    const double flops_per_rank = 2.0 * static_cast<double>(m_) * static_cast<double>(n_) * static_cast<double>(k_);
    metrics["counted_flops"] = flops_per_rank * ranks_;
    metrics["gemm_TFLOPs_per_rank_median"] = flops_per_rank / timing.median_ns / 1e3;
    metrics["gemm_TFLOPs_per_rank_mean"] = flops_per_rank / timing.mean_ns / 1e3;
    metrics["gathered_bytes_per_rank"] = 2.0 * static_cast<double>(m_ * k_slab_) * (ranks_ - 1);
    metrics["workgroups"] = grid_;
    metrics["tiles"] = tiles_m_ * tiles_n_;
    metrics["remap_dies"] = dies_;
    if (variant_ == Variant::bsp) {
      metrics["collective_workgroups"] = channels_;
      // true on a GPU shared by ranks: the all-gather's final wait ran at the start of the GEMM (see the header).
      metrics["all_gather_wait_in_gemm"] = shared_gpu_;
    }
    if (variant_ == Variant::push) metrics["producer_workgroups"] = tiles_m_ * steps_per_slab_;
  }

 private:
  std::size_t flag_count() const {
    return variant_ == Variant::bsp ? static_cast<std::size_t>(ranks_) * channels_
                                    : static_cast<std::size_t>(ranks_) * tiles_m_ * steps_per_slab_;
  }

  // On a GPU shared by several ranks (--devices 0,0), a rank's GEMM may spin on the producer (push) or the
  // all-gather (bsp, gated GEMM) of a rank enqueued after it, on another stream of the same GPU: the spinning
  // grids must leave that kernel room. With one GPU per rank nothing here can block.
  void check_co_residency(Context& context) const {
    if (variant_ == Variant::pull) return;
    for (int rank = 0; rank < ranks_; ++rank) {
      const int waiting = gemm::ranks_sharing_gpu(context, rank) - 1;
      if (waiting == 0) continue;
      gemm::with_shape(shape_, [&](auto shape) {
        using Shape = decltype(shape);
        const int resident = gemm::resident_workgroups(context, rank, ag_gemm_kernel<Shape>, Shape::kThreads);
        gemm::require_room_beside_spinning("workgroups", waiting * grid_, resident,
                                           "on a shared GPU the GEMM workgroups wait for kernels of ranks enqueued later");
      });
    }
  }

  int ranks_;
  std::int64_t m_, n_, k_;
  gemm::ShapeId shape_;
  int block_m_, block_n_, block_k_;
  int group_m_;
  int workgroups_;
  gemm::Remap remap_;
  int dies_;
  Variant variant_;
  bool staggered_;
  int channels_;
  std::int64_t check_rows_;
  std::int64_t k_slab_ = 0;
  int tiles_m_ = 0, tiles_n_ = 0, steps_per_slab_ = 0;
  int grid_ = 0;
  bool shared_gpu_ = false;
  std::vector<__half*> shard_, b_, c_, a_full_, inbox_;
  std::vector<int*> flags_;
};

}  // namespace

CaseInfo ag_gemm_case() {
  CaseInfo info;
  info.name = "ag_gemm";
  info.kind = "pattern";
  info.description = "All-Gather + GEMM: A sharded along K, B replicated, every rank computes C (bsp, pull, push)";
  info.min_ranks = 2;
  info.max_ranks = gemm::kMaxRanks;
  info.params = {
      {"m", ParamType::integer, "1024", "rows of A and C; a multiple of block_m"},
      {"n", ParamType::integer, "3584", "columns of B and C; a multiple of block_n"},
      {"k", ParamType::integer, "8192", "columns of A (all ranks together); a multiple of ranks x block_k"},
      {"block_m", ParamType::integer, "128", "tile rows (tiles: 128x128x32, 128x64x32, 64x64x32)"},
      {"block_n", ParamType::integer, "64", "tile columns"},
      {"block_k", ParamType::integer, "32", "K-loop step"},
      {"group_m", ParamType::integer, "6", "row-blocks per group of the tile order (GROUP_SIZE_M)"},
      {"workgroups", ParamType::integer, "0", "persistent GEMM grid; 0: one per CU/SM"},
      {"xcd_remap", ParamType::text, "none", "GEMM workgroup id remap: none or chiplet_swizzle"},
      {"dies", ParamType::integer, "0",
       "dies of the chiplet swizzle; 0: Tessera's die count for this platform (NVIDIA: 2 L2 partitions, AMD: 8 XCDs)"},
      {"variant", ParamType::text, "bsp",
       "bsp: all-gather kernel then GEMM; pull: remote loads in the K-loop; push: producer stores + per-block flags"},
      {"peer_order", ParamType::text, "natural", "natural: slabs/destinations 0, 1, ..; staggered: from this rank"},
      {"collective_workgroups", ParamType::integer, "64", "bsp: all-gather channels (workgroups)"},
      {"check_rows", ParamType::integer, "0",
       "rows of C checked on every rank against the host reference, spread over m; 0: 8 to 64, as the host affords (~1 G multiply-adds)"},
  };
  info.make = [](const Params& params, int ranks) { return std::make_unique<AgGemm>(params, ranks); };
  info.tessera_workload = [](const Params& params, int ranks) {
    nlohmann::json workload{{"kind", "ag_gemm"},
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
                            {"workgroups", params.integer("workgroups")},
                            {"xcd_remap", params.text("xcd_remap")},
                            {"peer_order", params.text("peer_order")}};
    if (params.text("variant") == "bsp") {
      // The kernel gathers straight into the m x k A (no separate concat kernel) with the one-shot algorithm.
      workload["collective"] = "one_shot";
      workload["collective_workgroups"] = params.integer("collective_workgroups");
      workload["concat"] = false;
    }
    return workload;
  };
  return info;
}

}  // namespace tk

// gemm (pattern, 1 rank): C = A * B on one GPU as Tessera's `gemm` workload runs it (workloads/patterns/gemm.h):
// a persistent grid of `workgroups` workgroups loops over the output tiles pid, pid + grid, ... in grouped order
// (group_m row-blocks per group), the workgroup ids optionally remapped by the chiplet swizzle; or, with
// persistent = 0, one workgroup per tile. A (m x k), B (k x n) and C (m x n) are row-major fp16; the tile loop is
// patterns/gemm_tile.h (fp32 accumulation on the matrix units, fp16 C).
#include <cmath>

#include "harness/device_data.h"
#include "harness/timing.h"
#include "patterns/gemm_cases.h"
#include "patterns/gemm_launch.h"
#include "patterns/gemm_reference.h"
#include "patterns/gemm_tile.h"

namespace tk {

namespace {

template <class Shape>
__global__ void TK_GEMM_LAUNCH_BOUNDS(Shape::kThreads) gemm_kernel(gemm::GemmArgs args, int dies, gemm::Remap remap) {
  __shared__ gemm::SharedStorage<Shape> shared;
  const int pid = gemm::remap_workgroup(static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x), dies, remap);
  gemm::run_gemm_tiles<Shape>(args, pid, static_cast<int>(gridDim.x), shared);
}

constexpr std::uint64_t kSeedA = 1;
constexpr std::uint64_t kSeedB = 2;

class Gemm final : public Case {
 public:
  explicit Gemm(const Params& params)
      : m_(params.integer("m")),
        n_(params.integer("n")),
        k_(params.integer("k")),
        shape_(gemm::parse_shape(params.integer("block_m"), params.integer("block_n"), params.integer("block_k"))),
        block_m_(static_cast<int>(params.integer("block_m"))),
        block_n_(static_cast<int>(params.integer("block_n"))),
        block_k_(static_cast<int>(params.integer("block_k"))),
        group_m_(static_cast<int>(params.integer("group_m"))),
        workgroups_(static_cast<int>(params.integer("workgroups"))),
        persistent_(params.integer("persistent") != 0),
        remap_(gemm::parse_remap("xcd_remap", params.text("xcd_remap"))),
        dies_(static_cast<int>(params.integer("dies"))),
        check_rows_(params.integer("check_rows")) {
    gemm::require_multiple("m", m_, block_m_, "block_m");
    gemm::require_multiple("n", n_, block_n_, "block_n");
    gemm::require_multiple("k", k_, block_k_, "block_k");
    gemm::require_range("group_m", group_m_, 1, 1 << 16);
    gemm::require_range("workgroups", params.integer("workgroups"), 0, 1 << 20);
    gemm::require_range("persistent", params.integer("persistent"), 0, 1);
    gemm::require_range("dies", params.integer("dies"), 0, 64);
    gemm::require_range("check_rows", check_rows_, 0, 4096);
    if (dies_ == 0) dies_ = gemm::default_remap_dies();
    tiles_m_ = static_cast<int>(m_ / block_m_);
    tiles_n_ = static_cast<int>(n_ / block_n_);
    if (!persistent_) {
      grid_ = tiles_m_ * tiles_n_;
      const std::string problem = gemm::remap_problem(grid_, dies_, remap_);
      if (!problem.empty()) throw std::invalid_argument("xcd_remap: " + problem);
    } else if (workgroups_ != 0) {
      const std::string problem = gemm::remap_problem(workgroups_, dies_, remap_);
      if (!problem.empty()) throw std::invalid_argument("workgroups: " + problem);
    }
  }

  void setup(Context& context) override {
    if (persistent_) {
      grid_ = workgroups_ != 0 ? workgroups_ : gemm::compute_units(context, 0);
      const std::string problem = gemm::remap_problem(grid_, dies_, remap_);
      if (!problem.empty()) throw std::invalid_argument("workgroups: " + problem);
    }
    a_ = context.allocate<__half>(0, static_cast<std::size_t>(m_ * k_));
    b_ = context.allocate<__half>(0, static_cast<std::size_t>(k_ * n_));
    c_ = context.allocate<__half>(0, static_cast<std::size_t>(m_ * n_));
    fill_uniform(context, 0, a_, static_cast<std::size_t>(m_ * k_), context.seed() * 1000 + kSeedA, -1.0f, 1.0f);
    fill_uniform(context, 0, b_, static_cast<std::size_t>(k_ * n_), context.seed() * 1000 + kSeedB, -1.0f, 1.0f);
  }

  void poison_outputs(Context& context) override { poison(context, 0, c_, static_cast<std::size_t>(m_ * n_) * 2); }

  void enqueue(Context& context, int /*rank*/) override {
    gemm::GemmArgs args;
    args.a.slab[0] = a_;
    args.a.ld = static_cast<int>(k_);
    args.a.slabs = 1;
    args.a.steps_per_slab = static_cast<int>(k_ / block_k_);
    args.b.data = b_;
    args.b.ld = static_cast<int>(n_);
    args.c.c[0] = c_;
    args.c.count = 1;
    args.c.ld = static_cast<int>(n_);
    args.tiles_m = tiles_m_;
    args.tiles_n = tiles_n_;
    args.group_m = group_m_;
    gemm::with_shape(shape_, [&](auto shape) {
      using Shape = decltype(shape);
      hipLaunchKernelGGL(gemm_kernel<Shape>, dim3(grid_), dim3(Shape::kThreads), 0, context.stream(0), args, dies_,
                         remap_);
    });
  }

  CheckResult check(Context& context) override {
    const std::vector<std::int64_t> rows =
        gemm::sample_rows(m_, gemm::automatic_check_rows(check_rows_, m_, k_, n_));
    std::vector<std::vector<float>> a_rows;
    for (std::int64_t row : rows) a_rows.push_back(copy_to_host(context, 0, a_ + row * k_, static_cast<std::size_t>(k_)));
    const std::vector<float> b = copy_to_host(context, 0, b_, static_cast<std::size_t>(k_ * n_));
    const std::vector<double> expected = gemm::reference_rows(a_rows, b, k_, n_);
    const std::vector<float> got = gemm::copy_rows(context, 0, c_, n_, 0, n_, rows);
    return compare_relative(got, expected, gemm::fp16_gemm_tolerance(k_), "C: " + gemm::rows_detail(rows.size(), m_, n_));
  }

  void derive_metrics(const Context& /*context*/, const Timing& timing, nlohmann::json& metrics) const override {
    const double flops = 2.0 * static_cast<double>(m_) * static_cast<double>(n_) * static_cast<double>(k_);
    metrics["counted_flops"] = flops;
    metrics["gemm_TFLOPs_median"] = flops / timing.median_ns / 1e3;
    metrics["gemm_TFLOPs_mean"] = flops / timing.mean_ns / 1e3;
    metrics["min_traffic_bytes"] = 2.0 * static_cast<double>(m_ * k_ + k_ * n_ + m_ * n_);
    metrics["workgroups"] = grid_;
    metrics["tiles"] = tiles_m_ * tiles_n_;
    metrics["remap_dies"] = dies_;
  }

 private:
  std::int64_t m_, n_, k_;
  gemm::ShapeId shape_;
  int block_m_, block_n_, block_k_;
  int group_m_;
  int workgroups_;
  bool persistent_;
  gemm::Remap remap_;
  int dies_;
  std::int64_t check_rows_;
  int tiles_m_ = 0, tiles_n_ = 0;
  int grid_ = 0;
  __half* a_ = nullptr;
  __half* b_ = nullptr;
  __half* c_ = nullptr;
};

}  // namespace

CaseInfo gemm_case() {
  CaseInfo info;
  info.name = "gemm";
  info.kind = "pattern";
  info.description = "persistent tiled fp16 GEMM (fp32 accumulation, fp16 C) in Tessera's grouped tile order, "
                     "optional chiplet swizzle of workgroup ids";
  info.params = {
      {"m", ParamType::integer, "4096", "rows of A and C; a multiple of block_m"},
      {"n", ParamType::integer, "4096", "columns of B and C; a multiple of block_n"},
      {"k", ParamType::integer, "4096", "columns of A, rows of B; a multiple of block_k"},
      {"block_m", ParamType::integer, "128", "tile rows (tiles: 128x128x32, 128x64x32, 64x64x32)"},
      {"block_n", ParamType::integer, "128", "tile columns"},
      {"block_k", ParamType::integer, "32", "K-loop step"},
      {"group_m", ParamType::integer, "6", "row-blocks per group of the tile order (GROUP_SIZE_M; Tessera's default)"},
      {"workgroups", ParamType::integer, "0", "persistent grid; 0: one per CU/SM (Tessera: one per CU)"},
      {"persistent", ParamType::integer, "1", "1: the persistent grid loops over tiles; 0: one workgroup per tile"},
      {"xcd_remap", ParamType::text, "none", "workgroup id remap: none or chiplet_swizzle (Tessera's xcd_remap)"},
      {"dies", ParamType::integer, "0",
       "dies of the chiplet swizzle; 0: Tessera's die count for this platform (NVIDIA: 2 L2 partitions, AMD: 8 XCDs)"},
      {"check_rows", ParamType::integer, "0",
       "rows of C checked against the host reference, spread over m; 0: 8 to 64, as the host affords (~1 G multiply-adds)"},
  };
  info.make = [](const Params& params, int) { return std::make_unique<Gemm>(params); };
  info.tessera_workload = [](const Params& params, int) {
    return nlohmann::json{{"kind", "gemm"},
                          {"m", params.integer("m")},
                          {"n", params.integer("n")},
                          {"k", params.integer("k")},
                          {"dtype", "fp16"},
                          {"block_m", params.integer("block_m")},
                          {"block_n", params.integer("block_n")},
                          {"block_k", params.integer("block_k")},
                          {"group_m", params.integer("group_m")},
                          {"workgroups", params.integer("workgroups")},
                          {"persistent", params.integer("persistent") != 0},
                          {"xcd_remap", params.text("xcd_remap")}};
  };
  return info;
}

}  // namespace tk

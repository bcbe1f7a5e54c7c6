// kstep_load (microbenchmark, 1 rank): the load round trip of one K-step of the suite's GEMM tile loop, with no
// matrix work. Every workgroup runs the K-loop of patterns/gemm_tile.h accumulate_tile exactly (fetch_blocks: one
// A block, block_m x block_k, and one B block, block_k x block_n, as coalesced 16-byte loads into registers;
// store_stage into the other shared-memory stage; one barrier per step) but without multiply_stage, so each step is
// "issue the step's loads, wait for them, store them, barrier": the latency a workgroup of the GEMM pays per step
// when nothing hides it. What it calibrates: gpu.memory.l2.hit_latency as the GEMM loads see it on a busy GPU (docs/validation.md, fit `kstep`); it is
// never run as a Tessera workload.
//
// Workgroup w loads the blocks of tile (w mod tiles_m, (w / tiles_m) mod tiles_n) of A (tiles_m * block_m rows by
// k) and B (k by tiles_n * block_n), k / block_k steps, `passes` times over. Working set = 2 * k * (tiles_m *
// block_m + tiles_n * block_n) bytes: inside the L2 (small k, many passes) the steps are L2 hits after the first
// pass; far beyond it (large k, one pass) each step's blocks are new and come from HBM for the first workgroup that
// touches them, as in the GEMM (the other workgroups sharing an A row-block or a B column-block hit them in L2).
//
// The check is exact: each workgroup writes the A part of its last stage to `out`, which must equal the A block of
// its last step.
#include "harness/device_data.h"
#include "harness/timing.h"
#include "patterns/gemm_cases.h"
#include "patterns/gemm_launch.h"
#include "patterns/gemm_tile.h"

namespace tk {

namespace {

template <class Shape>
__global__ void TK_GEMM_LAUNCH_BOUNDS(Shape::kThreads)
    kstep_load_kernel(const __half* a_matrix, const __half* b_matrix, int tiles_m, int tiles_n, int k, int passes,
                      __half* out) {
  __shared__ gemm::SharedStorage<Shape> shared;
  __half* stages = reinterpret_cast<__half*>(shared.bytes);
  gemm::ASlabs a;
  a.slab[0] = a_matrix;
  a.ld = k;
  a.slabs = 1;
  a.steps_per_slab = k / Shape::kBlockK;
  gemm::BOperand b;
  b.data = b_matrix;
  b.ld = tiles_n * Shape::kBlockN;
  const int pid_m = static_cast<int>(blockIdx.x) % tiles_m;
  const int pid_n = (static_cast<int>(blockIdx.x) / tiles_m) % tiles_n;
  const int steps = a.steps_per_slab * passes;
  gemm::StagedBlocks<Shape> staged;
  gemm::fetch_blocks<Shape>(a, b, tiles_m, pid_m, pid_n, 0, 0, staged);
  gemm::store_stage<Shape>(stages, staged);
  __syncthreads();
  for (int step = 0; step + 1 < steps; ++step) {
    const int next_kk = (step + 1) % a.steps_per_slab;
    gemm::fetch_blocks<Shape>(a, b, tiles_m, pid_m, pid_n, 0, next_kk, staged);
    gemm::store_stage<Shape>(stages + ((step + 1) & 1) * Shape::kStageHalves, staged);
    __syncthreads();
  }
  // The A block of the last stage, row-major block_m x block_k.
  const __half* last = stages + ((steps - 1) & 1) * Shape::kStageHalves;
  __half* mine = out + static_cast<std::size_t>(blockIdx.x) * Shape::kBlockM * Shape::kBlockK;
  for (int i = static_cast<int>(threadIdx.x); i < Shape::kBlockM * Shape::kBlockK; i += Shape::kThreads) {
    mine[i] = last[(i / Shape::kBlockK) * Shape::kLdA + i % Shape::kBlockK];
  }
}

class KstepLoad final : public Case {
 public:
  explicit KstepLoad(const Params& params)
      : shape_(gemm::parse_shape(params.integer("block_m"), params.integer("block_n"), params.integer("block_k"))),
        block_m_(static_cast<int>(params.integer("block_m"))),
        block_n_(static_cast<int>(params.integer("block_n"))),
        block_k_(static_cast<int>(params.integer("block_k"))),
        k_(static_cast<int>(params.integer("k"))),
        tiles_m_(static_cast<int>(params.integer("tiles_m"))),
        tiles_n_(static_cast<int>(params.integer("tiles_n"))),
        passes_(static_cast<int>(params.integer("passes"))),
        workgroups_(static_cast<int>(params.integer("workgroups"))) {
    gemm::require_range("k", params.integer("k"), block_k_, 1 << 20);
    gemm::require_range("tiles_m", params.integer("tiles_m"), 1, 4096);
    gemm::require_range("tiles_n", params.integer("tiles_n"), 1, 4096);
    gemm::require_range("passes", params.integer("passes"), 1, 1 << 16);
    gemm::require_range("workgroups", params.integer("workgroups"), 0, 1 << 16);
    if (k_ % block_k_ != 0) throw std::invalid_argument("kstep_load: k must be a multiple of block_k");
  }

  void setup(Context& context) override {
    gemm::with_shape(shape_, [&](auto shape) {
      using Shape = decltype(shape);
      resident_ = gemm::resident_workgroups(context, 0, kstep_load_kernel<Shape>, Shape::kThreads);
    });
    if (workgroups_ == 0) workgroups_ = resident_;
    a_ = context.allocate<__half>(0, a_count());
    b_ = context.allocate<__half>(0, b_count());
    out_ = context.allocate<__half>(0, out_count());
    fill_uniform(context, 0, a_, a_count(), context.seed() * 1000 + 21, -1.0f, 1.0f);
    fill_uniform(context, 0, b_, b_count(), context.seed() * 1000 + 22, -1.0f, 1.0f);
    HIP_CHECK(hipStreamSynchronize(context.stream(0)));
  }

  void poison_outputs(Context& context) override { poison(context, 0, out_, out_count() * sizeof(__half)); }

  void enqueue(Context& context, int /*rank*/) override {
    gemm::with_shape(shape_, [&](auto shape) {
      using Shape = decltype(shape);
      hipLaunchKernelGGL(kstep_load_kernel<Shape>, dim3(workgroups_), dim3(Shape::kThreads), 0, context.stream(0), a_,
                         b_, tiles_m_, tiles_n_, k_, passes_, out_);
    });
  }

  CheckResult check(Context& context) override {
    const std::vector<float> a = copy_to_host(context, 0, a_, a_count());
    const int last_kk = (k_ / block_k_ * passes_ - 1) % (k_ / block_k_);
    std::vector<double> expected;
    expected.reserve(out_count());
    for (int w = 0; w < workgroups_; ++w) {
      const int pid_m = w % tiles_m_;
      for (int r = 0; r < block_m_; ++r) {
        for (int c = 0; c < block_k_; ++c) {
          expected.push_back(a[(static_cast<std::size_t>(pid_m) * block_m_ + r) * k_ + last_kk * block_k_ + c]);
        }
      }
    }
    return compare_relative(copy_to_host(context, 0, out_, out_count()), expected, 0.0,
                            "every workgroup's last staged A block = the A block of its last step, exact");
  }

  void derive_metrics(const Context& /*context*/, const Timing& timing, nlohmann::json& metrics) const override {
    const double steps = static_cast<double>(k_ / block_k_) * passes_;
    const double step_bytes = 2.0 * (static_cast<double>(block_m_) + block_n_) * block_k_;
    metrics["steps_per_workgroup"] = steps;
    metrics["step_bytes"] = step_bytes;
    metrics["working_set_bytes"] = 2.0 * k_ * (static_cast<double>(tiles_m_) * block_m_ + static_cast<double>(tiles_n_) * block_n_);
    metrics["ns_per_step_mean"] = timing.mean_ns / steps;
    metrics["ns_per_step_median"] = timing.median_ns / steps;
    metrics["workgroups"] = workgroups_;
    metrics["resident_workgroups"] = resident_;
    metrics["load_GBps_mean"] = step_bytes * steps * workgroups_ / timing.mean_ns;
  }

 private:
  std::size_t a_count() const { return static_cast<std::size_t>(tiles_m_) * block_m_ * k_; }
  std::size_t b_count() const { return static_cast<std::size_t>(k_) * tiles_n_ * block_n_; }
  std::size_t out_count() const { return static_cast<std::size_t>(workgroups_) * block_m_ * block_k_; }

  gemm::ShapeId shape_;
  int block_m_, block_n_, block_k_;
  int k_, tiles_m_, tiles_n_, passes_;
  int workgroups_;
  int resident_ = 0;
  __half* a_ = nullptr;
  __half* b_ = nullptr;
  __half* out_ = nullptr;
};

}  // namespace

CaseInfo kstep_load_case() {
  CaseInfo info;
  info.name = "kstep_load";
  info.kind = "microbenchmark";
  info.description = "load round trip of one K-step of the GEMM tile loop (A and B blocks into shared memory, no matrix work)";
  info.params = {
      {"block_m", ParamType::integer, "128", "tile rows (tiles: 128x128x32, 128x64x32, 64x64x32)"},
      {"block_n", ParamType::integer, "64", "tile columns"},
      {"block_k", ParamType::integer, "32", "K-loop step"},
      {"k", ParamType::integer, "1024", "columns of A and rows of B; a multiple of block_k"},
      {"tiles_m", ParamType::integer, "8", "row-blocks of A (workgroup w takes row-block w mod tiles_m)"},
      {"tiles_n", ParamType::integer, "16", "column-blocks of B (workgroup w takes (w / tiles_m) mod tiles_n)"},
      {"passes", ParamType::integer, "32", "sweeps of each workgroup over its k / block_k steps"},
      {"workgroups", ParamType::integer, "0", "grid; 0: as many as the GPU holds at once"},
  };
  info.make = [](const Params& params, int) { return std::make_unique<KstepLoad>(params); };
  info.tessera_workload = [](const Params& params, int) {
    return nlohmann::json{
        {"kind", "kstep_load"},
        {"calibrates", "gpu.memory.l2.hit_latency"},
        {"note", "not a Tessera workload: the K-loop of the gemm tile loop without its matrix work; "
                 "ns_per_step = the load round trip of one step's A and B blocks"},
        {"dtype", "fp16"},
        {"block_m", params.integer("block_m")},
        {"block_n", params.integer("block_n")},
        {"block_k", params.integer("block_k")},
        {"k", params.integer("k")},
        {"tiles_m", params.integer("tiles_m")},
        {"tiles_n", params.integer("tiles_n")},
        {"passes", params.integer("passes")}};
  };
  return info;
}

}  // namespace tk

// matrix_rate (microbenchmark, 1 rank): the achieved matrix-unit rate of the suite's GEMM tile loop. Every
// workgroup loads one A block (block_m x block_k) and one B block (block_k x block_n) into both shared-memory
// stages once, then runs the K-loop's inner step (patterns/gemm_tile.h multiply_stage: fragment loads from shared
// memory, 16 x 16 x 16 matrix operations, one barrier per step, alternating stages) `iterations` times with no
// global memory traffic, and finally stores its fp32 accumulators. What it calibrates: Tessera's
// gpu.compute.matrix_efficiency.fp16 (achieved over peak FLOP/s of the tile loop); it is never run as a Tessera
// workload.
//
// The check is exact: the inputs are fresh uniform values in [-4, 4] rounded to integers on the GPU, so every
// product is an integer of magnitude <= 16, every partial sum an integer of magnitude <= 16 * block_k *
// iterations <= 2^24 (iterations <= 32768), exactly representable in fp32 whatever the order or rounding of the
// matrix unit's additions: the result must equal iterations * (A block * B block) exactly.
#include <tuple>

#include "harness/device_data.h"
#include "harness/timing.h"
#include "patterns/gemm_cases.h"
#include "patterns/gemm_launch.h"
#include "patterns/gemm_tile.h"

namespace tk {

namespace {

template <class Shape>
__global__ void TK_GEMM_LAUNCH_BOUNDS(Shape::kThreads)
    matrix_rate_kernel(const __half* a_block, const __half* b_block, float* out, int iterations) {
  __shared__ gemm::SharedStorage<Shape> shared;
  __half* stages = reinterpret_cast<__half*>(shared.bytes);
  gemm::ASlabs a;
  a.slab[0] = a_block;
  a.ld = Shape::kBlockK;
  a.slabs = 1;
  a.steps_per_slab = 1;
  gemm::BOperand b;
  b.data = b_block;
  b.ld = Shape::kBlockN;
  gemm::StagedBlocks<Shape> staged;
  gemm::fetch_blocks<Shape>(a, b, 1, 0, 0, 0, 0, staged);
  gemm::store_stage<Shape>(stages, staged);
  gemm::store_stage<Shape>(stages + Shape::kStageHalves, staged);
  __syncthreads();

  gemm::Accumulators<Shape> acc;
  gemm::zero_accumulators(acc);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    gemm::multiply_stage<Shape>(stages + (iteration & 1) * Shape::kStageHalves, acc);
    __syncthreads();  // as the K-loop: one barrier per block_k step
  }

  // This workgroup's block_m x block_n fp32 result, row-major.
  const int wave = static_cast<int>(threadIdx.x) / kWaveSize;
  float* tile = out + static_cast<std::size_t>(blockIdx.x) * Shape::kBlockM * Shape::kBlockN +
                (wave / Shape::kWavesN) * Shape::kWaveTileM * Shape::kBlockN + (wave % Shape::kWavesN) * Shape::kWaveTileN;
#pragma unroll
  for (int fm = 0; fm < Shape::kFragmentsM; ++fm) {
#pragma unroll
    for (int fn = 0; fn < Shape::kFragmentsN; ++fn) {
      mma::store(tile + fm * mma::kTile * Shape::kBlockN + fn * mma::kTile, Shape::kBlockN, acc.c[fm][fn]);
    }
  }
}

__global__ void round_to_integers_kernel(__half* data, int count) {
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < count;
       i += static_cast<int>(gridDim.x * blockDim.x)) {
    data[i] = __float2half(rintf(__half2float(data[i])));
  }
}

constexpr std::uint64_t kSeedA = 11;
constexpr std::uint64_t kSeedB = 12;
constexpr int kMaxIterations = 32768;  // keeps every partial sum an exact fp32 integer (see the header comment)

class MatrixRate final : public Case {
 public:
  explicit MatrixRate(const Params& params)
      : shape_(gemm::parse_shape(params.integer("block_m"), params.integer("block_n"), params.integer("block_k"))),
        block_m_(static_cast<int>(params.integer("block_m"))),
        block_n_(static_cast<int>(params.integer("block_n"))),
        block_k_(static_cast<int>(params.integer("block_k"))),
        iterations_(static_cast<int>(params.integer("iterations"))),
        workgroups_(static_cast<int>(params.integer("workgroups"))) {
    gemm::require_range("iterations", params.integer("iterations"), 1, kMaxIterations);
    gemm::require_range("workgroups", params.integer("workgroups"), 0, 1 << 16);
  }

  void setup(Context& context) override {
    gemm::with_shape(shape_, [&](auto shape) {
      using Shape = decltype(shape);
      resident_ = gemm::resident_workgroups(context, 0, matrix_rate_kernel<Shape>, Shape::kThreads);
    });
    if (workgroups_ == 0) workgroups_ = resident_;  // every slot of every CU/SM busy
    a_ = context.allocate<__half>(0, static_cast<std::size_t>(block_m_) * block_k_);
    b_ = context.allocate<__half>(0, static_cast<std::size_t>(block_k_) * block_n_);
    out_ = context.allocate<float>(0, out_count());
    for (auto [data, count, seed] : {std::tuple{a_, block_m_ * block_k_, kSeedA}, std::tuple{b_, block_k_ * block_n_, kSeedB}}) {
      fill_uniform(context, 0, data, static_cast<std::size_t>(count), context.seed() * 1000 + seed, -4.0f, 4.0f);
      hipLaunchKernelGGL(round_to_integers_kernel, dim3(16), dim3(256), 0, context.stream(0), data, count);
      HIP_CHECK(hipGetLastError());
    }
    HIP_CHECK(hipStreamSynchronize(context.stream(0)));
  }

  void poison_outputs(Context& context) override { poison(context, 0, out_, out_count() * sizeof(float)); }

  void enqueue(Context& context, int /*rank*/) override {
    gemm::with_shape(shape_, [&](auto shape) {
      using Shape = decltype(shape);
      hipLaunchKernelGGL(matrix_rate_kernel<Shape>, dim3(workgroups_), dim3(Shape::kThreads), 0, context.stream(0),
                         a_, b_, out_, iterations_);
    });
  }

  CheckResult check(Context& context) override {
    const std::vector<float> a = copy_to_host(context, 0, a_, static_cast<std::size_t>(block_m_) * block_k_);
    const std::vector<float> b = copy_to_host(context, 0, b_, static_cast<std::size_t>(block_k_) * block_n_);
    std::vector<double> tile(static_cast<std::size_t>(block_m_) * block_n_, 0.0);
    for (int i = 0; i < block_m_; ++i) {
      for (int kk = 0; kk < block_k_; ++kk) {
        for (int j = 0; j < block_n_; ++j) {
          tile[static_cast<std::size_t>(i) * block_n_ + j] +=
              static_cast<double>(a[static_cast<std::size_t>(i) * block_k_ + kk]) * b[static_cast<std::size_t>(kk) * block_n_ + j];
        }
      }
    }
    std::vector<double> expected;
    expected.reserve(out_count());
    for (int w = 0; w < workgroups_; ++w) {
      for (double value : tile) expected.push_back(value * iterations_);
    }
    return compare_relative(copy_to_host(context, 0, out_, out_count()), expected, 0.0,
                            "every workgroup's tile = iterations x (A block x B block), exact (integer inputs)");
  }

  void derive_metrics(const Context& /*context*/, const Timing& timing, nlohmann::json& metrics) const override {
    const double flops = 2.0 * block_m_ * block_n_ * block_k_ * static_cast<double>(iterations_) * workgroups_;
    metrics["counted_flops"] = flops;
    metrics["matrix_TFLOPs_median"] = flops / timing.median_ns / 1e3;
    metrics["matrix_TFLOPs_mean"] = flops / timing.mean_ns / 1e3;
    metrics["workgroups"] = workgroups_;
    metrics["resident_workgroups"] = resident_;
  }

 private:
  std::size_t out_count() const { return static_cast<std::size_t>(workgroups_) * block_m_ * block_n_; }

  gemm::ShapeId shape_;
  int block_m_, block_n_, block_k_;
  int iterations_;
  int workgroups_;
  int resident_ = 0;
  __half* a_ = nullptr;
  __half* b_ = nullptr;
  float* out_ = nullptr;
};

}  // namespace

CaseInfo matrix_rate_case() {
  CaseInfo info;
  info.name = "matrix_rate";
  info.kind = "microbenchmark";
  info.description = "achieved fp16 matrix-unit rate of the GEMM tile loop on operands resident in shared memory";
  info.params = {
      {"block_m", ParamType::integer, "128", "tile rows (tiles: 128x128x32, 128x64x32, 64x64x32)"},
      {"block_n", ParamType::integer, "128", "tile columns"},
      {"block_k", ParamType::integer, "32", "K-loop step"},
      {"iterations", ParamType::integer, "8192", "block_k steps per workgroup (at most 32768)"},
      {"workgroups", ParamType::integer, "0", "grid; 0: as many as the GPU holds at once (every slot of every CU/SM)"},
      {"kernel", ParamType::text, "",
       "the Tessera kernel whose inner loop this tile loop is (gemm, gemm_all_scatter, ...): the fit writes "
       "gpu.compute.kernel_efficiency for it at workgroups / SMs resident per SM; empty: matrix_efficiency only"},
  };
  info.make = [](const Params& params, int) { return std::make_unique<MatrixRate>(params); };
  info.tessera_workload = [](const Params& params, int) {
    nlohmann::json workload{
        {"kind", "matrix_rate"},
        {"calibrates", "gpu.compute.matrix_efficiency.fp16"},
        {"note", "not a Tessera workload: the K-loop step of the gemm tile loop (block_m x block_n x block_k fp16, "
                 "fp32 accumulation) on shared-memory operands, repeated; matrix_efficiency = achieved / peak FLOP/s"},
        {"dtype", "fp16"},
        {"block_m", params.integer("block_m")},
        {"block_n", params.integer("block_n")},
        {"block_k", params.integer("block_k")}};
    if (!params.text("kernel").empty()) workload["kernel"] = params.text("kernel");
    return workload;
  };
  return info;
}

}  // namespace tk

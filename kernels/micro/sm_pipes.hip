// sm_pipes (microbenchmark, 1 rank): the rates and latencies of one CU's (SM's) pipes, in clock cycles of the CU, the
// figures of Tessera's structural compute model (gpu.compute.pipes, docs/config-reference.md). Every workgroup of
// `waves` waves loops `iterations` times over one pipe's operation, `chain` independent operations per wave and
// iteration, and records the CU's cycle counter (clock64) around its loop; the grid is `workgroups_per_cu` per CU.
//
// | pipe | one operation of a wave | chain 0: a dependent chain (latency) |
// |---|---|---|
// | matrix | a 16 x 16 x 16 fp16 multiply-accumulate into fp32 (tk::mma, wmma on NVIDIA): 8192 FLOP | the same accumulator |
// | lds | a 16-byte shared-memory load per lane, 512 contiguous bytes per wave (conflict-free) | a 4-byte load whose address is the previous load's value |
// | sfu | exp2f per lane | - |
// | vector | fmaf per lane | - |
// | barrier | __syncthreads() (chain ignored) | - |
//
// Reported (`metrics`): cycles per iteration (the median over workgroups, their min and max), and from it the CU's
// rate: workgroups_per_cu x waves x chain x (work of one operation) per cycle; with chain 0 (one wave, one workgroup
// per CU) the cycles per iteration are the operation's latency. The check is exact: every lane's result is recomputed
// on the host (integers for the matrix and shared-memory pipes, IEEE fmaf for vector, exp2 within 2 ulp for sfu).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "harness/device_data.h"
#include "harness/timing.h"
#include "micro/micro_cases.h"
#include "port/matrix_unit.h"

namespace tk {

namespace {

enum class Pipe { matrix, lds, sfu, vector, barrier };

constexpr int kMaxChain = 8;
constexpr int kLdsVectors = 1024;                    // 16 KiB of uint4 in shared memory
constexpr int kLdsWords = kLdsVectors * 4;           // the same as 4-byte words
constexpr int kMaxIterations = 1 << 20;              // matrix: 16 x iterations stays an exact fp32 integer
constexpr std::uint32_t kWordSalt = 2654435761u;     // word j of the shared array holds j * salt (load mode)

__device__ inline std::uint32_t lds_word(int j) { return static_cast<std::uint32_t>(j) * kWordSalt; }

template <int Chain>
__global__ void __launch_bounds__(1024)
    matrix_kernel(const __half* ones, float* out, std::uint32_t* cycles, int iterations) {
  mma::FragmentA a;
  mma::FragmentB<mma::RowMajor> b;
  mma::load_a(a, ones, mma::kTile);
  mma::load_b(b, ones, mma::kTile);
  mma::Accumulator acc[Chain == 0 ? 1 : Chain];
  constexpr int kAccumulators = Chain == 0 ? 1 : Chain;
#pragma unroll
  for (int c = 0; c < kAccumulators; ++c) mma::zero(acc[c]);
  __syncthreads();
  const long long start = clock64();
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int c = 0; c < kAccumulators; ++c) mma::multiply_add(acc[c], a, b);
  }
  const long long end = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = static_cast<std::uint32_t>(end - start);
  // Each wave stores every accumulator, a 16 x 16 fp32 tile each, so that none of the products can be dropped.
  const int wave = static_cast<int>(threadIdx.x) / kWaveSize;
  float* tiles = out + (static_cast<std::size_t>(blockIdx.x) * (blockDim.x / kWaveSize) + wave) * kAccumulators * 256;
#pragma unroll
  for (int c = 0; c < kAccumulators; ++c) mma::store(tiles + c * 256, mma::kTile, acc[c]);
}

template <int Chain>
__global__ void __launch_bounds__(1024) lds_kernel(std::uint32_t* out, std::uint32_t* cycles, int iterations) {
  __shared__ uint4 vectors[kLdsVectors];
  std::uint32_t* words = reinterpret_cast<std::uint32_t*>(vectors);
  for (int j = static_cast<int>(threadIdx.x); j < kLdsWords; j += static_cast<int>(blockDim.x)) {
    // Chain 0: word j holds the next index of its lane's chase, 32 words on (same bank, the next row).
    words[j] = Chain == 0 ? static_cast<std::uint32_t>((j + 32) % kLdsWords) : lds_word(j);
  }
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x) % kWaveSize;
  std::uint32_t result = 0;
  const long long start = clock64();
  if (Chain == 0) {
    std::uint32_t index = static_cast<std::uint32_t>(lane);
    for (int i = 0; i < iterations; ++i) index = words[index];
    result = index;
  } else {
    const int wave = static_cast<int>(threadIdx.x) / kWaveSize;
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
      for (int c = 0; c < (Chain == 0 ? 1 : Chain); ++c) {
        const uint4 v = vectors[((i * kMaxChain + c + wave) * kWaveSize + lane) % kLdsVectors];
        result ^= v.x ^ v.y ^ v.z ^ v.w;
      }
    }
  }
  const long long end = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = static_cast<std::uint32_t>(end - start);
  out[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = result;
}

template <int Chain>
__global__ void __launch_bounds__(1024) sfu_kernel(float* out, std::uint32_t* cycles, int iterations) {
  float x[Chain];
#pragma unroll
  for (int c = 0; c < Chain; ++c) x[c] = 0.125f * static_cast<float>(c + 1);
  const long long start = clock64();
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int c = 0; c < Chain; ++c) x[c] = exp2f(-x[c]);
  }
  const long long end = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = static_cast<std::uint32_t>(end - start);
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < Chain; ++c) sum += x[c];
  out[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
}

template <int Chain>
__global__ void __launch_bounds__(1024) vector_kernel(float* out, std::uint32_t* cycles, int iterations, float a, float b) {
  float x[Chain];
#pragma unroll
  for (int c = 0; c < Chain; ++c) x[c] = static_cast<float>(c + 1);
  const long long start = clock64();
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int c = 0; c < Chain; ++c) x[c] = fmaf(x[c], a, b);
  }
  const long long end = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = static_cast<std::uint32_t>(end - start);
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < Chain; ++c) sum += x[c];
  out[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
}

__global__ void __launch_bounds__(1024) barrier_kernel(std::uint32_t* out, std::uint32_t* cycles, int iterations) {
  const long long start = clock64();
  for (int i = 0; i < iterations; ++i) __syncthreads();
  const long long end = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = static_cast<std::uint32_t>(end - start);
  out[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = static_cast<std::uint32_t>(iterations);
}

__global__ void fill_ones_kernel(__half* data, int count) {
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < count; i += static_cast<int>(gridDim.x * blockDim.x)) {
    data[i] = __float2half(1.0f);
  }
}

Pipe parse_pipe(const std::string& name) {
  if (name == "matrix") return Pipe::matrix;
  if (name == "lds") return Pipe::lds;
  if (name == "sfu") return Pipe::sfu;
  if (name == "vector") return Pipe::vector;
  if (name == "barrier") return Pipe::barrier;
  throw std::invalid_argument("pipe: matrix, lds, sfu, vector or barrier, got '" + name + "'");
}

// Work of one operation of one wave, in the unit of the pipe's rate.
double work_per_operation(Pipe pipe) {
  switch (pipe) {
    case Pipe::matrix: return 2.0 * 16 * 16 * 16;          // FLOP
    case Pipe::lds: return 16.0 * kWaveSize;               // bytes
    case Pipe::sfu:
    case Pipe::vector: return static_cast<double>(kWaveSize);  // lane-operations
    case Pipe::barrier: return 1.0;
  }
  return 0.0;
}

const char* work_unit(Pipe pipe) {
  switch (pipe) {
    case Pipe::matrix: return "flops_per_clock_per_cu";
    case Pipe::lds: return "bytes_per_clock_per_cu";
    case Pipe::sfu:
    case Pipe::vector: return "ops_per_clock_per_cu";
    case Pipe::barrier: return "barriers_per_clock_per_cu";
  }
  return "";
}

class SmPipes final : public Case {
 public:
  explicit SmPipes(const Params& params)
      : pipe_name_(params.text("pipe")),
        pipe_(parse_pipe(pipe_name_)),
        waves_(static_cast<int>(params.integer("waves"))),
        per_cu_(static_cast<int>(params.integer("workgroups_per_cu"))),
        chain_(static_cast<int>(params.integer("chain"))),
        iterations_(static_cast<int>(params.integer("iterations"))) {
    // At most 1024 threads per workgroup: 32 waves on NVIDIA, 16 on AMD (checked where the run starts, so that one
    // suite file serves both).
    if (waves_ < 1 || waves_ > 32) throw std::invalid_argument("waves: 1 to 32");
    if (per_cu_ < 1 || per_cu_ > 32) throw std::invalid_argument("workgroups_per_cu: 1 to 32");
    if (chain_ < 0 || chain_ > kMaxChain) throw std::invalid_argument("chain: 0 (a latency chain) to 8");
    if (chain_ == 0 && (pipe_ == Pipe::sfu || pipe_ == Pipe::vector)) {
      throw std::invalid_argument("chain: 0 is a latency chain of the matrix and lds pipes only");
    }
    if (iterations_ < 1 || iterations_ > kMaxIterations) throw std::invalid_argument("iterations: 1 to 1048576");
  }

  void setup(Context& context) override {
    if (waves_ * kWaveSize > 1024) {
      throw std::invalid_argument("waves: at most " + std::to_string(1024 / kWaveSize) + " waves of " +
                                  std::to_string(kWaveSize) + " lanes (1024 threads per workgroup)");
    }
    int compute_units = 0;
    HIP_CHECK(hipDeviceGetAttribute(&compute_units, hipDeviceAttributeMultiprocessorCount, context.device(0)));
    workgroups_ = compute_units * per_cu_;
    ones_ = context.allocate<__half>(0, 256);
    hipLaunchKernelGGL(fill_ones_kernel, dim3(1), dim3(256), 0, context.stream(0), ones_, 256);
    HIP_CHECK(hipGetLastError());
    cycles_ = context.allocate<std::uint32_t>(0, static_cast<std::size_t>(workgroups_));
    out_words_ = context.allocate<std::uint32_t>(0, out_count());
    HIP_CHECK(hipStreamSynchronize(context.stream(0)));
  }

  void poison_outputs(Context& context) override {
    poison(context, 0, out_words_, out_count() * sizeof(std::uint32_t));
    poison(context, 0, cycles_, static_cast<std::size_t>(workgroups_) * sizeof(std::uint32_t));
  }

  void enqueue(Context& context, int /*rank*/) override {
    const dim3 grid(static_cast<unsigned>(workgroups_));
    const dim3 block(static_cast<unsigned>(waves_ * kWaveSize));
    hipStream_t s = context.stream(0);
    float* out_floats = reinterpret_cast<float*>(out_words_);
    switch (pipe_) {
      case Pipe::matrix: launch_matrix(grid, block, s, out_floats); break;
      case Pipe::lds: launch_lds(grid, block, s); break;
      case Pipe::sfu: launch_float<true>(grid, block, s, out_floats); break;
      case Pipe::vector: launch_float<false>(grid, block, s, out_floats); break;
      case Pipe::barrier: hipLaunchKernelGGL(barrier_kernel, grid, block, 0, s, out_words_, cycles_, iterations_); break;
    }
    HIP_CHECK(hipGetLastError());
  }

  CheckResult check(Context& context) override {
    const std::vector<std::uint32_t> cycles = copy_words_to_host(context, 0, cycles_, static_cast<std::size_t>(workgroups_));
    sorted_cycles_ = cycles;
    std::sort(sorted_cycles_.begin(), sorted_cycles_.end());
    const std::vector<std::uint32_t> words = copy_words_to_host(context, 0, out_words_, out_count());
    switch (pipe_) {
      case Pipe::matrix: return check_matrix(words);
      case Pipe::lds: return compare_exact(words, expected_lds(), "every lane's xor (or chase index) of its loads");
      case Pipe::sfu:
      case Pipe::vector: return check_float(words);
      case Pipe::barrier:
        return compare_exact(words, std::vector<std::uint32_t>(out_count(), static_cast<std::uint32_t>(iterations_)),
                             "every thread passed every barrier");
    }
    return {};
  }

  void derive_metrics(const Context& /*context*/, const Timing& /*timing*/, nlohmann::json& metrics) const override {
    if (sorted_cycles_.empty()) return;
    const double iterations = iterations_;
    const double median = sorted_cycles_[sorted_cycles_.size() / 2] / iterations;
    metrics["pipe"] = pipe_name_;
    metrics["workgroups"] = workgroups_;
    metrics["cycles_per_iteration_median"] = median;
    metrics["cycles_per_iteration_min"] = sorted_cycles_.front() / iterations;
    metrics["cycles_per_iteration_max"] = sorted_cycles_.back() / iterations;
    if (chain_ == 0) {
      metrics["latency_cycles"] = median;
    } else if (pipe_ == Pipe::barrier) {
      metrics["cycles_per_barrier"] = median;
    } else {
      metrics[work_unit(pipe_)] = per_cu_ * waves_ * chain_ * work_per_operation(pipe_) / median;
    }
  }

 private:
  std::size_t out_count() const {
    // matrix: a 256-float tile per accumulator of each wave; the others: one word per thread.
    const std::size_t per_workgroup = pipe_ == Pipe::matrix ? static_cast<std::size_t>(waves_) * std::max(chain_, 1) * 256
                                                            : static_cast<std::size_t>(waves_) * kWaveSize;
    return static_cast<std::size_t>(workgroups_) * per_workgroup;
  }

  void launch_matrix(dim3 grid, dim3 block, hipStream_t s, float* out) {
#define TK_PIPES_MATRIX(C) \
  case C: hipLaunchKernelGGL(matrix_kernel<C>, grid, block, 0, s, ones_, out, cycles_, iterations_); break;
    switch (chain_) {
      TK_PIPES_MATRIX(0) TK_PIPES_MATRIX(1) TK_PIPES_MATRIX(2) TK_PIPES_MATRIX(3) TK_PIPES_MATRIX(4)
      TK_PIPES_MATRIX(5) TK_PIPES_MATRIX(6) TK_PIPES_MATRIX(7) TK_PIPES_MATRIX(8)
    }
#undef TK_PIPES_MATRIX
  }
  void launch_lds(dim3 grid, dim3 block, hipStream_t s) {
#define TK_PIPES_LDS(C) \
  case C: hipLaunchKernelGGL(lds_kernel<C>, grid, block, 0, s, out_words_, cycles_, iterations_); break;
    switch (chain_) {
      TK_PIPES_LDS(0) TK_PIPES_LDS(1) TK_PIPES_LDS(2) TK_PIPES_LDS(3) TK_PIPES_LDS(4)
      TK_PIPES_LDS(5) TK_PIPES_LDS(6) TK_PIPES_LDS(7) TK_PIPES_LDS(8)
    }
#undef TK_PIPES_LDS
  }
  template <bool Sfu>
  void launch_float(dim3 grid, dim3 block, hipStream_t s, float* out) {
#define TK_PIPES_FLOAT(C)                                                                                    \
  case C:                                                                                                     \
    if (Sfu) {                                                                                                \
      hipLaunchKernelGGL(sfu_kernel<C>, grid, block, 0, s, out, cycles_, iterations_);                        \
    } else {                                                                                                  \
      hipLaunchKernelGGL(vector_kernel<C>, grid, block, 0, s, out, cycles_, iterations_, kFmaA, kFmaB);        \
    }                                                                                                         \
    break;
    switch (chain_) {
      TK_PIPES_FLOAT(1) TK_PIPES_FLOAT(2) TK_PIPES_FLOAT(3) TK_PIPES_FLOAT(4)
      TK_PIPES_FLOAT(5) TK_PIPES_FLOAT(6) TK_PIPES_FLOAT(7) TK_PIPES_FLOAT(8)
    }
#undef TK_PIPES_FLOAT
  }

  // Every element of every accumulator is iterations x 16 (ones times ones over k = 16).
  CheckResult check_matrix(const std::vector<std::uint32_t>& words) const {
    std::vector<float> got(words.size());
    std::memcpy(got.data(), words.data(), words.size() * sizeof(float));
    const double value = 16.0 * iterations_;
    return compare_relative(got, std::vector<double>(got.size(), value), 0.0,
                            "every stored accumulator = 16 x iterations (ones times ones), exact");
  }

  std::vector<std::uint32_t> expected_lds() const {
    const int threads = waves_ * kWaveSize;
    std::vector<std::uint32_t> per_thread(static_cast<std::size_t>(threads));
    for (int t = 0; t < threads; ++t) {
      const int lane = t % kWaveSize;
      const int wave = t / kWaveSize;
      std::uint32_t result = 0;
      if (chain_ == 0) {
        result = static_cast<std::uint32_t>((lane + 32LL * iterations_) % kLdsWords);
      } else {
        for (int i = 0; i < iterations_; ++i) {
          for (int c = 0; c < chain_; ++c) {
            const int v = static_cast<int>((static_cast<long long>(i * kMaxChain + c + wave) * kWaveSize + lane) % kLdsVectors);
            for (int w = 0; w < 4; ++w) result ^= static_cast<std::uint32_t>(4 * v + w) * kWordSalt;
          }
        }
      }
      per_thread[static_cast<std::size_t>(t)] = result;
    }
    std::vector<std::uint32_t> expected;
    expected.reserve(out_count());
    for (int w = 0; w < workgroups_; ++w) expected.insert(expected.end(), per_thread.begin(), per_thread.end());
    return expected;
  }

  CheckResult check_float(const std::vector<std::uint32_t>& words) const {
    std::vector<float> got(words.size());
    std::memcpy(got.data(), words.data(), words.size() * sizeof(float));
    double sum = 0.0;
    for (int c = 0; c < chain_; ++c) {
      float x = pipe_ == Pipe::sfu ? 0.125f * static_cast<float>(c + 1) : static_cast<float>(c + 1);
      for (int i = 0; i < iterations_; ++i) x = pipe_ == Pipe::sfu ? std::exp2(-x) : std::fmaf(x, kFmaA, kFmaB);
      sum += x;
    }
    // vector: IEEE fmaf on both sides, and the sum of chain values in the same order: exact up to the sum's
    // rounding; sfu: exp2f is within 2 ulp of exp2 (CUDA Programming Guide, "Mathematical Functions").
    return compare_relative(got, std::vector<double>(got.size(), sum), pipe_ == Pipe::sfu ? 1e-5 : 1e-6,
                            "every thread's sum of its chains, recomputed on the host");
  }

  static constexpr float kFmaA = 0.5f;
  static constexpr float kFmaB = 0.25f;
  std::string pipe_name_;
  Pipe pipe_;
  int waves_, per_cu_, chain_, iterations_;
  int workgroups_ = 0;
  __half* ones_ = nullptr;
  std::uint32_t* cycles_ = nullptr;
  std::uint32_t* out_words_ = nullptr;
  std::vector<std::uint32_t> sorted_cycles_;
};

}  // namespace

CaseInfo sm_pipes_case() {
  CaseInfo info;
  info.name = "sm_pipes";
  info.kind = "microbenchmark";
  info.description = "one CU's (SM's) pipe rates and latencies in its own clock cycles: matrix, lds, sfu, vector, barrier";
  info.params = {
      {"pipe", ParamType::text, "matrix", "matrix, lds, sfu, vector or barrier"},
      {"waves", ParamType::integer, "8", "waves (warps) per workgroup"},
      {"workgroups_per_cu", ParamType::integer, "1", "workgroups per CU/SM (grid = CUs x this)"},
      {"chain", ParamType::integer, "4", "independent operations per wave and iteration; 0: one dependent chain"},
      {"iterations", ParamType::integer, "4096", "iterations of each workgroup's loop (at most 1048576)"},
  };
  info.make = [](const Params& params, int) { return std::make_unique<SmPipes>(params); };
  info.tessera_workload = [](const Params& params, int) {
    return nlohmann::json{{"kind", "sm_pipes"},
                          {"calibrates", "gpu.compute.pipes"},
                          {"note", "not a Tessera workload: one CU's pipe rate or latency in its clock cycles"},
                          {"pipe", params.text("pipe")},
                          {"waves", params.integer("waves")},
                          {"workgroups_per_cu", params.integer("workgroups_per_cu")},
                          {"chain", params.integer("chain")}};
  };
  return info;
}

}  // namespace tk

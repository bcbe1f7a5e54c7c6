// hbm_stream: one GPU copies `bytes` within its own memory (Tessera: microbench op hbm_stream). Counts bytes read
// plus bytes written, as Tessera's op does. Vectorised 16-byte accesses in a grid-stride loop.
#include "harness/device_data.h"
#include "harness/timing.h"
#include "micro/micro_cases.h"

namespace tk {

namespace {

__global__ void copy_kernel(const float4* source, float4* destination, std::size_t count) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    destination[i] = source[i];
  }
}

class HbmStream final : public Case {
 public:
  explicit HbmStream(const Params& params)
      : bytes_(static_cast<std::size_t>(params.integer("bytes"))),
        workgroups_(static_cast<int>(params.integer("workgroups"))),
        threads_(static_cast<int>(params.integer("threads"))) {
    if (bytes_ == 0 || bytes_ % sizeof(float4) != 0) throw std::invalid_argument("bytes: must be a positive multiple of 16");
    if (threads_ < 32 || threads_ > 1024) throw std::invalid_argument("threads: 32 to 1024");
  }

  void setup(Context& context) override {
    count_ = bytes_ / sizeof(float);
    source_ = context.allocate<float>(0, count_);
    destination_ = context.allocate<float>(0, count_);
    fill_uniform(context, 0, source_, count_, context.seed(), -1.0f, 1.0f);
    if (workgroups_ == 0) {
      hipDeviceProp_t properties{};
      HIP_CHECK(hipGetDeviceProperties(&properties, context.device(0)));
      workgroups_ = 4 * properties.multiProcessorCount;  // enough resident waves per CU to cover HBM latency
    }
  }
  void poison_outputs(Context& context) override { poison(context, 0, destination_, bytes_); }
  void enqueue(Context& context, int /*rank*/) override {
    hipLaunchKernelGGL(copy_kernel, dim3(workgroups_), dim3(threads_), 0, context.stream(0),
                       reinterpret_cast<const float4*>(source_), reinterpret_cast<float4*>(destination_),
                       bytes_ / sizeof(float4));
  }
  CheckResult check(Context& context) override {
    const std::vector<float> got = copy_to_host(context, 0, destination_, count_);
    std::vector<double> expected(count_);
    for (std::size_t i = 0; i < count_; ++i) expected[i] = uniform_value(context.seed(), i, -1.0f, 1.0f);
    return compare_relative(got, expected, 0.0, "copied buffer");
  }
  void derive_metrics(const Context& /*context*/, const Timing& timing, nlohmann::json& metrics) const override {
    const double counted = 2.0 * static_cast<double>(bytes_);
    metrics["counted_bytes"] = counted;
    metrics["workgroups"] = workgroups_;
    metrics["bandwidth_GBps_median"] = counted / timing.median_ns;
    metrics["bandwidth_GBps_mean"] = counted / timing.mean_ns;
  }

 private:
  std::size_t bytes_;
  int workgroups_;
  int threads_;
  std::size_t count_ = 0;
  float* source_ = nullptr;
  float* destination_ = nullptr;
};

}  // namespace

CaseInfo hbm_stream_case() {
  CaseInfo info;
  info.name = "hbm_stream";
  info.kind = "microbenchmark";
  info.description = "one GPU copies a buffer within its HBM; GB/s counts bytes read + written";
  info.params = {{"bytes", ParamType::integer, "1 GiB", "buffer size (each of source and destination)"},
                 {"workgroups", ParamType::integer, "0", "workgroups; 0: 4 per CU/SM"},
                 {"threads", ParamType::integer, "256", "threads per workgroup"}};
  info.make = [](const Params& params, int) { return std::make_unique<HbmStream>(params); };
  info.tessera_workload = [](const Params& params, int) {
    return nlohmann::json{{"kind", "microbench"}, {"op", "hbm_stream"}, {"bytes", std::to_string(params.integer("bytes")) + " B"}};
  };
  return info;
}

}  // namespace tk

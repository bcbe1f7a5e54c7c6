// launch_latency: `iterations` empty kernels of `workgroups` workgroups back to back on one stream (Tessera:
// microbench op launch_latency). latency_ns = time / iterations, the time running from the start event, recorded
// before the first launch, to the stop event after the last kernel: launch, dispatch and teardown all count, as in
// Tessera's span from the first enqueue to the last completion.
//
// mode `stream`: plain launches, enqueued by the host one after another. mode `graph`: the same launches captured
// once in setup into a graph; the timed work launches that graph (Tessera has no graph notion: both modes map to
// its launch_latency op, and the mode is in the result's parameters).
//
// "Empty" but checkable: thread 0 of workgroup 0 adds one to a device counter (kernels on one stream run in order,
// so a plain increment is exact); after the checked run the counter must equal `iterations`. reset() zeroes it.
#include <stdexcept>

#include "harness/device_data.h"
#include "harness/timing.h"
#include "micro/micro_cases.h"

namespace tk {

namespace {

constexpr std::int64_t kMaxGraphLaunches = 100000;  // a graph node per launch: keep capture and instantiation quick

__global__ void counting_empty_kernel(int* counter) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *counter += 1;
}

class LaunchLatency final : public Case {
 public:
  explicit LaunchLatency(const Params& params)
      : iterations_(params.integer("iterations")),
        workgroups_(params.integer("workgroups")),
        use_graph_(params.text("mode") == "graph") {
    const std::string& mode = params.text("mode");
    if (mode != "stream" && mode != "graph") throw std::invalid_argument("mode: stream or graph, not '" + mode + "'");
    if (iterations_ < 1 || iterations_ > 1000000) throw std::invalid_argument("iterations: 1 to 1000000");
    if (use_graph_ && iterations_ > kMaxGraphLaunches) {
      throw std::invalid_argument("iterations: at most 100000 in graph mode (one graph node per launch)");
    }
    if (workgroups_ < 1 || workgroups_ > (1 << 24)) throw std::invalid_argument("workgroups: 1 to 16777216");
  }
  ~LaunchLatency() override {
    // The harness's Context may already be gone; graph objects do not depend on it. Errors are ignored: a
    // destructor must not throw.
    if (graph_exec_ != nullptr) (void)hipGraphExecDestroy(graph_exec_);
    if (graph_ != nullptr) (void)hipGraphDestroy(graph_);
  }
  LaunchLatency(const LaunchLatency&) = delete;
  LaunchLatency& operator=(const LaunchLatency&) = delete;

  void setup(Context& context) override {
    counter_ = context.allocate<int>(0, 1);
    if (!use_graph_) return;
    context.use(0);
    const hipStream_t stream = context.stream(0);
    HIP_CHECK(hipStreamBeginCapture(stream, hipStreamCaptureModeThreadLocal));
    launch_all(stream);
    const hipError_t launched = hipGetLastError();
    HIP_CHECK(hipStreamEndCapture(stream, &graph_));  // ends the capture even when a launch failed
    HIP_CHECK(launched);
    HIP_CHECK(hipGraphInstantiate(&graph_exec_, graph_, nullptr, nullptr, 0));
  }
  void poison_outputs(Context& context) override { poison(context, 0, counter_, sizeof(int)); }
  void reset(Context& context) override {
    context.use(0);
    HIP_CHECK(hipMemsetAsync(counter_, 0, sizeof(int), context.stream(0)));
  }
  void enqueue(Context& context, int /*rank*/) override {
    if (use_graph_) {
      HIP_CHECK(hipGraphLaunch(graph_exec_, context.stream(0)));
    } else {
      launch_all(context.stream(0));
    }
  }
  CheckResult check(Context& context) override {
    const int got = copy_to_host(context, 0, counter_, 1).at(0);
    CheckResult result = compare_exact({static_cast<std::uint32_t>(got)}, {static_cast<std::uint32_t>(iterations_)},
                                       "launch counter");
    if (result.passed) result.detail = "all " + std::to_string(iterations_) + " kernels ran (counter)";
    return result;
  }
  void derive_metrics(const Context& /*context*/, const Timing& timing, nlohmann::json& metrics) const override {
    const double iterations = static_cast<double>(iterations_);
    metrics["workgroups"] = workgroups_;
    metrics["latency_ns_median"] = timing.median_ns / iterations;
    metrics["latency_ns_mean"] = timing.mean_ns / iterations;
  }

 private:
  void launch_all(hipStream_t stream) {
    for (std::int64_t i = 0; i < iterations_; ++i) {
      hipLaunchKernelGGL(counting_empty_kernel, dim3(static_cast<unsigned>(workgroups_)), dim3(1), 0, stream,
                         counter_);
    }
  }

  std::int64_t iterations_;
  std::int64_t workgroups_;
  bool use_graph_;
  int* counter_ = nullptr;
  hipGraph_t graph_ = nullptr;
  hipGraphExec_t graph_exec_ = nullptr;
};

}  // namespace

CaseInfo launch_latency_case() {
  CaseInfo info;
  info.name = "launch_latency";
  info.kind = "microbenchmark";
  info.description = "empty kernels back to back on one stream, plain or as one graph; ns per kernel";
  info.params = {{"iterations", ParamType::integer, "1000", "kernels per timed run"},
                 {"workgroups", ParamType::integer, "1", "workgroups (of one thread) per kernel"},
                 {"mode", ParamType::text, "stream", "stream: plain launches; graph: launches captured once, replayed"}};
  info.make = [](const Params& params, int) { return std::make_unique<LaunchLatency>(params); };
  info.tessera_workload = [](const Params& params, int) {
    return nlohmann::json{{"kind", "microbench"},
                          {"op", "launch_latency"},
                          {"iterations", params.integer("iterations")},
                          {"workgroups", params.integer("workgroups")}};
  };
  return info;
}

}  // namespace tk

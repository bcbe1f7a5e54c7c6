// atomic_add, atomic_xchg: latency of dependent atomics (Tessera: microbench ops of the same names). Each of
// `workgroups` workgroups, one thread each, issues `iterations` atomics on its own counter, each operand computed
// from the value the previous atomic returned, so that no atomic can be issued before the previous one has come
// back. With 2 ranks the counters live on rank 1 and rank 0's GPU issues (remote atomics over the link; rank 1
// enqueues nothing); with 1 rank they live in the GPU's own memory. Counters start at 0 (reset, outside timing).
//
// - atomic_add adds 1, written as "previous < 0 ? 2 : 1": counters never go negative, but the compiler cannot know
//   that, so the operand waits for the previous return.
// - atomic_xchg writes i + 1 in its i-th exchange (from 0), plus "previous < 0 ? 1 : 0" for the same dependency.
//   (Writing "previous + 1" would not count: an exchange returns the value written one exchange before.)
// Either way exchange/add i returns i when the chain is intact: each workgroup records its last return
// (iterations - 1) and the wrapping sum of all its returns (iterations (iterations - 1) / 2 mod 2^32), and its
// counter ends at `iterations`; all three are checked exactly.
//
// latency_ns = time / iterations. The time is the kernel's event time, so it includes one launch (a few us),
// spread over `iterations` atomics; Tessera's span starts at the first workgroup's start.
#include <stdexcept>

#include "harness/device_data.h"
#include "harness/timing.h"
#include "micro/micro_cases.h"

namespace tk {

namespace {

// Each workgroup's counter on its own 256-byte block, so that workgroups share no cache line (Tessera: one flag
// per workgroup).
constexpr std::size_t kCounterStride = 64;
constexpr int kMaxWorkgroups = 65536;

enum class AtomicOp { add, exchange };

__global__ void atomic_add_chain_kernel(int* counters, int iterations, int* last_returned,
                                        std::uint32_t* returned_sums) {
  int* counter = counters + blockIdx.x * kCounterStride;
  int previous = 0;
  std::uint32_t sum = 0;
  for (int i = 0; i < iterations; ++i) {
    previous = atomic_add_system(counter, previous < 0 ? 2 : 1);
    sum += static_cast<std::uint32_t>(previous);
  }
  last_returned[blockIdx.x] = previous;
  returned_sums[blockIdx.x] = sum;
}

__global__ void atomic_exchange_chain_kernel(int* counters, int iterations, int* last_returned,
                                             std::uint32_t* returned_sums) {
  int* counter = counters + blockIdx.x * kCounterStride;
  int previous = 0;
  std::uint32_t sum = 0;
  for (int i = 0; i < iterations; ++i) {
    previous = atomic_exchange_system(counter, i + 1 + (previous < 0 ? 1 : 0));
    sum += static_cast<std::uint32_t>(previous);
  }
  last_returned[blockIdx.x] = previous;
  returned_sums[blockIdx.x] = sum;
}

class AtomicChain final : public Case {
 public:
  AtomicChain(const Params& params, int ranks, AtomicOp op)
      : op_(op),
        home_(ranks == 2 ? 1 : 0),
        iterations_(params.integer("iterations")),
        workgroups_(params.integer("workgroups")) {
    if (iterations_ < 1 || iterations_ > (1 << 24)) throw std::invalid_argument("iterations: 1 to 16777216");
    if (workgroups_ < 1 || workgroups_ > kMaxWorkgroups) throw std::invalid_argument("workgroups: 1 to 65536");
  }

  void setup(Context& context) override {
    counters_ = context.allocate<int>(home_, static_cast<std::size_t>(workgroups_) * kCounterStride);
    last_returned_ = context.allocate<int>(0, static_cast<std::size_t>(workgroups_));
    returned_sums_ = context.allocate<std::uint32_t>(0, static_cast<std::size_t>(workgroups_));
  }
  void poison_outputs(Context& context) override {
    poison(context, home_, counters_, static_cast<std::size_t>(workgroups_) * kCounterStride * sizeof(int));
    poison(context, 0, last_returned_, static_cast<std::size_t>(workgroups_) * sizeof(int));
    poison(context, 0, returned_sums_, static_cast<std::size_t>(workgroups_) * sizeof(std::uint32_t));
  }
  void reset(Context& context) override {
    context.use(home_);
    HIP_CHECK(hipMemsetAsync(counters_, 0, static_cast<std::size_t>(workgroups_) * kCounterStride * sizeof(int),
                             context.stream(home_)));
  }
  void enqueue(Context& context, int rank) override {
    if (rank != 0) return;  // with 2 ranks, rank 1 only holds the counters
    const int iterations = static_cast<int>(iterations_);
    if (op_ == AtomicOp::add) {
      hipLaunchKernelGGL(atomic_add_chain_kernel, dim3(static_cast<unsigned>(workgroups_)), dim3(1), 0,
                         context.stream(0), counters_, iterations, last_returned_, returned_sums_);
    } else {
      hipLaunchKernelGGL(atomic_exchange_chain_kernel, dim3(static_cast<unsigned>(workgroups_)), dim3(1), 0,
                         context.stream(0), counters_, iterations, last_returned_, returned_sums_);
    }
  }
  CheckResult check(Context& context) override {
    const std::size_t workgroups = static_cast<std::size_t>(workgroups_);
    const std::vector<int> counters = copy_to_host(context, home_, counters_, workgroups * kCounterStride);
    const std::vector<int> last = copy_to_host(context, 0, last_returned_, workgroups);
    const std::vector<std::uint32_t> sums = copy_words_to_host(context, 0, returned_sums_, workgroups);
    const std::uint64_t n = static_cast<std::uint64_t>(iterations_);
    const std::uint32_t expected_sum = static_cast<std::uint32_t>(n * (n - 1) / 2);  // 0 + 1 + ... + (n - 1)
    std::vector<std::uint32_t> got, expected;
    for (std::size_t w = 0; w < workgroups; ++w) {
      got.push_back(static_cast<std::uint32_t>(counters[w * kCounterStride]));
      expected.push_back(static_cast<std::uint32_t>(n));
      got.push_back(static_cast<std::uint32_t>(last[w]));
      expected.push_back(static_cast<std::uint32_t>(n - 1));
      got.push_back(sums[w]);
      expected.push_back(expected_sum);
    }
    CheckResult result = compare_exact(got, expected, "per workgroup (final counter, last return, sum of returns)");
    if (result.passed) {
      result.detail = "every counter is " + std::to_string(n) + ", every chain returned 0, 1, ..., " +
                      std::to_string(n - 1) + " (last return and sum of returns; " + std::to_string(workgroups) +
                      " workgroups)";
    }
    return result;
  }
  void derive_metrics(const Context& /*context*/, const Timing& timing, nlohmann::json& metrics) const override {
    const double iterations = static_cast<double>(iterations_);
    metrics["workgroups"] = workgroups_;
    metrics["remote"] = home_ != 0;
    metrics["latency_ns_median"] = timing.median_ns / iterations;
    metrics["latency_ns_mean"] = timing.mean_ns / iterations;
  }

 private:
  AtomicOp op_;
  int home_;  // the rank whose memory holds the counters
  std::int64_t iterations_;
  std::int64_t workgroups_;
  int* counters_ = nullptr;
  int* last_returned_ = nullptr;
  std::uint32_t* returned_sums_ = nullptr;
};

CaseInfo atomic_chain_case(const char* name, const char* description, AtomicOp op) {
  CaseInfo info;
  info.name = name;
  info.kind = "microbenchmark";
  info.description = description;
  info.min_ranks = 1;
  info.max_ranks = 2;
  info.params = {{"iterations", ParamType::integer, "1000", "dependent atomics per workgroup"},
                 {"workgroups", ParamType::integer, "1", "workgroups of one thread, each with its own counter"}};
  info.make = [op](const Params& params, int ranks) { return std::make_unique<AtomicChain>(params, ranks, op); };
  const std::string op_name = name;
  info.tessera_workload = [op_name](const Params& params, int ranks) {
    // peer == gpu: local atomics (also what a one-GPU Tessera system does, which ignores peer).
    return nlohmann::json{{"kind", "microbench"},
                          {"op", op_name},
                          {"iterations", params.integer("iterations")},
                          {"workgroups", params.integer("workgroups")},
                          {"gpu", 0},
                          {"peer", ranks == 2 ? 1 : 0}};
  };
  return info;
}

}  // namespace

CaseInfo atomic_add_case() {
  return atomic_chain_case("atomic_add",
                           "dependent atomic adds on a counter (on rank 1 with 2 ranks, local with 1); ns per atomic",
                           AtomicOp::add);
}
CaseInfo atomic_xchg_case() {
  return atomic_chain_case("atomic_xchg",
                           "dependent atomic exchanges on a counter (on rank 1 with 2 ranks, local with 1); ns per atomic",
                           AtomicOp::exchange);
}

}  // namespace tk

// flag_pingpong: one-way flag latency between two GPUs (Tessera: microbench op flag_pingpong). One workgroup of
// one thread on each rank; they bounce a flag `iterations` times. In round r (1, 2, ...) rank 0 release-stores r into
// rank 1's flag and spin-waits (acquire) until its own flag reaches r; rank 1 waits for its own flag to reach r, then
// release-stores r into rank 0's flag. Each waits only on a flag in its own memory, as in Tessera. The values
// increase, so nothing is reset within a run; reset() zeroes both flags outside the timed region.
//
// latency_ns (one way) = time / (2 x iterations); the time is the slowest rank's event time, so it includes the
// launch of both kernels (a few us) spread over 2 x iterations hops.
//
// Both kernels are on different streams (one per rank), so they run concurrently even when the two ranks share
// one GPU (--devices 0,0): rank 0's kernel spins until rank 1's starts, which never depends on rank 0's finishing.
#include <stdexcept>

#include "harness/device_data.h"
#include "harness/timing.h"
#include "micro/micro_cases.h"

namespace tk {

namespace {

// Each flag on its own 256-byte block (its own cache line on every target).
constexpr std::size_t kFlagInts = 64;

__global__ void pingpong_kernel(int* peer_flag, const int* own_flag, int iterations, int initiator) {
  for (int round = 1; round <= iterations; ++round) {
    if (initiator) {
      flag_release_system(peer_flag, round);
      flag_wait_at_least(own_flag, round);
    } else {
      flag_wait_at_least(own_flag, round);
      flag_release_system(peer_flag, round);
    }
  }
}

class FlagPingpong final : public Case {
 public:
  explicit FlagPingpong(const Params& params) : iterations_(params.integer("iterations")) {
    if (iterations_ < 1 || iterations_ > (1 << 24)) throw std::invalid_argument("iterations: 1 to 16777216");
  }

  void setup(Context& context) override {
    for (int rank = 0; rank < 2; ++rank) flags_[rank] = context.allocate<int>(rank, kFlagInts);
  }
  void poison_outputs(Context& context) override {
    for (int rank = 0; rank < 2; ++rank) poison(context, rank, flags_[rank], kFlagInts * sizeof(int));
  }
  void reset(Context& context) override {
    for (int rank = 0; rank < 2; ++rank) {
      context.use(rank);
      HIP_CHECK(hipMemsetAsync(flags_[rank], 0, kFlagInts * sizeof(int), context.stream(rank)));
    }
  }
  void enqueue(Context& context, int rank) override {
    const int peer = 1 - rank;
    hipLaunchKernelGGL(pingpong_kernel, dim3(1), dim3(1), 0, context.stream(rank), flags_[peer], flags_[rank],
                       static_cast<int>(iterations_), rank == 0 ? 1 : 0);
  }
  CheckResult check(Context& context) override {
    std::vector<std::uint32_t> got, expected;
    for (int rank = 0; rank < 2; ++rank) {
      got.push_back(static_cast<std::uint32_t>(copy_to_host(context, rank, flags_[rank], 1).at(0)));
      expected.push_back(static_cast<std::uint32_t>(iterations_));
    }
    CheckResult result = compare_exact(got, expected, "final flags of rank 0 and rank 1");
    if (result.passed) result.detail = "both flags ended at " + std::to_string(iterations_);
    return result;
  }
  void derive_metrics(const Context& /*context*/, const Timing& timing, nlohmann::json& metrics) const override {
    const double hops = 2.0 * static_cast<double>(iterations_);
    metrics["latency_ns_median"] = timing.median_ns / hops;
    metrics["latency_ns_mean"] = timing.mean_ns / hops;
    metrics["round_trip_ns_median"] = 2.0 * timing.median_ns / hops;
  }

 private:
  std::int64_t iterations_;
  int* flags_[2] = {nullptr, nullptr};  // flags_[r] lives on rank r: what rank r waits on
};

}  // namespace

CaseInfo flag_pingpong_case() {
  CaseInfo info;
  info.name = "flag_pingpong";
  info.kind = "microbenchmark";
  info.description = "two GPUs bounce a flag (release-store to the peer, acquire-spin on their own); ns one way";
  info.min_ranks = 2;
  info.max_ranks = 2;
  info.params = {{"iterations", ParamType::integer, "1000", "round trips"}};
  info.make = [](const Params& params, int) { return std::make_unique<FlagPingpong>(params); };
  info.tessera_workload = [](const Params& params, int) {
    return nlohmann::json{{"kind", "microbench"},
                          {"op", "flag_pingpong"},
                          {"iterations", params.integer("iterations")},
                          {"gpu", 0},
                          {"peer", 1}};
  };
  return info;
}

}  // namespace tk

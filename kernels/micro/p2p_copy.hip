// p2p_copy: a peer copy of `bytes` from rank 0's memory to rank 1's (Tessera: microbench op p2p_copy, where a
// copy engine moves it). hipMemcpyPeerAsync on rank 0's stream; rank 1 enqueues nothing. No kernel of ours runs,
// so `workgroups` and `chunk` do not apply. GB/s counts bytes, over the copy's event time.
#include <stdexcept>

#include "harness/device_data.h"
#include "harness/timing.h"
#include "micro/micro_cases.h"

namespace tk {

namespace {

constexpr std::size_t kCheckBudgetFloats = std::size_t{16} << 20;  // floats regenerated on the host per check
constexpr std::size_t kCheckWindowFloats = std::size_t{16} << 10;  // 64 KiB windows when sampling

class P2pCopy final : public Case {
 public:
  explicit P2pCopy(const Params& params) : bytes_(params.integer("bytes")) {
    if (bytes_ <= 0 || bytes_ % 4 != 0) throw std::invalid_argument("bytes: must be a positive multiple of 4");
  }

  void setup(Context& context) override {
    count_ = static_cast<std::size_t>(bytes_) / sizeof(float);
    seed_ = rank_seed(context.seed(), 0);
    source_ = context.allocate<float>(0, count_);
    fill_uniform(context, 0, source_, count_, seed_, -1.0f, 1.0f);
    destination_ = context.allocate<float>(1, count_);
  }
  void poison_outputs(Context& context) override {
    poison(context, 1, destination_, static_cast<std::size_t>(bytes_));
  }
  void enqueue(Context& context, int rank) override {
    if (rank != 0) return;
    HIP_CHECK(hipMemcpyPeerAsync(destination_, context.device(1), source_, context.device(0),
                                 static_cast<std::size_t>(bytes_), context.stream(0)));
  }
  CheckResult check(Context& context) override {
    std::vector<float> got;
    std::vector<double> expected;
    for (const Window& window : sampled_windows(count_, kCheckWindowFloats, kCheckBudgetFloats)) {
      const std::vector<float> part = copy_to_host(context, 1, destination_ + window.start, window.count);
      got.insert(got.end(), part.begin(), part.end());
      for (std::size_t i = 0; i < window.count; ++i) {
        expected.push_back(uniform_value(seed_, window.start + i, -1.0f, 1.0f));
      }
    }
    // A copy is exact: tolerance 0.
    CheckResult result = compare_relative(got, expected, 0.0, "copied buffer on rank 1");
    result.detail += " (" + std::to_string(got.size()) + " of " + std::to_string(count_) +
                     " floats checked, 64 KiB windows spread evenly when larger than the budget)";
    return result;
  }
  void derive_metrics(const Context& /*context*/, const Timing& timing, nlohmann::json& metrics) const override {
    const double counted = static_cast<double>(bytes_);
    metrics["counted_bytes"] = counted;
    metrics["bandwidth_GBps_median"] = counted / timing.median_ns;
    metrics["bandwidth_GBps_mean"] = counted / timing.mean_ns;
  }

 private:
  std::int64_t bytes_;
  std::size_t count_ = 0;
  std::uint64_t seed_ = 0;
  float* source_ = nullptr;
  float* destination_ = nullptr;
};

}  // namespace

CaseInfo p2p_copy_case() {
  CaseInfo info;
  info.name = "p2p_copy";
  info.kind = "microbenchmark";
  info.description = "hipMemcpyPeerAsync of a buffer from rank 0 to rank 1; GB/s counts bytes";
  info.min_ranks = 2;
  info.max_ranks = 2;
  info.params = {{"bytes", ParamType::integer, "256 MiB", "bytes copied (a multiple of 4)"}};
  info.make = [](const Params& params, int) { return std::make_unique<P2pCopy>(params); };
  info.tessera_workload = [](const Params& params, int) {
    return nlohmann::json{{"kind", "microbench"},
                          {"op", "p2p_copy"},
                          {"bytes", bytes_text(params.integer("bytes"))},
                          {"gpu", 0},
                          {"peer", 1}};
  };
  return info;
}

}  // namespace tk

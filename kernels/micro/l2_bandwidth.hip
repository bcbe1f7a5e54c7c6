// l2_bandwidth: one GPU re-reads a working set of `bytes` (Tessera: microbench op l2_bandwidth). After the
// harness's cache flush, reset() runs one untimed warm-up pass that brings the working set into the L2 (as far as it
// fits); the timed work is ONE kernel of `iterations` passes. Swept over `bytes`, it gives L2 bandwidth against
// working-set size (and HBM bandwidth once the set no longer fits). Counts bytes x iterations, as Tessera does.
//
// The kernel is the chunk stream of micro/chunk_stream.hip with Tessera's exact chunk-to-workgroup order: workgroup
// w takes global chunks w, w + W, ... across all passes, so from pass to pass a workgroup moves on to other chunks
// (by chunks_per_pass mod W). Tessera models no L1; a workgroup that came back to a chunk it read shortly before could
// hit in its CU's L1. The metric reuse_distance_per_cu_bytes says how much a CU reads between two such visits: when
// it is below the L1 size (NVIDIA Hopper: up to 256 KB, MI300X: 32 KiB), the small-working-set points may include
// L1 hits.
#include <numeric>
#include <stdexcept>

#include "harness/device_data.h"
#include "harness/timing.h"
#include "micro/micro_cases.h"

namespace tk {

namespace {

constexpr std::uint64_t kCheckWordBudget = std::uint64_t{32} << 20;  // ~0.15 s of host reference

class L2Bandwidth final : public Case {
 public:
  explicit L2Bandwidth(const Params& params)
      : requested_workgroups_(params.integer("workgroups")) {
    validate_stream_params(params);
    const std::int64_t iterations = params.integer("iterations");
    if (iterations < 1 || iterations > (1 << 24)) throw std::invalid_argument("iterations: 1 to 16777216");
    stream_.segment_bytes = static_cast<std::size_t>(params.integer("bytes"));
    stream_.chunk_bytes = static_cast<std::size_t>(params.integer("chunk"));
    stream_.segments = 1;
    stream_.passes = static_cast<std::uint32_t>(iterations);
    stream_.threads = static_cast<int>(params.integer("threads"));
  }

  void setup(Context& context) override {
    stream_.workgroups = bandwidth_workgroups(requested_workgroups_, context.device(0));
    HIP_CHECK(hipDeviceGetAttribute(&compute_units_, hipDeviceAttributeMultiprocessorCount, context.device(0)));
    seed_ = rank_seed(context.seed(), 0);
    data_ = context.allocate<float>(0, stream_.segment_bytes / sizeof(float));
    fill_uniform(context, 0, data_, stream_.segment_bytes / sizeof(float), seed_, -1.0f, 1.0f);
    sums_ = context.allocate<std::uint32_t>(0, stream_.workgroups);
    warmup_sums_ = context.allocate<std::uint32_t>(0, stream_.workgroups);
  }
  void poison_outputs(Context& context) override {
    poison(context, 0, sums_, stream_.workgroups * sizeof(std::uint32_t));
  }
  // The warm-up pass, after the flush and outside the timed region: the timed kernel starts on a warm L2.
  void reset(Context& context) override {
    context.use(0);
    ChunkStream warmup = stream_;
    warmup.passes = 1;
    launch_chunk_read_sums(warmup, {data_}, warmup_sums_, context.stream(0));
  }
  void enqueue(Context& context, int /*rank*/) override {
    launch_chunk_read_sums(stream_, {data_}, sums_, context.stream(0));
  }
  CheckResult check(Context& context) override {
    const std::vector<int> checked = sampled_workgroups(stream_, kCheckWordBudget);
    const std::vector<std::uint32_t> all = copy_words_to_host(context, 0, sums_, stream_.workgroups);
    std::vector<std::uint32_t> got;
    for (int w : checked) got.push_back(all[w]);
    CheckResult result = compare_exact(got, expected_read_sums(stream_, {seed_}, checked),
                                       "per-workgroup sums of the loaded words");
    result.detail += " (" + std::to_string(checked.size()) + " of " + std::to_string(stream_.workgroups) +
                     " workgroups checked, sampled evenly when the reference would be too costly)";
    return result;
  }
  void derive_metrics(const Context& /*context*/, const Timing& timing, nlohmann::json& metrics) const override {
    const double counted = static_cast<double>(stream_.segment_bytes) * stream_.passes;
    metrics["counted_bytes"] = counted;
    metrics["working_set_bytes"] = stream_.segment_bytes;
    metrics["chunk_bytes"] = stream_.chunk_bytes;
    metrics["workgroups"] = stream_.workgroups;
    metrics["bandwidth_GBps_median"] = counted / timing.median_ns;
    metrics["bandwidth_GBps_mean"] = counted / timing.mean_ns;
    metrics["reuse_distance_per_cu_bytes"] = reuse_distance_per_cu_bytes();
  }

 private:
  // Bytes a CU loads between a workgroup's two visits of the same chunk (its workgroups together), or null when
  // no workgroup visits a chunk twice. Workgroup w visits chunks w + kW mod C (C chunks per pass), which repeat
  // after C / gcd(W, C) visits.
  nlohmann::json reuse_distance_per_cu_bytes() const {
    const std::uint64_t chunks = stream_.chunks_per_pass();
    const std::uint64_t workgroups = static_cast<std::uint64_t>(stream_.workgroups);
    const std::uint64_t period = chunks / std::gcd(workgroups, chunks);
    const std::uint64_t visits = (chunks * stream_.passes + workgroups - 1) / workgroups;
    if (visits <= period) return nullptr;
    const std::uint64_t per_cu = (workgroups + static_cast<std::uint64_t>(compute_units_) - 1) /
                                 static_cast<std::uint64_t>(std::max(compute_units_, 1));
    return static_cast<double>(per_cu * period * stream_.chunk_bytes);
  }

  std::int64_t requested_workgroups_;
  ChunkStream stream_;
  int compute_units_ = 1;
  std::uint64_t seed_ = 0;
  float* data_ = nullptr;
  std::uint32_t* sums_ = nullptr;
  std::uint32_t* warmup_sums_ = nullptr;
};

}  // namespace

CaseInfo l2_bandwidth_case() {
  CaseInfo info;
  info.name = "l2_bandwidth";
  info.kind = "microbenchmark";
  info.description = "one GPU re-reads a warm working set, one kernel of `iterations` passes; GB/s counts bytes x passes";
  info.params = {
      {"bytes", ParamType::integer, "16 MiB", "working set (a multiple of 16 B); sweep it to see the L2 capacity"},
      {"iterations", ParamType::integer, "20", "timed passes over the working set, all in one kernel"},
      {"workgroups", ParamType::integer, "0", "workgroups; 0: 4 per CU/SM"},
      {"chunk", ParamType::integer, "16 KiB",
       "bytes a workgroup reads per step (Tessera's chunk): workgroup w takes chunks w, w + W, ... over all passes"},
      {"threads", ParamType::integer, "512", "threads per workgroup (a power of two)"}};
  info.make = [](const Params& params, int) { return std::make_unique<L2Bandwidth>(params); };
  info.tessera_workload = [](const Params& params, int) {
    return nlohmann::json{{"kind", "microbench"},
                          {"op", "l2_bandwidth"},
                          {"bytes", bytes_text(params.integer("bytes"))},
                          {"iterations", params.integer("iterations")},
                          {"workgroups", bandwidth_workgroups(params.integer("workgroups"), current_device())},
                          {"chunk", bytes_text(params.integer("chunk"))}};
  };
  return info;
}

}  // namespace tk

#pragma once
// Example Specs and schemas shaped like the models' ones, for the config tests.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/schema.h"
#include "sim/core/tick.h"

namespace tessera::sim::config::test {

enum class Policy { kLru, kFifo, kRandom };

struct CacheSpec {
  std::uint64_t capacity_bytes = 4 << 20;
  std::uint32_t ways = 16;
  Tick hit_latency_ps = 100'000;
  double bandwidth_bytes_per_s = 2e12;
  bool write_back = true;
  std::string replacement = "lru";
  Policy policy = Policy::kLru;
  bool operator==(const CacheSpec&) const = default;
};

struct LinkSpec {
  std::string peer;
  double bandwidth_bytes_per_s = 64e9;
  Tick latency_ps = 1'000'000;
  bool operator==(const LinkSpec&) const = default;
};

struct GpuSpec {
  std::string name = "gpu";
  std::uint32_t num_cus = 304;
  std::int32_t priority = -1;
  double clock_hz = 2.1e9;
  double hbm_efficiency_frac = 0.85;
  double scale = 1.0;
  std::optional<std::uint64_t> lds_bytes;
  // A default differing from CacheSpec's own, as a model's parent Spec may set.
  CacheSpec l2 = [] {
    CacheSpec c;
    c.capacity_bytes = 8 << 20;
    return c;
  }();
  std::vector<std::uint64_t> tile_sizes = {256, 64, 64};
  std::vector<std::string> tags;
  std::vector<Tick> latencies_ps;
  std::vector<LinkSpec> links;
  bool operator==(const GpuSpec&) const = default;
};

struct SystemSpec {
  GpuSpec gpu;
  bool operator==(const SystemSpec&) const = default;
};

struct WorkloadSpec {
  std::string model;  // required
  std::uint64_t m = 1;
  std::vector<std::uint64_t> sweep;
  bool operator==(const WorkloadSpec&) const = default;
};

inline const Schema<CacheSpec>& cache_schema() {
  static const Schema<CacheSpec> s =
      Schema<CacheSpec>("cache", "A set-associative cache")
          .bytes("capacity", &CacheSpec::capacity_bytes, "capacity per instance").min(1)
          .count("ways", &CacheSpec::ways, "associativity").range(1, 64)
          .time("hit_latency", &CacheSpec::hit_latency_ps, "latency of a hit")
          .bandwidth("bandwidth", &CacheSpec::bandwidth_bytes_per_s, "peak read bandwidth").min(1)
          .boolean("write_back", &CacheSpec::write_back, "write-back (else write-through)")
          .choice("replacement", &CacheSpec::replacement, {"lru", "fifo", "random"}, "replacement policy")
          .choice("policy", &CacheSpec::policy,
                  {{"lru", Policy::kLru}, {"fifo", Policy::kFifo}, {"random", Policy::kRandom}}, "as an enum")
          .check([](const CacheSpec& c) -> std::optional<std::string> {
            if (c.capacity_bytes % c.ways != 0) return "capacity must be a multiple of ways";
            return std::nullopt;
          });
  return s;
}

inline const Schema<LinkSpec>& link_schema() {
  static const Schema<LinkSpec> s = Schema<LinkSpec>("link", "A point-to-point link")
                                        .string("peer", &LinkSpec::peer, "the GPU at the other end").required()
                                        .bandwidth("bandwidth", &LinkSpec::bandwidth_bytes_per_s, "per direction")
                                        .time("latency", &LinkSpec::latency_ps, "propagation delay");
  return s;
}

inline const Schema<GpuSpec>& gpu_schema() {
  static const Schema<GpuSpec> s =
      Schema<GpuSpec>("gpu", "One GPU")
          .string("name", &GpuSpec::name, "model name")
          .count("num_cus", &GpuSpec::num_cus, "compute units").range(1, 1024)
          .count("priority", &GpuSpec::priority, "scheduling priority").min(-10)
          .frequency("clock", &GpuSpec::clock_hz, "core clock")
          .fraction("hbm_efficiency", &GpuSpec::hbm_efficiency_frac, "achievable share of peak HBM bandwidth")
          .real("scale", &GpuSpec::scale, "a plain factor").range(0.5, 4)
          .bytes("lds", &GpuSpec::lds_bytes, "LDS per CU; null: none")
          .nested("l2", &GpuSpec::l2, cache_schema(), "the L2 of one XCD")
          .count_list("tile_sizes", &GpuSpec::tile_sizes, "tile M, N, K").min(1)
          .string_list("tags", &GpuSpec::tags, "free-form labels")
          .time_list("latencies", &GpuSpec::latencies_ps, "a list of times")
          .nested_list("links", &GpuSpec::links, link_schema(), "links to peers");
  return s;
}

inline const Schema<SystemSpec>& system_schema() {
  static const Schema<SystemSpec> s =
      Schema<SystemSpec>("system", "A whole system").nested("gpu", &SystemSpec::gpu, gpu_schema());
  return s;
}

inline const Schema<WorkloadSpec>& workload_schema() {
  static const Schema<WorkloadSpec> s = Schema<WorkloadSpec>("workload", "A workload")
                                            .string("model", &WorkloadSpec::model, "which model").required()
                                            .count("m", &WorkloadSpec::m, "rows").min(1)
                                            .count_list("sweep", &WorkloadSpec::sweep, "values to sweep");
  return s;
}

}  // namespace tessera::sim::config::test

#include "models/cache/cache_presets.h"

namespace tessera::models::cache {

CacheSpec mi300x_l2_spec() {
  CacheSpec s;  // CacheSpec's defaults are this L2
  s.capacity_bytes = 4ull << 20;
  s.ways = 16;
  s.line_bytes = 128;
  s.access_chunk_bytes = 4096;
  s.hit_latency_ps = 138'000;     // ~290 cycles at 2.1 GHz
  s.bandwidth_bytes_per_s = 4.3e12;  // 2 KiB/clk at 2.1 GHz, per XCD
  s.num_channels = 16;
  return s;
}

CacheSpec mi300x_mall_spec() {
  CacheSpec s;
  s.capacity_bytes = 256ull << 20;
  s.ways = 16;
  s.line_bytes = 64;
  // Simulation granularity, not hardware: 64 KiB chunks (1 KiB sectors) cost a sixteenth of the
  // lookups of 4 KiB on streams, and changed no hit rate or makespan by more than 0.06% on the
  // tile-level workloads (docs/performance.md, "MALL chunk").
  s.access_chunk_bytes = 64 * 1024;
  s.write_policy = WritePolicy::kWriteThroughAllocate;
  s.set_indexing = SetIndexing::kHash;  // 128 channels are address-hashed in hardware
  s.hit_latency_ps = 250'000;           // placeholder: between L2 (~138 ns) and HBM (~430 ns)
  s.bandwidth_bytes_per_s = 17.2e12;    // peak
  s.num_channels = 128;
  return s;
}

CacheHierarchySpec mi300x_hierarchy_spec() {
  CacheHierarchySpec h;
  h.l2 = mi300x_l2_spec();
  h.num_l2 = 8;
  h.organization = L2Organization::kPrivatePerRequester;
  h.mall = mi300x_mall_spec();
  return h;
}

namespace {

CacheHierarchySpec nvidia_hierarchy(std::uint64_t partition_bytes) {
  CacheHierarchySpec h;
  h.l2.capacity_bytes = partition_bytes;
  h.l2.ways = 16;                       // placeholder: associativity not published
  h.l2.line_bytes = 128;
  h.l2.access_chunk_bytes = 4096;
  h.l2.hit_latency_ps = 130'000;        // ~260 cycles at 1.98 GHz
  h.l2.bandwidth_bytes_per_s = 2.75e12; // placeholder: half of ~5.5 TB/s measured aggregate
  h.l2.num_channels = 16;               // placeholder
  h.num_l2 = 2;
  h.organization = L2Organization::kAddressPartitioned;
  h.mall.capacity_bytes = 0;
  return h;
}

}  // namespace

CacheHierarchySpec h100_hierarchy_spec() { return nvidia_hierarchy(25ull << 20); }
CacheHierarchySpec h200_hierarchy_spec() { return nvidia_hierarchy(30ull << 20); }

}  // namespace tessera::models::cache

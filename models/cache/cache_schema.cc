#include "models/cache/cache_schema.h"

namespace tessera::models::cache {

const sim::config::Schema<CacheSpec>& cache_schema() {
  static const sim::config::Schema<CacheSpec> s =
      sim::config::Schema<CacheSpec>("cache", "one cache level")
          .bytes("capacity", &CacheSpec::capacity_bytes, "capacity of one instance (0 B: absent, for a MALL)")
          .count("ways", &CacheSpec::ways, "associativity")
          .range(1, 128)
          .count("line", &CacheSpec::line_bytes, "hardware line size in bytes")
          .range(16, 4096)
          .bytes("access_chunk", &CacheSpec::access_chunk_bytes,
                 "simulation tag granularity: a power-of-two multiple of the line (models/cache/README.md)")
          .choice("replacement", &CacheSpec::replacement,
                  {{"lru", Replacement::kLru}, {"fifo", Replacement::kFifo}, {"random", Replacement::kRandom}},
                  "replacement policy")
          .choice("write_policy", &CacheSpec::write_policy,
                  {{"write_back", WritePolicy::kWriteBackAllocate},
                   {"write_through", WritePolicy::kWriteThroughNoAllocate},
                   {"write_through_allocate", WritePolicy::kWriteThroughAllocate}},
                  "write policy")
          .choice("set_indexing", &CacheSpec::set_indexing, {{"hash", SetIndexing::kHash}, {"modulo", SetIndexing::kModulo}},
                  "address to set mapping")
          .time("hit_latency", &CacheSpec::hit_latency_ps, "unloaded latency of a hit")
          .time("fill_wait", &CacheSpec::fill_wait_ps,
                "L2: latency of a load hit on data whose fill is in flight, from the miss; 0: not modelled")
          .bandwidth("bandwidth", &CacheSpec::bandwidth_bytes_per_s, "peak bandwidth of one instance")
          .count("channels", &CacheSpec::num_channels, "channels (slices) of one instance")
          .range(1, 1024)
          .check([](const CacheSpec& c) -> std::optional<std::string> {
            if (c.capacity_bytes == 0) return std::nullopt;
            return c.validate();
          });
  return s;
}

}  // namespace tessera::models::cache

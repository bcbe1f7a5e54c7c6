#include "models/cache/cache_schema.h"

namespace tessera::models::cache {

const sim::config::Schema<CacheSpec>& cache_schema() {
  static const sim::config::Schema<CacheSpec> s =
      sim::config::Schema<CacheSpec>("cache", "one cache level")
          .bytes("capacity", &CacheSpec::capacity_bytes,
                 "capacity of one instance, a multiple of ways × access_chunk; 0 B: absent (the MALL only)")
          .count("ways", &CacheSpec::ways, "associativity")
          .range(1, 128)
          .count("line", &CacheSpec::line_bytes, "hardware line size in bytes (a count, no unit); a power of two")
          .range(16, 4096)
          .bytes("access_chunk", &CacheSpec::access_chunk_bytes,
                 "simulation tag granularity: a power of two and a multiple of line; above 8 KiB not "
                 "recommended (models/cache/README.md)")
          .choice("replacement", &CacheSpec::replacement,
                  {{"lru", Replacement::kLru}, {"fifo", Replacement::kFifo}, {"random", Replacement::kRandom}},
                  "replacement policy")
          .choice("write_policy", &CacheSpec::write_policy,
                  {{"write_back", WritePolicy::kWriteBackAllocate},
                   {"write_through", WritePolicy::kWriteThroughNoAllocate},
                   {"write_through_allocate", WritePolicy::kWriteThroughAllocate}},
                  "write_back: write-back with allocate (a GPU L2); write_through: without allocate; "
                  "write_through_allocate: write-through leaving a clean copy (a MALL)")
          .choice("set_indexing", &CacheSpec::set_indexing, {{"hash", SetIndexing::kHash}, {"modulo", SetIndexing::kModulo}},
                  "address-to-set mapping")
          .time("hit_latency", &CacheSpec::hit_latency_ps,
                "latency of a hit. The base system files give the unloaded (pointer-chase) figure, the "
                "calibrated ones (*-calibrated.yaml) the loaded one the GEMM's K-step sees on a busy GPU (the "
                "kstep fit of tessera calibrate: ~645 ns on H100 against 140 ns idle)")
          .boolean("hits_wait_for_fills", &CacheSpec::hits_wait_for_fills,
                   "L2 only: a load that hits lines whose fill from memory is still in flight (allocated at "
                   "the miss, data not there yet) waits for that fill, as a cache's miss registers merge it; "
                   "false: such a hit costs hit_latency")
          .bandwidth("bandwidth", &CacheSpec::bandwidth_bytes_per_s, "peak bandwidth of one instance; more than 0 B/s")
          .count("channels", &CacheSpec::num_channels, "channels (slices) of one instance")
          .range(1, 1024)
          .check([](const CacheSpec& c) -> std::optional<std::string> {
            if (c.capacity_bytes == 0) return std::nullopt;
            return c.validate();
          });
  return s;
}

}  // namespace tessera::models::cache

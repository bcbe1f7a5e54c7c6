#pragma once
// A memory-side cache (AMD's MALL / Infinity Cache): shared by every XCD of a GPU, in front of
// HBM, on the path of every access that reaches memory (L2 misses, L2 write-backs, and peers'
// remote loads and stores).
//
// It never holds dirty data. Reads that miss fill it from HBM; writes always go on to HBM and,
// under kWriteThroughAllocate (the default), leave a clean copy, because the written data
// passes through the cache on its way to HBM and a consumer that reads it next (another XCD,
// or this GPU after a peer's push) then finds it there. A capacity of 0 means no such cache
// (NVIDIA): everything passes straight to HBM.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "models/cache/cache_spec.h"
#include "models/cache/set_associative_cache.h"

namespace tessera::models::cache {

struct MemorySideResult {
  std::uint64_t requested_bytes = 0;
  std::uint64_t hit_bytes = 0;        // reads served by this cache
  std::uint64_t miss_bytes = 0;       // reads not served; hit + miss == requested for reads
  std::uint64_t hbm_read_bytes = 0;   // equals miss_bytes: only reads that miss go to HBM
  std::uint64_t hbm_write_bytes = 0;  // every written byte (write-through)
};

class MemorySideCache {
 public:
  // Throws std::invalid_argument for an invalid spec or a write-back policy (this level must
  // not hold dirty data). capacity_bytes == 0 builds an absent cache.
  explicit MemorySideCache(const CacheSpec& spec);

  bool present() const { return cache_.has_value(); }
  const CacheSpec& spec() const { return spec_; }

  void attach_stats(sim::stats::StatRegistry& registry, std::string_view prefix);

  MemorySideResult read(std::uint64_t address, std::uint64_t bytes);
  MemorySideResult write(std::uint64_t address, std::uint64_t bytes);
  // read() or write() of each segment in order, summed (an L2's misses and write-backs).
  MemorySideResult read_each(std::span<const Segment> segments);
  MemorySideResult write_each(std::span<const Segment> segments);

  // Asks the host for the state this cache will look up for `address` (no effect on results).
  void prefetch(std::uint64_t address) const {
    if (cache_) cache_->prefetch(address);
  }

  bool contains(std::uint64_t address, std::uint64_t bytes) const;
  std::uint64_t resident_bytes() const;
  // Forgets everything (nothing is dirty, so nothing is lost).
  void reset();

 private:
  CacheSpec spec_;
  std::optional<SetAssociativeCache> cache_;
};

}  // namespace tessera::models::cache

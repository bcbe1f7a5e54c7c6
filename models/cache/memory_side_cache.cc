#include "models/cache/memory_side_cache.h"

#include <stdexcept>

namespace tessera::models::cache {

MemorySideCache::MemorySideCache(const CacheSpec& spec) : spec_(spec) {
  if (spec.capacity_bytes == 0) return;
  if (spec.write_policy == WritePolicy::kWriteBackAllocate) {
    throw std::invalid_argument("memory-side cache: write_policy must be write-through (it holds no dirty data)");
  }
  cache_.emplace(spec);
}

void MemorySideCache::attach_stats(sim::stats::StatRegistry& registry, std::string_view prefix) {
  if (cache_) cache_->attach_stats(registry, prefix);
}

MemorySideResult MemorySideCache::read(std::uint64_t address, std::uint64_t bytes) {
  MemorySideResult r;
  r.requested_bytes = bytes;
  if (!cache_) {
    r.miss_bytes = r.hbm_read_bytes = bytes;
    return r;
  }
  const AccessResult a = cache_->access(address, bytes, AccessKind::kRead);
  r.hit_bytes = a.hit_bytes;
  r.miss_bytes = a.miss_bytes;
  r.hbm_read_bytes = a.forwarded_bytes;
  return r;
}

MemorySideResult MemorySideCache::write(std::uint64_t address, std::uint64_t bytes) {
  MemorySideResult r;
  r.requested_bytes = bytes;
  r.hbm_write_bytes = bytes;
  if (cache_) cache_->access(address, bytes, AccessKind::kWrite);
  return r;
}

MemorySideResult MemorySideCache::read_each(std::span<const Segment> segments) {
  MemorySideResult r;
  for (const Segment& s : segments) r.requested_bytes += s.bytes;
  if (!cache_) {
    r.miss_bytes = r.hbm_read_bytes = r.requested_bytes;
    return r;
  }
  const AccessResult a = cache_->access_each(segments, AccessKind::kRead);
  r.hit_bytes = a.hit_bytes;
  r.miss_bytes = a.miss_bytes;
  r.hbm_read_bytes = a.forwarded_bytes;
  return r;
}

MemorySideResult MemorySideCache::write_each(std::span<const Segment> segments) {
  MemorySideResult r;
  for (const Segment& s : segments) r.requested_bytes += s.bytes;
  r.hbm_write_bytes = r.requested_bytes;
  if (cache_) cache_->access_each(segments, AccessKind::kWrite);
  return r;
}

bool MemorySideCache::contains(std::uint64_t address, std::uint64_t bytes) const {
  return cache_ && cache_->contains(address, bytes);
}

std::uint64_t MemorySideCache::resident_bytes() const { return cache_ ? cache_->resident_bytes() : 0; }

void MemorySideCache::reset() {
  if (cache_) cache_->reset();
}

}  // namespace tessera::models::cache

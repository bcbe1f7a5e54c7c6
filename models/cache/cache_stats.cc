#include "models/cache/cache_stats.h"

#include <fmt/format.h>

namespace tessera::models::cache {

using sim::stats::Unit;

CacheStats CacheStats::register_in(sim::stats::StatRegistry& registry, std::string_view prefix) {
  auto reg = [&](std::string_view leaf, Unit unit, std::string_view doc) {
    return &registry.counter(fmt::format("{}.{}", prefix, leaf), unit, doc);
  };
  CacheStats s;
  s.hit_bytes = reg("hit_bytes", Unit::kBytes, "requested bytes found in this cache");
  s.miss_bytes = reg("miss_bytes", Unit::kBytes, "requested bytes not found in this cache");
  s.hit_accesses = reg("hit_accesses", Unit::kEvents, "chunk lookups with every touched byte present");
  s.miss_accesses = reg("miss_accesses", Unit::kEvents, "chunk lookups missing at least one touched byte");
  s.read_bytes = reg("read_bytes", Unit::kBytes, "bytes requested by reads");
  s.write_bytes = reg("write_bytes", Unit::kBytes, "bytes requested by writes");
  s.writeback_bytes = reg("writeback_bytes", Unit::kBytes, "dirty bytes written to the next level");
  s.evictions = reg("evictions", Unit::kEvents, "valid chunks replaced to make room");
  s.invalidated_bytes = reg("invalidated_bytes", Unit::kBytes, "valid bytes dropped by invalidations");
  return s;
}

void CacheStats::record(const AccessResult& r, AccessKind kind) const {
  if (hit_bytes == nullptr) return;
  hit_bytes->add(r.hit_bytes);
  miss_bytes->add(r.miss_bytes);
  hit_accesses->add(r.hit_chunks);
  miss_accesses->add(r.miss_chunks);
  (kind == AccessKind::kRead ? read_bytes : write_bytes)->add(r.requested_bytes);
  writeback_bytes->add(r.writeback_bytes);
  evictions->add(r.evicted_chunks);
}

void CacheStats::record(const MaintenanceResult& r) const {
  if (hit_bytes == nullptr) return;
  writeback_bytes->add(r.writeback_bytes);
  invalidated_bytes->add(r.invalidated_bytes);
}

}  // namespace tessera::models::cache

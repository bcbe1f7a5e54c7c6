#pragma once
// The statistics of one cache instance, registered under the caller's hierarchical prefix
// (e.g. "gpu[0].xcd[3].l2") so that names, units and docs are declared in one place.
#include <string_view>

#include "models/cache/access_result.h"
#include "sim/stats/stat_registry.h"

namespace tessera::models::cache {

struct CacheStats {
  sim::stats::Counter* hit_bytes = nullptr;
  sim::stats::Counter* miss_bytes = nullptr;
  sim::stats::Counter* hit_accesses = nullptr;
  sim::stats::Counter* miss_accesses = nullptr;
  sim::stats::Counter* read_bytes = nullptr;
  sim::stats::Counter* write_bytes = nullptr;
  sim::stats::Counter* writeback_bytes = nullptr;
  sim::stats::Counter* evictions = nullptr;
  sim::stats::Counter* invalidated_bytes = nullptr;

  // Registers `<prefix>.hit_bytes`, `<prefix>.miss_bytes`, ...; throws if a name is taken.
  static CacheStats register_in(sim::stats::StatRegistry& registry, std::string_view prefix);

  void record(const AccessResult& r, AccessKind kind) const;
  void record(const MaintenanceResult& r) const;
};

}  // namespace tessera::models::cache

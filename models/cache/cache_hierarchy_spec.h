#pragma once
// Shape of one GPU's cache hierarchy: N L2 instances -> optional memory-side cache -> HBM.
#include <cstdint>
#include <optional>
#include <string>

#include "models/cache/cache_spec.h"

namespace tessera::models::cache {

enum class L2Organization {
  // One L2 per requester (MI300X: one per XCD). Private and not coherent with each other; the
  // memory side (MALL/HBM) is the point of coherence, so acquire/release act on the L2.
  kPrivatePerRequester,
  // The L2 is split into slices by address (NVIDIA: two partitions); every requester and every
  // peer goes through the slice owning the address, so the L2 is the point of coherence.
  kAddressPartitioned,
};

struct CacheHierarchySpec {
  CacheSpec l2;                 // one L2 instance (an XCD's L2, or one partition)
  std::uint32_t num_l2 = 8;     // XCDs, or partitions
  L2Organization organization = L2Organization::kPrivatePerRequester;
  CacheSpec mall;               // capacity_bytes == 0: no memory-side cache

  std::optional<std::string> validate() const;
};

}  // namespace tessera::models::cache

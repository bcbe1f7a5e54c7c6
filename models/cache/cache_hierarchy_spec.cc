#include "models/cache/cache_hierarchy_spec.h"

namespace tessera::models::cache {

std::optional<std::string> CacheHierarchySpec::validate() const {
  if (num_l2 == 0) return "num_l2 must be positive";
  if (auto e = l2.validate()) return "l2: " + *e;
  if (mall.capacity_bytes != 0) {
    if (auto e = mall.validate()) return "mall: " + *e;
    if (mall.write_policy == WritePolicy::kWriteBackAllocate) {
      return "mall: write_policy must be write-through (a memory-side cache holds no dirty data)";
    }
  }
  return std::nullopt;
}

}  // namespace tessera::models::cache

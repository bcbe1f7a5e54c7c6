#include "models/system/system_limits.h"

#include <fmt/format.h>

#include "models/cache/set_associative_cache.h"
#include "models/system/system_spec.h"
#include "sim/config/approximate_bytes.h"

namespace tessera::models {
namespace {

__extension__ typedef unsigned __int128 Wide;

std::uint64_t capped(Wide v) { return v > Wide{~std::uint64_t{0}} ? ~std::uint64_t{0} : static_cast<std::uint64_t>(v); }

}  // namespace

std::uint64_t cache_state_bytes(const SystemSpec& system) {
  const GpuSpec& g = system.gpu;
  const Wide l2 = Wide{cache::SetAssociativeCache::state_bytes(g.memory.l2)} * g.compute.num_dies;
  const Wide mall = cache::SetAssociativeCache::state_bytes(g.memory.mall);
  return capped((l2 + mall) * system.num_gpus);
}

std::optional<std::string> system_size_problem(const SystemSpec& system) {
  using sim::config::approximate_bytes;
  const std::uint64_t cache_bytes = cache_state_bytes(system);
  if (cache_bytes > kMaxCacheStateBytes) {
    const GpuSpec& g = system.gpu;
    return fmt::format(
        "the caches would need {} of simulator state ({} GPU(s) x ({} L2 x {} + MALL {})); at most {}: lower "
        "gpu.memory.l2.capacity or gpu.memory.mall.capacity, or raise their access_chunk",
        approximate_bytes(cache_bytes), system.num_gpus, g.compute.num_dies,
        approximate_bytes(cache::SetAssociativeCache::state_bytes(g.memory.l2)),
        approximate_bytes(cache::SetAssociativeCache::state_bytes(g.memory.mall)), approximate_bytes(kMaxCacheStateBytes));
  }
  const std::uint64_t cus = std::uint64_t{system.num_gpus} * system.gpu.compute.num_dies *
                            system.gpu.compute.compute_units_per_die;
  if (cus > kMaxComputeUnits) {
    return fmt::format("{} compute units in all (num_gpus {} x gpu.compute.num_dies {} x compute_units_per_die {}); "
                       "at most {}",
                       cus, system.num_gpus, system.gpu.compute.num_dies, system.gpu.compute.compute_units_per_die,
                       kMaxComputeUnits);
  }
  return std::nullopt;
}

}  // namespace tessera::models

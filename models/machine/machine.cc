#include "models/machine/machine.h"

#include <fmt/format.h>

#include "models/topology/build_topology.h"
#include "models/topology/network_binding.h"

namespace tessera::models::machine {

cache::CacheHierarchySpec cache_hierarchy_spec(const GpuSpec& gpu) {
  cache::CacheHierarchySpec h;
  h.l2 = gpu.memory.l2;
  h.mall = gpu.memory.mall;
  h.num_l2 = gpu.compute.num_dies;
  h.organization = gpu.vendor == "amd" ? cache::L2Organization::kPrivatePerRequester
                                       : cache::L2Organization::kAddressPartitioned;
  return h;
}

namespace {

std::vector<cache::CacheHierarchy> make_caches(const SystemSpec& spec, sim::stats::StatRegistry& stats,
                                               const std::string& name) {
  std::vector<cache::CacheHierarchy> caches;
  caches.reserve(spec.num_gpus);
  const cache::CacheHierarchySpec h = cache_hierarchy_spec(spec.gpu);
  for (std::uint32_t g = 0; g < spec.num_gpus; ++g) {
    caches.emplace_back(h);
    caches.back().attach_stats(stats, fmt::format("{}.gpu[{}]", name, g));
  }
  return caches;
}

}  // namespace

Machine::Machine(sim::Context context, const SystemSpec& spec, std::string name)
    : topology_(topology::build_topology(spec)),
      routes_(topology_),
      network_(context, name + ".fabric"),
      network_ids_(topology::add_resources(topology_, network_)),
      caches_(make_caches(spec, context.stats, name)),
      flags_(context, name + ".flags", spec.gpu.atomics),
      memory_(context, name + ".memory", topology_, routes_, network_, network_ids_, caches_) {
  gpus_.reserve(spec.num_gpus);
  for (std::uint32_t g = 0; g < spec.num_gpus; ++g) {
    gpus_.push_back(std::make_unique<compute::GpuCompute>(context, fmt::format("{}.gpu[{}]", name, g), g, spec.gpu));
  }
}

sync::FlagAccess Machine::flag_access(std::uint32_t gpu, std::uint32_t die, std::uint32_t home) {
  return sync::FlagAccess{gpu, gpu == home ? 0 : memory_.link_round_trip_ps(gpu, die, home)};
}

}  // namespace tessera::models::machine

#include "models/machine/resource_usage.h"

#include "models/machine/machine.h"

namespace tessera::models::machine {

std::map<std::string, ResourceClassUsage> resource_usage(const Machine& machine, sim::Tick span_ps) {
  const topology::Topology& topo = machine.topology();
  const double span_s = static_cast<double>(span_ps) * 1e-12;
  std::map<std::string, ResourceClassUsage> out;
  std::map<std::string, double> capacity_bytes_per_s;
  for (std::size_t id = 0; id < topo.num_resources(); ++id) {
    const auto rid = static_cast<topology::ResourceId>(id);
    const topology::TopologyResource& resource = topo.resource(rid);
    const std::string cls(topology::to_string(resource.resource_class));
    const std::uint64_t bytes = machine.network().bytes_carried(machine.network_id(rid));
    ResourceClassUsage& use = out[cls];
    use.bytes += bytes;
    const double bandwidth = resource.spec.bandwidth_bytes_per_s;
    capacity_bytes_per_s[cls] += bandwidth;
    if (bytes == 0 || !(bandwidth > 0) || !(span_s > 0)) continue;
    const double utilisation = static_cast<double>(bytes) / (bandwidth * span_s);
    if (utilisation > use.busiest_utilisation) {  // the first of equals wins: deterministic
      use.busiest_utilisation = utilisation;
      use.busiest_resource = resource.label.empty() ? resource.spec.name : resource.label;
    }
  }
  for (auto& [cls, use] : out) {
    const double capacity = capacity_bytes_per_s[cls];
    if (capacity > 0 && span_s > 0) use.mean_utilisation = static_cast<double>(use.bytes) / (capacity * span_s);
  }
  return out;
}

}  // namespace tessera::models::machine

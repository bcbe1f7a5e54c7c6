#include "models/topology/network_binding.h"

namespace tessera::models::topology {

std::vector<fabric::ResourceId> add_resources(const Topology& topology, fabric::FlowNetwork& network) {
  std::vector<fabric::ResourceId> ids;
  ids.reserve(topology.num_resources());
  for (const TopologyResource& r : topology.resources()) ids.push_back(network.add_resource(r.spec));
  return ids;
}

std::vector<fabric::ResourceId> to_network_path(std::span<const ResourceId> route_resources,
                                                std::span<const fabric::ResourceId> network_ids) {
  std::vector<fabric::ResourceId> path;
  path.reserve(route_resources.size());
  for (ResourceId id : route_resources) path.push_back(network_ids[id]);
  return path;
}

}  // namespace tessera::models::topology

#pragma once
// Puts a topology's resources into a FlowNetwork, so routes can carry flows.
#include <span>
#include <vector>

#include "models/fabric/flow_network.h"
#include "models/topology/topology.h"

namespace tessera::models::topology {

// Adds every resource of `topology` to `network`, in id order. Returns the network's id of each
// topology resource (the identity when the network was empty).
std::vector<fabric::ResourceId> add_resources(const Topology& topology, fabric::FlowNetwork& network);

// A route's resources translated to network ids through the map add_resources returned.
std::vector<fabric::ResourceId> to_network_path(std::span<const ResourceId> route_resources,
                                                std::span<const fabric::ResourceId> network_ids);

}  // namespace tessera::models::topology

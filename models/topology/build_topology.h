#pragma once
// Builds the topology graph of a system from its SystemSpec: wiring only, every number comes
// from the spec. See README.md for the graph, the resources and the simplifications.
#include "models/system/system_spec.h"
#include "models/topology/topology.h"

namespace tessera::models::topology {

// Throws std::invalid_argument when the spec cannot be wired (dies not spread evenly over the
// IODs, a link with no bandwidth, too few links for a full mesh, ...).
Topology build_topology(const SystemSpec& spec);

}  // namespace tessera::models::topology

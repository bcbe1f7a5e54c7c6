#pragma once
// The text `tessera describe` prints for a system's topology: per GPU its dies, IODs and
// memory side; the GPU <-> GPU links with their counts, bandwidths and latencies; and the
// full resource table (name, class, bandwidth, latency).
#include <string>

#include "models/topology/topology.h"

namespace tessera::models::topology {

std::string describe_topology(const Topology& topology);

}  // namespace tessera::models::topology

#pragma once
// A route: the resources a transfer crosses, in order, with its unloaded figures.
#include <cstdint>
#include <vector>

#include "models/fabric/resource.h"
#include "models/topology/topology.h"

namespace tessera::models::topology {

// Which memory-side node resource a memory endpoint contributes to a route.
enum class MemoryNode {
  kNone,  // the edges only (e.g. the caller adds the memory itself)
  kMall,  // a MALL hit: the MALL's bandwidth (throws if the GPU has no MALL)
  kHbm,   // the HBM's bandwidth and latency (a MALL miss also fills the MALL, but the MALL is
          // always wider than the HBM behind it, so it is left out)
};

// Which node resources of the two ends a route includes. Node resources of the vertices a
// route passes through (a switch's crossbar) are always included.
struct RouteOptions {
  MemoryNode memory = MemoryNode::kHbm;  // applies to a memory source and a memory destination
  bool include_l2 = false;               // the L2 of a die source and of a die destination

  bool operator==(const RouteOptions&) const = default;
};

struct Route {
  std::vector<ResourceId> resources;  // in the order crossed; ids of Topology::resources()
  std::vector<Vertex> vertices;       // from source to destination, both included
  sim::Tick latency_ps = 0;           // unloaded: the sum of the resources' latencies
  double bottleneck_bytes_per_s = fabric::kUncapped;  // min bandwidth over `resources`
};

}  // namespace tessera::models::topology

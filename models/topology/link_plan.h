#pragma once
// The GPUs' links as a list, whatever the system file wrote. `topology: links` gives the list
// (interconnect.links and .switches); every shorthand generates one: full_mesh and direct a
// bundle from each GPU to each peer, switch one aggregated switch with a port per GPU, ring a
// bundle to each of a GPU's two neighbours, torus_2d to each of its four (fewer where a
// dimension has one or two GPUs). build_topology turns each planned direction into one graph
// edge with its own resource, in the plan's order, so a shorthand builds exactly the graph it
// built before it was a generator (same vertices, resources and names; tests/models/topology).
#include <cstdint>
#include <string>
#include <vector>

#include "models/system/system_spec.h"
#include "models/topology/resource_class.h"
#include "sim/core/tick.h"

namespace tessera::models::topology {

// One end of a planned link: a GPU (index) or a switch (its position in LinkPlan::switches).
struct PlanNode {
  bool is_switch = false;
  std::uint32_t index = 0;
  auto operator<=>(const PlanNode&) const = default;
};

// A switch: a non-blocking crossbar as wide as the links into it.
struct PlannedSwitch {
  sim::Tick latency_ps = 0;
  std::uint32_t num_chips = 1;  // switch chips aggregated into it (the switch shorthand's num_switches)
};

// One direction of a bundle of `count` links.
struct PlannedLink {
  PlanNode from;
  PlanNode to;
  std::uint32_t count = 1;
  double bandwidth_bytes_per_s = 0;  // per link
  sim::Tick latency_ps = 0;
  std::string name;  // the resource's instance name
};

struct LinkPlan {
  std::vector<PlannedSwitch> switches;
  std::vector<PlannedLink> links;
};

// The class of the GPUs' links: xgmi for an AMD GPU, nvlink otherwise.
ResourceClass gpu_link_class(const SystemSpec& spec);

// The plan of `spec.interconnect` (empty for topology none or one GPU). The spec must have
// passed the system schema's checks (endpoints known, shares at least one link).
LinkPlan plan_links(const SystemSpec& spec);

// The GPUs a ring or torus_2d GPU links to, with the links to each: an equal share (rounded
// down) per direction, summed where two directions reach the same GPU (a torus dimension of
// two); a ring of two GPUs is one bundle of every link. Ascending by neighbour.
struct Neighbour {
  std::uint32_t gpu = 0;
  std::uint32_t count = 0;
};
std::vector<Neighbour> ring_neighbours(std::uint32_t gpu, std::uint32_t num_gpus, std::uint32_t links_per_gpu);
std::vector<Neighbour> torus_neighbours(std::uint32_t gpu, std::uint32_t rows, std::uint32_t columns,
                                        std::uint32_t links_per_gpu);

}  // namespace tessera::models::topology

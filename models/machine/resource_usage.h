#pragma once
// How much of each class of the machine's bandwidth resources (links, HBM, L2, MALL, switches)
// a run used: the bytes each resource carried, read from its registered counter, set against
// what it could have carried over the run. The busiest resource of a class is what a slow run
// saturated ("why is pull slower? its xGMI links were 97% busy").
#include <cstdint>
#include <map>
#include <string>

#include "sim/core/tick.h"

namespace tessera::models::machine {

class Machine;

struct ResourceClassUsage {
  std::uint64_t bytes = 0;                // carried by every resource of the class
  double mean_utilisation = 0.0;          // bytes / (the class's summed bandwidth x span)
  double busiest_utilisation = 0.0;       // the highest of one resource: its bytes / (bandwidth x span)
  std::string busiest_resource;           // its label ("gpu[0]->gpu[3]"); empty when nothing carried bytes
};

// Keyed by resource class name ("xgmi", "hbm", "l2", ...). Utilisations are 0 for a span of 0.
std::map<std::string, ResourceClassUsage> resource_usage(const Machine& machine, sim::Tick span_ps);

}  // namespace tessera::models::machine

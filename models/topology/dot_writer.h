#pragma once
// Graphviz DOT of a topology: one cluster per GPU, the switches and host outside, one edge
// per link direction labelled with its resource name and bandwidth. Vertex ids are the
// vertices' instance names (quoted), so the file reads back with boost::read_graphviz.
#include <ostream>
#include <string>

#include "models/topology/topology.h"

namespace tessera::models::topology {

void write_dot(std::ostream& out, const Topology& topology);
std::string to_dot(const Topology& topology);

}  // namespace tessera::models::topology

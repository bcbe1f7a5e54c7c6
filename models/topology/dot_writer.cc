#include "models/topology/dot_writer.h"

#include <fmt/format.h>

#include <sstream>

namespace tessera::models::topology {
namespace {

// Named apart from std::quoted, which ADL would otherwise prefer for std::string arguments.
std::string dot_string(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '\\';  // backslashes stay: labels use DOT's own "\\n" escape
    out += c;
  }
  return out + '"';
}

std::string_view shape(VertexKind kind) {
  switch (kind) {
    case VertexKind::kDie: return "box";
    case VertexKind::kIod: return "diamond";
    case VertexKind::kMemory: return "cylinder";
    case VertexKind::kSwitch: return "hexagon";
    case VertexKind::kHost: return "house";
  }
  return "ellipse";
}

// The node's label: its name plus its node resources, so HBM and L2 limits show in the drawing.
std::string node_label(const Topology& topology, const VertexInfo& info) {
  std::string label = info.name;
  for (ResourceId id : {info.node_resource, info.mall}) {
    if (id == kNoResource) continue;
    const TopologyResource& r = topology.resource(id);
    label += fmt::format("\\n{} {:.0f} GB/s", to_string(r.resource_class), r.spec.bandwidth_bytes_per_s / 1e9);
  }
  return label;
}

void write_node(std::ostream& out, const Topology& topology, Vertex v, std::string_view indent) {
  const VertexInfo& info = topology.info(v);
  out << indent << dot_string(info.name) << " [label=" << dot_string(node_label(topology, info))
      << ", shape=" << shape(info.endpoint.kind) << "];\n";
}

}  // namespace

void write_dot(std::ostream& out, const Topology& topology) {
  const Graph& g = topology.graph();
  out << "digraph " << dot_string(topology.spec().name) << " {\n";
  out << "  rankdir=LR;\n";
  for (std::uint32_t gpu = 0; gpu < topology.spec().num_gpus; ++gpu) {
    out << "  subgraph cluster_gpu" << gpu << " {\n";
    out << "    label=" << dot_string(fmt::format("gpu[{}]", gpu)) << ";\n";
    for (Vertex v : boost::make_iterator_range(boost::vertices(g))) {
      const Endpoint& e = g[v].endpoint;
      const bool in_gpu = e.kind != VertexKind::kSwitch && e.kind != VertexKind::kHost && e.gpu == gpu;
      if (in_gpu) write_node(out, topology, v, "    ");
    }
    out << "  }\n";
  }
  for (Vertex v : boost::make_iterator_range(boost::vertices(g))) {
    const VertexKind kind = g[v].endpoint.kind;
    if (kind == VertexKind::kSwitch || kind == VertexKind::kHost) write_node(out, topology, v, "  ");
  }
  for (const Edge& e : boost::make_iterator_range(boost::edges(g))) {
    out << "  " << dot_string(g[boost::source(e, g)].name) << " -> " << dot_string(g[boost::target(e, g)].name);
    if (g[e].resource == kNoResource) {
      out << " [style=dotted];\n";  // structural: no resource of its own
      continue;
    }
    const TopologyResource& r = topology.resource(g[e].resource);
    out << " [label=" << dot_string(fmt::format("{}\\n{:.0f} GB/s", r.spec.name, r.spec.bandwidth_bytes_per_s / 1e9))
        << ", class=" << dot_string(to_string(r.resource_class)) << "];\n";
  }
  out << "}\n";
}

std::string to_dot(const Topology& topology) {
  std::ostringstream out;
  write_dot(out, topology);
  return out.str();
}

}  // namespace tessera::models::topology

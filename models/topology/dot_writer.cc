#include "models/topology/dot_writer.h"

#include <fmt/format.h>

#include <algorithm>
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
    case VertexKind::kNic: return "invtrapezium";
    case VertexKind::kLeaf: return "hexagon";
    case VertexKind::kSpine: return "doubleoctagon";
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

bool in_a_gpu(VertexKind kind) {
  return kind == VertexKind::kDie || kind == VertexKind::kIod || kind == VertexKind::kMemory || kind == VertexKind::kNic;
}

void write_gpu_cluster(std::ostream& out, const Topology& topology, std::uint32_t gpu, std::string_view indent) {
  const Graph& g = topology.graph();
  out << indent << "subgraph cluster_gpu" << gpu << " {\n";
  out << indent << "  label=" << dot_string(fmt::format("gpu[{}]", gpu)) << ";\n";
  const std::string inner = std::string(indent) + "  ";
  for (Vertex v : boost::make_iterator_range(boost::vertices(g))) {
    const Endpoint& e = g[v].endpoint;
    if (in_a_gpu(e.kind) && e.gpu == gpu) write_node(out, topology, v, inner);
  }
  out << indent << "}\n";
}

}  // namespace

void write_dot(std::ostream& out, const Topology& topology) {
  const Graph& g = topology.graph();
  const SystemSpec& spec = topology.spec();
  out << "digraph " << dot_string(spec.name) << " {\n";
  out << "  rankdir=LR;\n";
  const std::uint32_t nodes = std::max(spec.scale_out.nodes, 1u);
  std::uint32_t num_switches = 0;
  for (Vertex v : boost::make_iterator_range(boost::vertices(g))) num_switches += g[v].endpoint.kind == VertexKind::kSwitch;
  const std::uint32_t switches_per_node = num_switches / nodes;
  if (nodes == 1) {
    for (std::uint32_t gpu = 0; gpu < spec.num_gpus; ++gpu) write_gpu_cluster(out, topology, gpu, "  ");
  } else {
    // One cluster per node: its GPUs and the switches of its interconnect.
    for (std::uint32_t node = 0; node < nodes; ++node) {
      out << "  subgraph cluster_node" << node << " {\n";
      out << "    label=" << dot_string(fmt::format("node {}", node)) << ";\n";
      const std::uint32_t n = gpus_per_node(spec);
      for (std::uint32_t gpu = node * n; gpu < (node + 1) * n; ++gpu) write_gpu_cluster(out, topology, gpu, "    ");
      for (Vertex v : boost::make_iterator_range(boost::vertices(g))) {
        const Endpoint& e = g[v].endpoint;
        if (e.kind == VertexKind::kSwitch && switches_per_node > 0 && e.index / switches_per_node == node) {
          write_node(out, topology, v, "    ");
        }
      }
      out << "  }\n";
    }
  }
  for (Vertex v : boost::make_iterator_range(boost::vertices(g))) {
    const VertexKind kind = g[v].endpoint.kind;
    const bool outside = kind == VertexKind::kHost || kind == VertexKind::kLeaf || kind == VertexKind::kSpine ||
                         (kind == VertexKind::kSwitch && nodes == 1);
    if (outside) write_node(out, topology, v, "  ");
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

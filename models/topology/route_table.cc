#include "models/topology/route_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>

#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/filtered_graph.hpp>

namespace tessera::models::topology {
namespace {

constexpr PathCost kUnreachable{std::numeric_limits<sim::Tick>::max(), std::numeric_limits<std::uint32_t>::max()};

bool is_gpu_vertex(const VertexInfo& v) {
  return v.endpoint.kind == VertexKind::kDie || v.endpoint.kind == VertexKind::kIod || v.endpoint.kind == VertexKind::kMemory;
}

// Keeps an edge when its tail may be crossed (the route's own source, or a transit vertex) and,
// for a GPU-to-GPU link, when it leaves the source's own GPU: in a full mesh, a direct bundle or
// behind a switch a GPU does not forward a peer's traffic onto its other links (every peer is
// reached directly or through the switch; without this rule a full mesh with zero latencies
// could tie a two-link detour with the direct link). In a ring, a torus or a listed topology
// some peers have no direct link, and a GPU's IOD forwards their traffic to its next link (as a
// torus's routers do): every GPU link may be crossed there.
bool gpus_forward_peer_traffic(const SystemSpec& spec) {
  const std::string& t = spec.interconnect.topology;
  return t == "ring" || t == "torus_2d" || t == "links";
}

// A GPU's NIC carries that GPU's traffic out of its node and anyone's in: a route enters the
// network through its own GPU's NIC (NCCL's PXN, a peer's NIC reached over NVLink, is a
// library's choice of source GPU, not a route).
struct TransitFilter {
  const Topology* topology = nullptr;
  Vertex source = 0;
  bool gpus_forward = false;
  bool operator()(const Edge& e) const {
    const Graph& g = topology->graph();
    const Vertex tail = boost::source(e, g);
    if (tail != source && !g[tail].transit) return false;
    const VertexInfo& head = g[boost::target(e, g)];
    if (head.endpoint.kind == VertexKind::kNic && is_gpu_vertex(g[tail])) {
      return is_gpu_vertex(g[source]) && g[source].endpoint.gpu == head.endpoint.gpu;
    }
    const ResourceId r = g[e].resource;
    if (gpus_forward || r == kNoResource || !is_gpu_vertex(g[tail])) return true;
    const ResourceClass c = topology->resource(r).resource_class;
    if (c != ResourceClass::kXgmi && c != ResourceClass::kNvlink) return true;
    return is_gpu_vertex(g[source]) && g[source].endpoint.gpu == g[tail].endpoint.gpu;
  }
};

std::uint64_t route_key(std::size_t num_vertices, Vertex src, Vertex dst, RouteOptions options) {
  const std::uint64_t pair = static_cast<std::uint64_t>(src) * num_vertices + dst;
  return pair * 6 + static_cast<std::uint64_t>(options.memory) * 2 + (options.include_l2 ? 1 : 0);
}

}  // namespace

RouteTable::RouteTable(const Topology& topology)
    : topology_(topology),
      trees_(topology.num_vertices()),
      has_tree_(topology.num_vertices(), false),
      route_index_(topology.num_vertices() * topology.num_vertices() * 6, 0) {}

const RouteTable::Tree& RouteTable::tree_from(Vertex src) {
  if (has_tree_.at(src)) return trees_[src];
  const Graph& g = topology_.graph();
  TransitFilter filter{&topology_, src, gpus_forward_peer_traffic(topology_.spec())};
  boost::filtered_graph<Graph, TransitFilter> view(g, filter);
  Tree& tree = trees_[src];
  tree.cost.assign(boost::num_vertices(g), kUnreachable);
  const auto index = boost::get(boost::vertex_index, g);
  boost::dijkstra_shortest_paths(
      view, src,
      boost::weight_map(boost::get(&EdgeInfo::cost, g))
          .distance_map(boost::make_iterator_property_map(tree.cost.begin(), index))
          .distance_compare(std::less<PathCost>())
          .distance_combine(std::plus<PathCost>())
          .distance_inf(kUnreachable)
          .distance_zero(PathCost{}));
  has_tree_[src] = true;
  return tree;
}

Route RouteTable::compute(Vertex src, Vertex dst, RouteOptions options) {
  const Graph& g = topology_.graph();
  const Tree& tree = tree_from(src);
  if (tree.cost.at(dst) == kUnreachable) {
    throw std::invalid_argument(fmt::format("topology of '{}': no path from {} to {}", topology_.spec().name,
                                            g[src].name, g[dst].name));
  }
  // Walk back from the destination; among equal-cost predecessors take the smallest vertex
  // index, then the edge created first.
  const TransitFilter allowed{&topology_, src, gpus_forward_peer_traffic(topology_.spec())};
  std::vector<Edge> path;
  for (Vertex v = dst; v != src;) {
    std::optional<Edge> best;
    for (const Edge& e : boost::make_iterator_range(boost::in_edges(v, g))) {
      const Vertex u = boost::source(e, g);
      if (!allowed(e)) continue;
      if (tree.cost[u] == kUnreachable || tree.cost[u] + g[e].cost != tree.cost[v]) continue;
      if (!best || u < boost::source(*best, g) || (u == boost::source(*best, g) && g[e].order < g[*best].order)) {
        best = e;
      }
    }
    path.push_back(*best);  // exists: v's cost was reached through some such edge
    v = boost::source(*best, g);
  }
  std::reverse(path.begin(), path.end());

  Route route;
  auto end_resources = [&](Vertex v) {
    const VertexInfo& info = g[v];
    switch (info.endpoint.kind) {
      case VertexKind::kDie:
        if (options.include_l2) route.resources.push_back(info.node_resource);
        break;
      case VertexKind::kMemory:
        if (options.memory == MemoryNode::kHbm) route.resources.push_back(info.node_resource);
        if (options.memory == MemoryNode::kMall) {
          if (info.mall == kNoResource) {
            throw std::invalid_argument(
                fmt::format("topology of '{}': {} has no MALL", topology_.spec().name, info.name));
          }
          route.resources.push_back(info.mall);
        }
        break;
      default:
        if (info.node_resource != kNoResource) route.resources.push_back(info.node_resource);
        break;
    }
  };
  route.vertices.push_back(src);
  end_resources(src);
  for (const Edge& e : path) {
    const Vertex to = boost::target(e, g);
    route.vertices.push_back(to);
    if (g[e].resource != kNoResource) route.resources.push_back(g[e].resource);
    if (to != dst && g[to].node_resource != kNoResource) route.resources.push_back(g[to].node_resource);
  }
  if (dst != src) end_resources(dst);

  for (ResourceId id : route.resources) {
    const fabric::Resource& r = topology_.resource(id).spec;
    route.latency_ps += r.latency_ps;
    route.bottleneck_bytes_per_s = std::min(route.bottleneck_bytes_per_s, r.bandwidth_bytes_per_s);
  }
  return route;
}

const Route& RouteTable::route(Vertex src, Vertex dst, RouteOptions options) {
  const std::size_t n = topology_.num_vertices();
  if (src >= n || dst >= n) throw std::out_of_range("route: vertex out of range");
  const std::uint64_t key = route_key(n, src, dst, options);
  if (const std::uint32_t at = route_index_[key]; at != 0) return routes_[at - 1];
  routes_.push_back(compute(src, dst, options));
  route_index_[key] = static_cast<std::uint32_t>(routes_.size());
  return routes_.back();
}

const Route& RouteTable::route(const Endpoint& src, const Endpoint& dst, RouteOptions options) {
  return route(topology_.vertex(src), topology_.vertex(dst), options);
}

const Route& RouteTable::die_to_local_memory(std::uint32_t gpu, std::uint32_t die, RouteOptions options) {
  return route(Endpoint::die(gpu, die), Endpoint::memory(gpu), options);
}

const Route& RouteTable::die_to_peer_memory(std::uint32_t gpu, std::uint32_t die, std::uint32_t peer,
                                            RouteOptions options) {
  return route(Endpoint::die(gpu, die), Endpoint::memory(peer), options);
}

const Route& RouteTable::die_to_peer_die(std::uint32_t gpu, std::uint32_t die, std::uint32_t peer,
                                         std::uint32_t peer_die, RouteOptions options) {
  return route(Endpoint::die(gpu, die), Endpoint::die(peer, peer_die), options);
}

}  // namespace tessera::models::topology

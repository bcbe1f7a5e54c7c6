#pragma once
// The static topology of a system: a directed Boost graph of dies, IODs, memory sides,
// switches and the host, plus the table of resources (link directions and node bandwidths)
// that a flow crosses. Immutable once built (see build_topology); routing lives in RouteTable.
//
// Each direction of a physical link is its own edge because each direction has its own
// bandwidth. An edge carries at most one resource; a vertex carries node resources (a die's
// L2, a memory side's MALL and HBM, a switch's crossbar) so that a route is simply the list of
// resources it crosses. Resource ids are dense indices 0..num_resources()-1.
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "models/fabric/resource.h"
#include "models/system/system_spec.h"
#include "models/topology/endpoint.h"
#include "models/topology/resource_class.h"

namespace tessera::models::topology {

using ResourceId = fabric::ResourceId;
inline constexpr ResourceId kNoResource = std::numeric_limits<ResourceId>::max();

struct TopologyResource {
  fabric::Resource spec;     // valid instance name, bandwidth, latency: ready for a FlowNetwork
  ResourceClass resource_class = ResourceClass::kDieLink;
  std::string label;  // a link: "from->to", e.g. "gpu[0].iod[1]->gpu[0].iod[2]"; a node: its vertex
  std::uint32_t num_links = 1;  // physical links aggregated into this resource (1 for nodes)
};

struct VertexInfo {
  std::string name;  // Endpoint::name()
  Endpoint endpoint;
  // Node resources: kDie -> L2; kMemory -> HBM; kSwitch -> crossbar. kNoResource otherwise.
  ResourceId node_resource = kNoResource;
  ResourceId mall = kNoResource;  // kMemory only, when the GPU has a memory-side cache
  // A transit vertex may be crossed in the middle of a route; dies and memory sides are only
  // ever ends (else a route could bypass an IOD link through the memory side's free edges).
  bool transit = true;
};

// Unloaded cost of an edge, compared lexicographically: latency first, then hop count, so
// that when latencies tie (or are all zero) the route with fewer hops wins.
struct PathCost {
  sim::Tick latency_ps = 0;
  std::uint32_t hops = 0;
  auto operator<=>(const PathCost&) const = default;
  PathCost operator+(const PathCost& o) const { return {latency_ps + o.latency_ps, hops + o.hops}; }
};

struct EdgeInfo {
  ResourceId resource = kNoResource;  // kNoResource: a structural edge (IOD <-> memory side)
  PathCost cost;                       // latency of the resource and of a switch it enters (0 for structural), 1 hop
  std::uint32_t order = 0;             // creation order: the last tie-break, see RouteTable
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, VertexInfo, EdgeInfo>;
using Vertex = Graph::vertex_descriptor;
inline constexpr Vertex kNoVertex = ~Vertex{0};
using Edge = Graph::edge_descriptor;

class Topology {
 public:
  Topology(SystemSpec spec, Graph graph, std::vector<TopologyResource> resources);

  const SystemSpec& spec() const { return spec_; }
  const Graph& graph() const { return graph_; }
  std::size_t num_vertices() const { return boost::num_vertices(graph_); }
  std::size_t num_edges() const { return boost::num_edges(graph_); }
  std::size_t num_resources() const { return resources_.size(); }

  const TopologyResource& resource(ResourceId id) const { return resources_.at(id); }
  std::span<const TopologyResource> resources() const { return resources_; }
  std::size_t count_resources(ResourceClass c) const;
  // The resource id with this instance name; nullopt when none.
  std::optional<ResourceId> find_resource(std::string_view name) const;

  // The vertex of an endpoint; throws std::out_of_range when the system has no such vertex.
  Vertex vertex(const Endpoint& endpoint) const;
  std::optional<Vertex> find_vertex(std::string_view name) const;
  const VertexInfo& info(Vertex v) const { return graph_[v]; }

 private:
  SystemSpec spec_;
  Graph graph_;
  std::vector<TopologyResource> resources_;
  std::map<std::string, Vertex, std::less<>> vertex_by_name_;
  // vertex() is on the path of every memory access: a dense table per (kind, gpu) of the
  // vertices by index, instead of a lookup by name.
  std::vector<std::vector<std::vector<Vertex>>> vertex_by_endpoint_;  // [kind][gpu][index]
  std::map<std::string, ResourceId, std::less<>> resource_by_name_;
};

}  // namespace tessera::models::topology

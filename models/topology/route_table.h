#pragma once
// Routes between topology vertices, computed once and cached, so a hot-path lookup is one hash
// probe.
//
// Rule: the shortest path by unloaded latency (Dijkstra, Boost.Graph), ties broken first by
// fewer hops and then, walking back from the destination, by the predecessor with the
// smallest vertex index (then the edge created first). Vertex indices follow the build order,
// which follows only the spec, so the same system always routes the same way. Dies and memory
// sides never appear mid-route (VertexInfo::transit).
#include <cstdint>
#include <deque>
#include <vector>

#include "models/topology/endpoint.h"
#include "models/topology/route.h"
#include "models/topology/topology.h"

namespace tessera::models::topology {

class RouteTable {
 public:
  // `topology` must outlive the table.
  explicit RouteTable(const Topology& topology);

  // Throws std::out_of_range for an endpoint the system lacks, std::invalid_argument when no
  // path exists or a requested node resource is absent (a MALL hit on a GPU without MALL).
  const Route& route(const Endpoint& src, const Endpoint& dst, RouteOptions options = {});
  const Route& route(Vertex src, Vertex dst, RouteOptions options = {});

  // The common paths. Memory routes include the HBM (RouteOptions{} default).
  const Route& die_to_local_memory(std::uint32_t gpu, std::uint32_t die, RouteOptions options = {});
  const Route& die_to_peer_memory(std::uint32_t gpu, std::uint32_t die, std::uint32_t peer,
                                  RouteOptions options = {});
  const Route& die_to_peer_die(std::uint32_t gpu, std::uint32_t die, std::uint32_t peer, std::uint32_t peer_die,
                               RouteOptions options = {});

  std::size_t num_cached_routes() const { return routes_.size(); }
  const Topology& topology() const { return topology_; }

 private:
  struct Tree {
    std::vector<PathCost> cost;  // from the source to every vertex; unreachable: max
  };
  const Tree& tree_from(Vertex src);
  Route compute(Vertex src, Vertex dst, RouteOptions options);

  const Topology& topology_;
  std::vector<Tree> trees_;  // per source vertex, filled lazily
  std::vector<bool> has_tree_;
  // Every memory access asks for a route: a dense index (0: not computed yet, else 1 + the
  // position in routes_) rather than a hash lookup. A deque keeps references stable.
  std::vector<std::uint32_t> route_index_;
  std::deque<Route> routes_;
};

}  // namespace tessera::models::topology

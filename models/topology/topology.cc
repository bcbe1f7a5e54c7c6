#include "models/topology/topology.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace tessera::models::topology {

Topology::Topology(SystemSpec spec, Graph graph, std::vector<TopologyResource> resources)
    : spec_(std::move(spec)), graph_(std::move(graph)), resources_(std::move(resources)) {
  for (Vertex v : boost::make_iterator_range(boost::vertices(graph_))) {
    if (!vertex_by_name_.emplace(graph_[v].name, v).second) {
      throw std::logic_error("topology: duplicate vertex " + graph_[v].name);
    }
    const Endpoint& e = graph_[v].endpoint;
    const auto kind = static_cast<std::size_t>(e.kind);
    if (vertex_by_endpoint_.size() <= kind) vertex_by_endpoint_.resize(kind + 1);
    auto& by_gpu = vertex_by_endpoint_[kind];
    if (by_gpu.size() <= e.gpu) by_gpu.resize(e.gpu + 1);
    auto& by_index = by_gpu[e.gpu];
    if (by_index.size() <= e.index) by_index.resize(e.index + 1, kNoVertex);
    by_index[e.index] = v;
  }
  for (ResourceId id = 0; id < resources_.size(); ++id) {
    if (!resource_by_name_.emplace(resources_[id].spec.name, id).second) {
      throw std::logic_error("topology: duplicate resource " + resources_[id].spec.name);
    }
  }
}

std::size_t Topology::count_resources(ResourceClass c) const {
  return static_cast<std::size_t>(
      std::count_if(resources_.begin(), resources_.end(), [c](const auto& r) { return r.resource_class == c; }));
}

std::optional<ResourceId> Topology::find_resource(std::string_view name) const {
  auto it = resource_by_name_.find(name);
  if (it == resource_by_name_.end()) return std::nullopt;
  return it->second;
}

Vertex Topology::vertex(const Endpoint& endpoint) const {
  const auto kind = static_cast<std::size_t>(endpoint.kind);
  if (kind < vertex_by_endpoint_.size() && endpoint.gpu < vertex_by_endpoint_[kind].size()) {
    const auto& by_index = vertex_by_endpoint_[kind][endpoint.gpu];
    if (endpoint.index < by_index.size() && by_index[endpoint.index] != kNoVertex) return by_index[endpoint.index];
  }
  throw std::out_of_range("topology of '" + spec_.name + "' has no vertex " + endpoint.name());
}

std::optional<Vertex> Topology::find_vertex(std::string_view name) const {
  auto it = vertex_by_name_.find(name);
  if (it == vertex_by_name_.end()) return std::nullopt;
  return it->second;
}

}  // namespace tessera::models::topology

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
  const std::string name = endpoint.name();
  auto it = vertex_by_name_.find(name);
  if (it == vertex_by_name_.end()) throw std::out_of_range("topology of '" + spec_.name + "' has no vertex " + name);
  return it->second;
}

std::optional<Vertex> Topology::find_vertex(std::string_view name) const {
  auto it = vertex_by_name_.find(name);
  if (it == vertex_by_name_.end()) return std::nullopt;
  return it->second;
}

}  // namespace tessera::models::topology

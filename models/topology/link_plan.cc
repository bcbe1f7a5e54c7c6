#include "models/topology/link_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string_view>


namespace tessera::models::topology {
namespace {

std::string link_class_name(const SystemSpec& spec) { return std::string(to_string(gpu_link_class(spec))); }

void require(bool ok, const SystemSpec& spec, std::string_view what) {
  if (!ok) throw std::invalid_argument(fmt::format("topology of '{}': {}", spec.name, what));
}

PlanNode gpu_node(std::uint32_t g) { return {false, g}; }
PlanNode switch_node(std::uint32_t s) { return {true, s}; }

// The GPUs of one node: every node is wired alike, its GPUs and switches numbered on from the
// previous node's.
struct NodeScope {
  std::uint32_t first_gpu = 0;
  std::uint32_t num_gpus = 0;
};

// A bundle from every GPU to each of its neighbours, GPU by GPU (each direction once, as the
// neighbour lists are symmetric).
// `neighbours_of` speaks of the node's own GPUs (0 .. num_gpus - 1).
template <class NeighboursOf>
void add_neighbour_bundles(LinkPlan& plan, const SystemSpec& spec, NodeScope node, NeighboursOf neighbours_of) {
  const InterconnectSpec& ic = spec.interconnect;
  const std::string cls = link_class_name(spec);
  for (std::uint32_t local = 0; local < node.num_gpus; ++local) {
    const std::uint32_t a = node.first_gpu + local;
    for (const Neighbour& n : neighbours_of(local)) {
      const std::uint32_t b = node.first_gpu + n.gpu;
      plan.links.push_back({gpu_node(a), gpu_node(b), n.count, ic.link_bandwidth_bytes_per_s, ic.link_latency_ps,
                            fmt::format("gpu[{}].{}_to[{}]", a, cls, b)});
    }
  }
}

void plan_peer_mesh(LinkPlan& plan, const SystemSpec& spec, NodeScope node, std::uint32_t links_per_peer) {
  add_neighbour_bundles(plan, spec, node, [&](std::uint32_t a) {
    std::vector<Neighbour> peers;
    for (std::uint32_t p = 0; p < node.num_gpus; ++p) {
      if (p != a) peers.push_back({p, links_per_peer});
    }
    return peers;
  });
}

// All switch chips aggregated into one (README): hardware stripes every transfer over all of a
// GPU's links, so one pair of GPUs can use them all.
void plan_switch(LinkPlan& plan, const SystemSpec& spec, NodeScope node) {
  const InterconnectSpec& ic = spec.interconnect;
  const std::string cls = link_class_name(spec);
  const auto s = static_cast<std::uint32_t>(plan.switches.size());
  plan.switches.push_back({ic.switch_latency_ps, ic.num_switches});
  for (std::uint32_t g = node.first_gpu; g < node.first_gpu + node.num_gpus; ++g) {
    plan.links.push_back({gpu_node(g), switch_node(s), ic.links_per_gpu, ic.link_bandwidth_bytes_per_s,
                          ic.link_latency_ps, fmt::format("gpu[{}].{}_up", g, cls)});
    plan.links.push_back({switch_node(s), gpu_node(g), ic.links_per_gpu, ic.link_bandwidth_bytes_per_s,
                          ic.link_latency_ps, fmt::format("switch[{}].{}_to[{}]", s, cls, g)});
  }
}

// What the file lists, each entry both ways in the file's order.
void plan_listed(LinkPlan& plan, const SystemSpec& spec, NodeScope node) {
  const InterconnectSpec& ic = spec.interconnect;
  const std::string cls = link_class_name(spec);
  std::map<std::string, std::uint32_t> switch_index;
  for (const SwitchSpec& s : ic.switches) {
    switch_index.emplace(s.name, static_cast<std::uint32_t>(plan.switches.size()));
    plan.switches.push_back({s.latency_ps.value_or(ic.switch_latency_ps), 1});
  }
  auto node_of = [&](const std::string& endpoint) {
    if (const std::optional<std::uint32_t> g = gpu_endpoint_index(endpoint)) return gpu_node(node.first_gpu + *g);
    const auto it = switch_index.find(endpoint);
    if (it == switch_index.end()) throw std::invalid_argument(fmt::format("unknown link endpoint '{}'", endpoint));
    return switch_node(it->second);
  };
  auto name_of = [&](PlanNode from, PlanNode to) {
    const std::string at = from.is_switch ? fmt::format("switch[{}]", from.index) : fmt::format("gpu[{}]", from.index);
    return to.is_switch ? fmt::format("{}.{}_to_switch[{}]", at, cls, to.index)
                        : fmt::format("{}.{}_to[{}]", at, cls, to.index);
  };
  for (const LinkSpec& link : ic.links) {
    const PlanNode a = node_of(link.between.at(0));
    const PlanNode b = node_of(link.between.at(1));
    const double bandwidth = link.bandwidth_bytes_per_s.value_or(ic.link_bandwidth_bytes_per_s);
    const sim::Tick latency = link.latency_ps.value_or(ic.link_latency_ps);
    plan.links.push_back({a, b, link.count, bandwidth, latency, name_of(a, b)});
    plan.links.push_back({b, a, link.count, bandwidth, latency, name_of(b, a)});
  }
}

void add_share(std::vector<Neighbour>& out, std::uint32_t gpu, std::uint32_t count) {
  for (Neighbour& n : out) {
    if (n.gpu == gpu) {
      n.count += count;
      return;
    }
  }
  out.push_back({gpu, count});
}

std::vector<Neighbour> sorted(std::vector<Neighbour> v) {
  std::sort(v.begin(), v.end(), [](const Neighbour& x, const Neighbour& y) { return x.gpu < y.gpu; });
  return v;
}

}  // namespace

ResourceClass gpu_link_class(const SystemSpec& spec) {
  return spec.gpu.vendor == "amd" ? ResourceClass::kXgmi : ResourceClass::kNvlink;
}

std::vector<Neighbour> ring_neighbours(std::uint32_t gpu, std::uint32_t num_gpus, std::uint32_t links_per_gpu) {
  std::vector<Neighbour> out;
  if (num_gpus < 2) return out;
  if (num_gpus == 2) return {{1 - gpu, links_per_gpu}};  // both neighbours are the other GPU: every link
  const std::uint32_t share = links_per_gpu / 2;
  add_share(out, (gpu + 1) % num_gpus, share);
  add_share(out, (gpu + num_gpus - 1) % num_gpus, share);
  return sorted(std::move(out));
}

std::vector<Neighbour> torus_neighbours(std::uint32_t gpu, std::uint32_t rows, std::uint32_t columns,
                                        std::uint32_t links_per_gpu) {
  std::vector<Neighbour> out;
  const std::uint32_t directions = (rows > 1 ? 2u : 0u) + (columns > 1 ? 2u : 0u);
  if (directions == 0) return out;
  const std::uint32_t share = links_per_gpu / directions;
  const std::uint32_t r = gpu / columns;
  const std::uint32_t c = gpu % columns;
  if (rows > 1) {
    add_share(out, ((r + 1) % rows) * columns + c, share);
    add_share(out, ((r + rows - 1) % rows) * columns + c, share);
  }
  if (columns > 1) {
    add_share(out, r * columns + (c + 1) % columns, share);
    add_share(out, r * columns + (c + columns - 1) % columns, share);
  }
  return sorted(std::move(out));
}

LinkPlan plan_links(const SystemSpec& spec) {
  LinkPlan plan;
  const InterconnectSpec& ic = spec.interconnect;
  const std::uint32_t n = gpus_per_node(spec);
  if (ic.topology == "none" || n == 1) return plan;
  if (ic.topology != "links") {
    require(ic.links_per_gpu >= 1 && ic.link_bandwidth_bytes_per_s > 0, spec,
            "a GPU interconnect needs links_per_gpu >= 1 and link_bandwidth > 0");
  }
  require(ic.topology != "full_mesh" || ic.links_per_gpu >= n - 1, spec,
          fmt::format("full_mesh: {} links per GPU cannot reach {} peers", ic.links_per_gpu, n - 1));
  require(ic.topology != "direct" || n == 2, spec, "direct: one bundle joins exactly 2 GPUs");
  require(ic.topology != "switch" || ic.num_switches >= 1, spec, "a switch topology needs num_switches >= 1");
  if (ic.topology == "torus_2d") require(ic.torus_dims.size() == 2, spec, "torus_2d needs torus_dims [rows, columns]");
  for (std::uint32_t k = 0; k < std::max(spec.scale_out.nodes, 1u); ++k) {
    const NodeScope node{k * n, n};
    if (ic.topology == "full_mesh") {
      plan_peer_mesh(plan, spec, node, ic.links_per_gpu / (n - 1));
    } else if (ic.topology == "direct") {
      plan_peer_mesh(plan, spec, node, ic.links_per_gpu);
    } else if (ic.topology == "switch") {
      plan_switch(plan, spec, node);
    } else if (ic.topology == "ring") {
      add_neighbour_bundles(plan, spec, node, [&](std::uint32_t a) { return ring_neighbours(a, n, ic.links_per_gpu); });
    } else if (ic.topology == "torus_2d") {
      add_neighbour_bundles(plan, spec, node, [&](std::uint32_t a) {
        return torus_neighbours(a, ic.torus_dims[0], ic.torus_dims[1], ic.links_per_gpu);
      });
    } else if (ic.topology == "links") {
      plan_listed(plan, spec, node);
    } else {
      throw std::invalid_argument(fmt::format("unknown interconnect topology '{}'", ic.topology));
    }
  }
  return plan;
}

}  // namespace tessera::models::topology

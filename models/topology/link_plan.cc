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

// A bundle from every GPU to each of its neighbours, GPU by GPU (each direction once, as the
// neighbour lists are symmetric).
template <class NeighboursOf>
void add_neighbour_bundles(LinkPlan& plan, const SystemSpec& spec, NeighboursOf neighbours_of) {
  const InterconnectSpec& ic = spec.interconnect;
  const std::string cls = link_class_name(spec);
  for (std::uint32_t a = 0; a < spec.num_gpus; ++a) {
    for (const Neighbour& n : neighbours_of(a)) {
      plan.links.push_back({gpu_node(a), gpu_node(n.gpu), n.count, ic.link_bandwidth_bytes_per_s, ic.link_latency_ps,
                            fmt::format("gpu[{}].{}_to[{}]", a, cls, n.gpu)});
    }
  }
}

void plan_peer_mesh(LinkPlan& plan, const SystemSpec& spec, std::uint32_t links_per_peer) {
  add_neighbour_bundles(plan, spec, [&](std::uint32_t a) {
    std::vector<Neighbour> peers;
    for (std::uint32_t p = 0; p < spec.num_gpus; ++p) {
      if (p != a) peers.push_back({p, links_per_peer});
    }
    return peers;
  });
}

// All switch chips aggregated into one (README): hardware stripes every transfer over all of a
// GPU's links, so one pair of GPUs can use them all.
void plan_switch(LinkPlan& plan, const SystemSpec& spec) {
  const InterconnectSpec& ic = spec.interconnect;
  const std::string cls = link_class_name(spec);
  plan.switches.push_back({ic.switch_latency_ps, ic.num_switches});
  for (std::uint32_t g = 0; g < spec.num_gpus; ++g) {
    plan.links.push_back({gpu_node(g), switch_node(0), ic.links_per_gpu, ic.link_bandwidth_bytes_per_s,
                          ic.link_latency_ps, fmt::format("gpu[{}].{}_up", g, cls)});
    plan.links.push_back({switch_node(0), gpu_node(g), ic.links_per_gpu, ic.link_bandwidth_bytes_per_s,
                          ic.link_latency_ps, fmt::format("switch[0].{}_to[{}]", cls, g)});
  }
}

// What the file lists, each entry both ways in the file's order.
void plan_listed(LinkPlan& plan, const SystemSpec& spec) {
  const InterconnectSpec& ic = spec.interconnect;
  const std::string cls = link_class_name(spec);
  std::map<std::string, std::uint32_t> switch_index;
  for (const SwitchSpec& s : ic.switches) {
    switch_index.emplace(s.name, static_cast<std::uint32_t>(plan.switches.size()));
    plan.switches.push_back({s.latency_ps.value_or(ic.switch_latency_ps), 1});
  }
  auto node_of = [&](const std::string& endpoint) {
    if (const std::optional<std::uint32_t> g = gpu_endpoint_index(endpoint)) return gpu_node(*g);
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
  if (ic.topology == "none" || spec.num_gpus == 1) return plan;
  if (ic.topology != "links") {
    require(ic.links_per_gpu >= 1 && ic.link_bandwidth_bytes_per_s > 0, spec,
            "a GPU interconnect needs links_per_gpu >= 1 and link_bandwidth > 0");
  }
  require(ic.topology != "full_mesh" || ic.links_per_gpu >= spec.num_gpus - 1, spec,
          fmt::format("full_mesh: {} links per GPU cannot reach {} peers", ic.links_per_gpu, spec.num_gpus - 1));
  require(ic.topology != "direct" || spec.num_gpus == 2, spec, "direct: one bundle joins exactly 2 GPUs");
  require(ic.topology != "switch" || ic.num_switches >= 1, spec, "a switch topology needs num_switches >= 1");
  if (ic.topology == "full_mesh") {
    plan_peer_mesh(plan, spec, ic.links_per_gpu / (spec.num_gpus - 1));
  } else if (ic.topology == "direct") {
    plan_peer_mesh(plan, spec, ic.links_per_gpu);
  } else if (ic.topology == "switch") {
    plan_switch(plan, spec);
  } else if (ic.topology == "ring") {
    add_neighbour_bundles(plan, spec, [&](std::uint32_t a) { return ring_neighbours(a, spec.num_gpus, ic.links_per_gpu); });
  } else if (ic.topology == "torus_2d") {
    if (ic.torus_dims.size() != 2) throw std::invalid_argument("torus_2d needs torus_dims [rows, columns]");
    add_neighbour_bundles(plan, spec, [&](std::uint32_t a) {
      return torus_neighbours(a, ic.torus_dims[0], ic.torus_dims[1], ic.links_per_gpu);
    });
  } else if (ic.topology == "links") {
    plan_listed(plan, spec);
  } else {
    throw std::invalid_argument(fmt::format("unknown interconnect topology '{}'", ic.topology));
  }
  return plan;
}

}  // namespace tessera::models::topology

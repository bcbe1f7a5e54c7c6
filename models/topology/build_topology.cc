#include "models/topology/build_topology.h"

#include "models/topology/link_plan.h"

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tessera::models::topology {
namespace {

void require(bool ok, const SystemSpec& spec, std::string_view what) {
  if (!ok) throw std::invalid_argument(fmt::format("topology of '{}': {}", spec.name, what));
}

// Accumulates vertices, edges and resources; knows nothing about any particular machine.
class GraphBuilder {
 public:
  Vertex add_vertex(const Endpoint& endpoint, bool transit) {
    return boost::add_vertex(VertexInfo{endpoint.name(), endpoint, kNoResource, kNoResource, transit}, graph_);
  }

  ResourceId add_resource(std::string name, ResourceClass c, double bandwidth, sim::Tick latency_ps,
                          std::string label, std::uint32_t num_links = 1) {
    resources_.push_back(TopologyResource{{std::move(name), bandwidth, latency_ps}, c, std::move(label), num_links});
    return static_cast<ResourceId>(resources_.size() - 1);
  }

  // One direction of a link: an edge carrying its own resource.
  void add_link(Vertex from, Vertex to, std::string name, ResourceClass c, double bandwidth, sim::Tick latency_ps,
                std::uint32_t num_links = 1) {
    const std::string label = graph_[from].name + "->" + graph_[to].name;
    const ResourceId id = add_resource(std::move(name), c, bandwidth, latency_ps, label, num_links);
    add_edge(from, to, id, latency_ps);
  }

  // An edge with no resource: nothing to share, nothing to wait for.
  void add_structural(Vertex from, Vertex to) { add_edge(from, to, kNoResource, 0); }

  VertexInfo& info(Vertex v) { return graph_[v]; }
  Topology finish(const SystemSpec& spec) { return Topology(spec, std::move(graph_), std::move(resources_)); }

 private:
  // The cost of an edge is what reaching its head costs: the link's latency and, at a switch, the
  // crossbar's (so that routing weighs a detour through switches by their latency too). A
  // vertex's node resource must be set before the edges into it are added.
  void add_edge(Vertex from, Vertex to, ResourceId id, sim::Tick latency_ps) {
    const VertexInfo& head = graph_[to];
    const sim::Tick through = head.transit && head.node_resource != kNoResource
                                  ? resources_[head.node_resource].spec.latency_ps
                                  : 0;
    boost::add_edge(from, to, EdgeInfo{id, PathCost{latency_ps + through, 1}, next_order_++}, graph_);
  }

  Graph graph_;
  std::vector<TopologyResource> resources_;
  std::uint32_t next_order_ = 0;
};

struct GpuVertices {
  std::vector<Vertex> dies;
  std::vector<Vertex> iods;
  Vertex mem = 0;
};

void validate(const SystemSpec& spec) {
  const GpuSpec& gpu = spec.gpu;
  require(spec.num_gpus >= 1, spec, "num_gpus must be at least 1");
  require(gpu.compute.num_dies >= 1, spec, "num_dies must be at least 1");
  require(gpu.fabric.num_iods >= 1, spec, "num_iods must be at least 1");
  require(gpu.compute.num_dies % gpu.fabric.num_iods == 0, spec,
          fmt::format("{} dies cannot be spread evenly over {} IODs", gpu.compute.num_dies, gpu.fabric.num_iods));
  require(gpu.fabric.die_link_bandwidth_bytes_per_s > 0, spec, "die_link_bandwidth must be > 0");
  require(gpu.fabric.num_iods == 1 || gpu.fabric.iod_link_bandwidth_bytes_per_s > 0, spec,
          "iod_link_bandwidth must be > 0 with more than one IOD");
  require(gpu.memory.hbm_bandwidth_bytes_per_s > 0, spec, "hbm_bandwidth must be > 0");
  require(gpu.memory.l2.bandwidth_bytes_per_s > 0, spec, "l2 bandwidth must be > 0");
  require(gpu.memory.mall.capacity_bytes == 0 || gpu.memory.mall.bandwidth_bytes_per_s > 0, spec,
          "mall bandwidth must be > 0 when the MALL has a capacity");
  require(spec.interconnect.pcie_bandwidth_bytes_per_s >= 0, spec, "pcie_bandwidth must be >= 0");
}

GpuVertices build_gpu(GraphBuilder& b, const SystemSpec& spec, std::uint32_t g) {
  const GpuSpec& gpu = spec.gpu;
  const FabricSpec& fabric = gpu.fabric;
  const std::string prefix = fmt::format("gpu[{}]", g);
  GpuVertices v;
  for (std::uint32_t i = 0; i < fabric.num_iods; ++i) v.iods.push_back(b.add_vertex(Endpoint::iod(g, i), true));
  v.mem = b.add_vertex(Endpoint::memory(g), false);
  b.info(v.mem).node_resource = b.add_resource(prefix + ".hbm", ResourceClass::kHbm,
                                               gpu.memory.hbm_bandwidth_bytes_per_s, gpu.memory.hbm_latency_ps,
                                               b.info(v.mem).name);
  if (gpu.memory.mall.capacity_bytes > 0) {
    // Latency 0: a MALL hit's latency is the cache model's to apply, not the path's.
    b.info(v.mem).mall = b.add_resource(prefix + ".mall", ResourceClass::kMall,
                                        gpu.memory.mall.bandwidth_bytes_per_s, 0, b.info(v.mem).name);
  }

  const std::uint32_t dies_per_iod = gpu.compute.num_dies / fabric.num_iods;
  for (std::uint32_t d = 0; d < gpu.compute.num_dies; ++d) {
    const Vertex die = b.add_vertex(Endpoint::die(g, d), false);
    v.dies.push_back(die);
    const std::string name = fmt::format("{}.die[{}]", prefix, d);
    // Latency 0: an L2 hit's latency is the cache model's to apply, not the path's.
    b.info(die).node_resource =
        b.add_resource(name + ".l2", ResourceClass::kL2, gpu.memory.l2.bandwidth_bytes_per_s, 0, name);
    const Vertex iod = v.iods[d / dies_per_iod];
    // The spec gives the die link no latency of its own; the measured HBM latency covers it.
    b.add_link(die, iod, name + ".link_up", ResourceClass::kDieLink, fabric.die_link_bandwidth_bytes_per_s, 0);
    b.add_link(iod, die, name + ".link_down", ResourceClass::kDieLink, fabric.die_link_bandwidth_bytes_per_s, 0);
  }

  // IODs fully connected (README: MI300X's four IODs form a ring/mesh whose exact wiring the
  // public sources leave open; full connection gives every IOD pair one hop).
  for (std::uint32_t i = 0; i < fabric.num_iods; ++i) {
    for (std::uint32_t j = 0; j < fabric.num_iods; ++j) {
      if (i == j) continue;
      b.add_link(v.iods[i], v.iods[j], fmt::format("{}.iod[{}].to_iod[{}]", prefix, i, j), ResourceClass::kIodLink,
                 fabric.iod_link_bandwidth_bytes_per_s, fabric.iod_hop_latency_ps);
    }
  }

  // Memory is interleaved over every stack, so every IOD reaches the memory side directly; its
  // bandwidth limit is the HBM (and MALL) node resource, not these edges.
  for (Vertex iod : v.iods) {
    b.add_structural(iod, v.mem);
    b.add_structural(v.mem, iod);
  }
  return v;
}

// The IOD of GPU `gpu` where its links towards `peer` (a GPU, or a switch by its index) attach:
// an even, deterministic spread.
Vertex port_iod(const std::vector<GpuVertices>& gpus, std::uint32_t gpu, std::uint32_t peer) {
  const auto& iods = gpus[gpu].iods;
  return iods[peer % iods.size()];
}

// The planned links (link_plan.h) as edges, in the plan's order; the switches first, each with
// its crossbar: as wide as all the links into it, so it adds its latency and never limits.
void build_interconnect(GraphBuilder& b, const SystemSpec& spec, const std::vector<GpuVertices>& gpus) {
  const LinkPlan plan = plan_links(spec);
  std::vector<double> into(plan.switches.size(), 0.0);
  for (const PlannedLink& l : plan.links) {
    if (l.to.is_switch) into[l.to.index] += l.count * l.bandwidth_bytes_per_s;
  }
  std::vector<Vertex> switches;
  for (std::uint32_t s = 0; s < plan.switches.size(); ++s) {
    const Vertex sw = b.add_vertex(Endpoint::switch_at(s), true);
    const std::string name = b.info(sw).name;
    b.info(sw).node_resource = b.add_resource(name + ".crossbar", ResourceClass::kSwitch, into[s],
                                              plan.switches[s].latency_ps, name, plan.switches[s].num_chips);
    switches.push_back(sw);
  }
  auto vertex_of = [&](PlanNode end, PlanNode other) {
    return end.is_switch ? switches[end.index] : port_iod(gpus, end.index, other.index);
  };
  const ResourceClass c = gpu_link_class(spec);
  for (const PlannedLink& l : plan.links) {
    b.add_link(vertex_of(l.from, l.to), vertex_of(l.to, l.from), l.name, c, l.count * l.bandwidth_bytes_per_s,
               l.latency_ps, l.count);
  }
}

// Which leaf a GPU's NIC is cabled to, and how many NICs a leaf has (network.topology).
struct LeafWiring {
  bool rail = true;
  std::uint32_t num_leaves = 1;
  std::uint32_t nics_per_leaf = 0;
  std::uint32_t nodes_per_leaf = 0;  // fat_tree
  std::uint32_t leaf_of(const SystemSpec& spec, std::uint32_t gpu) const {
    return rail ? gpu % gpus_per_node(spec) : node_of(spec, gpu) / nodes_per_leaf;
  }
};

LeafWiring leaf_wiring(const SystemSpec& spec) {
  const NetworkSpec& net = spec.scale_out.network;
  const std::uint32_t nodes = spec.scale_out.nodes;
  if (net.topology == "rail") return {true, gpus_per_node(spec), nodes, 0};
  const std::uint32_t nodes_per_leaf = net.nodes_per_leaf == 0 ? nodes : net.nodes_per_leaf;
  return {false, nodes / nodes_per_leaf, nodes_per_leaf * gpus_per_node(spec), nodes_per_leaf};
}

// Systems of several nodes: each GPU's NIC (attached through PCIe at its first IOD), the leaf
// switches and, above several leaves, the spine. A switch is a crossbar as wide as the links into
// it (it adds its latency and never limits); a leaf's uplinks carry its NICs' bandwidth divided
// by the oversubscription.
void build_scale_out(GraphBuilder& b, const SystemSpec& spec, const std::vector<GpuVertices>& gpus) {
  const ScaleOutSpec& so = spec.scale_out;
  if (so.nodes <= 1) return;
  const NicSpec& nic = so.nic;
  const NetworkSpec& net = so.network;
  const LeafWiring wiring = leaf_wiring(spec);
  std::vector<Vertex> nics;
  for (std::uint32_t g = 0; g < spec.num_gpus; ++g) {
    const Vertex v = b.add_vertex(Endpoint::nic(g), true);
    nics.push_back(v);
    const Vertex iod = gpus[g].iods[0];
    b.add_link(iod, v, fmt::format("gpu[{}].nic.pcie_up", g), ResourceClass::kPcie, nic.pcie_bandwidth_bytes_per_s, 0);
    b.add_link(v, iod, fmt::format("gpu[{}].nic.pcie_down", g), ResourceClass::kPcie, nic.pcie_bandwidth_bytes_per_s, 0);
  }
  const double leaf_down = wiring.nics_per_leaf * nic.bandwidth_bytes_per_s;
  const double leaf_up = leaf_down / net.oversubscription;
  const bool spine = wiring.num_leaves > 1;
  std::vector<Vertex> leaves;
  for (std::uint32_t i = 0; i < wiring.num_leaves; ++i) {
    const Vertex leaf = b.add_vertex(Endpoint::leaf(i), true);
    b.info(leaf).node_resource = b.add_resource(fmt::format("leaf[{}].crossbar", i), ResourceClass::kSwitch,
                                                leaf_down + (spine ? leaf_up : 0), net.switch_latency_ps,
                                                b.info(leaf).name);
    leaves.push_back(leaf);
  }
  for (std::uint32_t g = 0; g < spec.num_gpus; ++g) {
    const std::uint32_t i = wiring.leaf_of(spec, g);
    b.add_link(nics[g], leaves[i], fmt::format("gpu[{}].nic.tx", g), ResourceClass::kNic, nic.bandwidth_bytes_per_s,
               nic.latency_ps);
    b.add_link(leaves[i], nics[g], fmt::format("leaf[{}].to_nic[{}]", i, g), ResourceClass::kNic,
               nic.bandwidth_bytes_per_s, nic.latency_ps);
  }
  if (!spine) return;
  const Vertex top = b.add_vertex(Endpoint::spine(), true);
  b.info(top).node_resource = b.add_resource("spine.crossbar", ResourceClass::kSwitch, leaf_up * wiring.num_leaves,
                                             net.switch_latency_ps, b.info(top).name);
  for (std::uint32_t i = 0; i < wiring.num_leaves; ++i) {
    b.add_link(leaves[i], top, fmt::format("leaf[{}].up", i), ResourceClass::kNetwork, leaf_up, 0);
    b.add_link(top, leaves[i], fmt::format("spine.to_leaf[{}]", i), ResourceClass::kNetwork, leaf_up, 0);
  }
}

void build_host(GraphBuilder& b, const SystemSpec& spec, const std::vector<GpuVertices>& gpus) {
  const double bw = spec.interconnect.pcie_bandwidth_bytes_per_s;
  if (bw <= 0) return;
  // With no GPU links, peer traffic goes GPU -> root -> GPU; otherwise the host is an end only
  // (and always between nodes, whose hosts are apart: the vertex stands for each node's own).
  const bool transit = spec.interconnect.topology == "none" && spec.scale_out.nodes <= 1;
  const Vertex host = b.add_vertex(Endpoint::host(), transit);
  for (std::uint32_t g = 0; g < spec.num_gpus; ++g) {
    const Vertex iod = gpus[g].iods[0];
    b.add_link(iod, host, fmt::format("gpu[{}].pcie_up", g), ResourceClass::kPcie, bw, 0);
    b.add_link(host, iod, fmt::format("host.pcie_to[{}]", g), ResourceClass::kPcie, bw, 0);
  }
}

}  // namespace

Topology build_topology(const SystemSpec& spec) {
  validate(spec);
  GraphBuilder b;
  std::vector<GpuVertices> gpus;
  for (std::uint32_t g = 0; g < spec.num_gpus; ++g) gpus.push_back(build_gpu(b, spec, g));
  build_interconnect(b, spec, gpus);
  build_scale_out(b, spec, gpus);
  build_host(b, spec, gpus);
  return b.finish(spec);
}

}  // namespace tessera::models::topology

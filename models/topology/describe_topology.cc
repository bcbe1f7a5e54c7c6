#include "models/topology/describe_topology.h"

#include <fmt/format.h>

#include <array>

namespace tessera::models::topology {
namespace {

std::string bandwidth_text(double bytes_per_s) { return fmt::format("{:.1f} GB/s", bytes_per_s / 1e9); }
std::string latency_text(sim::Tick ps) { return fmt::format("{:.1f} ns", static_cast<double>(ps) / 1e3); }

bool is_gpu_link(ResourceClass c) {
  return c == ResourceClass::kXgmi || c == ResourceClass::kNvlink || c == ResourceClass::kPcie ||
         c == ResourceClass::kNic || c == ResourceClass::kNetwork;
}

}  // namespace

std::string describe_topology(const Topology& topology) {
  const SystemSpec& spec = topology.spec();
  const GpuSpec& gpu = spec.gpu;
  const InterconnectSpec& ic = spec.interconnect;
  std::string out;
  auto line = [&out](const std::string& text) { out += text + '\n'; };

  line(fmt::format("topology of {}: {} vertices, {} edges, {} resources", spec.name, topology.num_vertices(),
                   topology.num_edges(), topology.num_resources()));
  line(fmt::format("  {} x GPU {} ({}): {} dies on {} IODs ({} dies per IOD), IODs {}", spec.num_gpus, gpu.model,
                   gpu.vendor, gpu.compute.num_dies, gpu.fabric.num_iods, gpu.compute.num_dies / gpu.fabric.num_iods,
                   gpu.fabric.num_iods > 1 ? "fully connected" : "single"));
  line(fmt::format("    die link {} each way", bandwidth_text(gpu.fabric.die_link_bandwidth_bytes_per_s)) +
       (gpu.fabric.num_iods > 1 ? fmt::format("; IOD link {} each way, {} per hop",
                                              bandwidth_text(gpu.fabric.iod_link_bandwidth_bytes_per_s),
                                              latency_text(gpu.fabric.iod_hop_latency_ps))
                                : std::string()));
  line(fmt::format("    memory side: HBM {}, {}; MALL {}; L2 {} per die",
                   bandwidth_text(gpu.memory.hbm_bandwidth_bytes_per_s), latency_text(gpu.memory.hbm_latency_ps),
                   gpu.memory.mall.capacity_bytes > 0 ? bandwidth_text(gpu.memory.mall.bandwidth_bytes_per_s) : "none",
                   bandwidth_text(gpu.memory.l2.bandwidth_bytes_per_s)));
  if (ic.topology == "switch" && spec.num_gpus > 1) {
    line(fmt::format("  interconnect: switch, {} switches aggregated into switch[0] ({} latency), {} links per GPU",
                     ic.num_switches, latency_text(ic.switch_latency_ps), ic.links_per_gpu));
  } else {
    line(fmt::format("  interconnect: {}, {} links per GPU", spec.num_gpus > 1 ? ic.topology : "none",
                     ic.links_per_gpu));
  }
  const ScaleOutSpec& so = spec.scale_out;
  if (so.nodes > 1) {
    std::uint32_t leaves = 0;
    for (Vertex v : boost::make_iterator_range(boost::vertices(topology.graph()))) {
      leaves += topology.info(v).endpoint.kind == VertexKind::kLeaf;
    }
    line(fmt::format("  scale-out: {} nodes x {} GPUs (the interconnect above joins one node); a NIC per GPU, {} "
                     "each way, {} through each, PCIe {}",
                     so.nodes, gpus_per_node(spec), bandwidth_text(so.nic.bandwidth_bytes_per_s),
                     latency_text(so.nic.latency_ps), bandwidth_text(so.nic.pcie_bandwidth_bytes_per_s)));
    line(fmt::format("    network: {}, {} leaves{}, {} per switch", so.network.topology, leaves,
                     leaves > 1 ? fmt::format(" under one spine (oversubscription {:g})", so.network.oversubscription)
                                : std::string(),
                     latency_text(so.network.switch_latency_ps)));
  }
  for (const TopologyResource& r : topology.resources()) {
    if (!is_gpu_link(r.resource_class)) continue;
    line(fmt::format("    {:<32} {:>2} x {:<7} {:>12} {:>10}", r.label, r.num_links, to_string(r.resource_class),
                     bandwidth_text(r.spec.bandwidth_bytes_per_s), latency_text(r.spec.latency_ps)));
  }

  std::array<std::size_t, kNumResourceClasses> counts{};
  for (const TopologyResource& r : topology.resources()) ++counts[static_cast<std::size_t>(r.resource_class)];
  std::string summary;
  for (int c = 0; c < kNumResourceClasses; ++c) {
    if (counts[static_cast<std::size_t>(c)] == 0) continue;
    summary += fmt::format(" {}={}", to_string(static_cast<ResourceClass>(c)), counts[static_cast<std::size_t>(c)]);
  }
  line("  resources by class:" + summary);
  line(fmt::format("  {:<32} {:<9} {:>12} {:>10}  {}", "resource", "class", "bandwidth", "latency", "crosses"));
  for (const TopologyResource& r : topology.resources()) {
    line(fmt::format("  {:<32} {:<9} {:>12} {:>10}  {}", r.spec.name, to_string(r.resource_class),
                     bandwidth_text(r.spec.bandwidth_bytes_per_s), latency_text(r.spec.latency_ps), r.label));
  }
  return out;
}

}  // namespace tessera::models::topology

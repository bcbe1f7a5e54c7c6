#include "sim/app/calibration/system_figures.h"

#include "models/topology/build_topology.h"
#include "models/topology/route_table.h"

namespace tessera::app::calibration {

double kernel_overhead_ps(const models::SystemSpec& system, std::uint64_t workgroups) {
  const auto& d = system.gpu.dispatch;
  const std::uint64_t dies = system.gpu.compute.num_dies;
  const std::uint64_t on_busiest_die = (workgroups + dies - 1) / dies;
  return static_cast<double>(d.kernel_launch_latency_ps) + static_cast<double>(on_busiest_die) * static_cast<double>(d.workgroup_dispatch_ps) +
         static_cast<double>(d.kernel_teardown_ps);
}

std::uint64_t default_stream_workgroups(const models::SystemSpec& system) { return models::total_compute_units(system.gpu); }

double total_l2_bytes(const models::SystemSpec& system) {
  return static_cast<double>(system.gpu.compute.num_dies) * static_cast<double>(system.gpu.memory.l2.capacity_bytes);
}

double links_to_one_peer(const models::SystemSpec& system) {
  const auto& ic = system.interconnect;
  if (ic.topology == "full_mesh" && system.num_gpus > 1) return static_cast<double>(ic.links_per_gpu) / (system.num_gpus - 1);
  if (ic.topology == "none") return 0;
  return ic.links_per_gpu;
}

double links_of_one_gpu(const models::SystemSpec& system) {
  return system.interconnect.topology == "none" ? 0 : static_cast<double>(system.interconnect.links_per_gpu);
}

double link_round_trip_ps(const models::SystemSpec& system, std::uint32_t gpu, std::uint32_t home) {
  if (gpu == home) return 0;
  namespace topo = models::topology;
  const topo::Topology topology = topo::build_topology(system);
  topo::RouteTable routes(topology);
  const topo::RouteOptions edges_only{.memory = topo::MemoryNode::kNone};
  return static_cast<double>(routes.route(topo::Endpoint::die(gpu, 0), topo::Endpoint::memory(home), edges_only).latency_ps +
                             routes.route(topo::Endpoint::memory(home), topo::Endpoint::die(gpu, 0), edges_only).latency_ps);
}

}  // namespace tessera::app::calibration

#pragma once
// One system, assembled from its SystemSpec: the topology and its routes, the fluid fabric
// carrying every transfer, one cache hierarchy and one compute model per GPU, the flags and
// atomics, and the memory system that turns a workgroup's load or store into flows.
//
// The machine only wires; each part is its own model (models/*/README.md). Workloads hold a
// Machine and issue kernels (gpu(g).launch), memory accesses (memory().access), copies and
// flag operations (flags()) against it; reports read the statistics the parts registered.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/cache/cache_hierarchy.h"
#include "models/compute/gpu_compute.h"
#include "models/fabric/flow_network.h"
#include "models/machine/memory_system.h"
#include "models/sync/flag_store.h"
#include "models/system/system_spec.h"
#include "models/topology/route_table.h"
#include "models/topology/topology.h"
#include "sim/component/context.h"

namespace tessera::models::machine {

// The cache hierarchy of one GPU of this spec: private L2s per die for AMD (MI300X XCDs), an
// address-partitioned L2 (one partition per die half) for NVIDIA.
cache::CacheHierarchySpec cache_hierarchy_spec(const GpuSpec& gpu);

class Machine {
 public:
  // Statistics are registered under `name` (e.g. "node"): node.fabric.*, node.gpu[g].*.
  // Throws std::invalid_argument for a spec the models cannot build.
  Machine(sim::Context context, const SystemSpec& spec, std::string name = "node");
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  const SystemSpec& spec() const { return topology_.spec(); }
  std::uint32_t num_gpus() const { return spec().num_gpus; }
  const topology::Topology& topology() const { return topology_; }
  topology::RouteTable& routes() { return routes_; }
  fabric::FlowNetwork& network() { return network_; }
  const fabric::FlowNetwork& network() const { return network_; }
  // The network id of a topology resource.
  fabric::ResourceId network_id(topology::ResourceId id) const { return network_ids_.at(id); }
  cache::CacheHierarchy& caches(std::uint32_t gpu) { return caches_.at(gpu); }
  const cache::CacheHierarchy& caches(std::uint32_t gpu) const { return caches_.at(gpu); }
  compute::GpuCompute& gpu(std::uint32_t gpu) { return *gpus_.at(gpu); }
  const compute::GpuCompute& gpu(std::uint32_t gpu) const { return *gpus_.at(gpu); }
  sync::FlagStore& flags() { return flags_; }
  MemorySystem& memory() { return memory_; }

  // The FlagAccess of a workgroup on (gpu, die) touching a flag homed on `home`: the link
  // round trip between them is added to the atomic latency of the spec.
  sync::FlagAccess flag_access(std::uint32_t gpu, std::uint32_t die, std::uint32_t home);

 private:
  topology::Topology topology_;
  topology::RouteTable routes_;
  fabric::FlowNetwork network_;
  std::vector<fabric::ResourceId> network_ids_;
  std::vector<cache::CacheHierarchy> caches_;
  std::vector<std::unique_ptr<compute::GpuCompute>> gpus_;
  sync::FlagStore flags_;
  MemorySystem memory_;
};

}  // namespace tessera::models::machine

#pragma once
// Hand-filled SystemSpecs for the model and workload tests: public MI300X / H100 / H200 figures,
// with round latencies chosen so that sums are easy to check. No config files are read.
#include <cstdint>
#include <string>

#include "models/system/system_spec.h"

namespace tessera::test {

using models::SystemSpec;

inline SystemSpec mi300x(std::uint32_t num_gpus) {
  SystemSpec s;
  s.name = "mi300x-" + std::to_string(num_gpus);
  s.num_gpus = num_gpus;
  s.gpu.model = "MI300X";
  s.gpu.vendor = "amd";
  s.gpu.compute.num_dies = 8;
  s.gpu.memory.hbm_bandwidth_bytes_per_s = 5.3e12;
  s.gpu.memory.hbm_latency_ps = 428'000;
  s.gpu.memory.l2.bandwidth_bytes_per_s = 4.3e12;
  s.gpu.memory.mall.capacity_bytes = 256ull << 20;
  s.gpu.memory.mall.bandwidth_bytes_per_s = 17.2e12;
  s.gpu.fabric.die_link_bandwidth_bytes_per_s = 2.15e12;
  s.gpu.fabric.num_iods = 4;
  s.gpu.fabric.iod_link_bandwidth_bytes_per_s = 1.2e12;
  s.gpu.fabric.iod_hop_latency_ps = 20'000;
  s.interconnect.pcie_bandwidth_bytes_per_s = 64e9;
  if (num_gpus > 1) {
    s.interconnect.topology = "full_mesh";
    s.interconnect.links_per_gpu = 7;
    s.interconnect.link_bandwidth_bytes_per_s = 64e9;
    s.interconnect.link_latency_ps = 700'000;
  }
  return s;
}

// H100 / H200: the two halves of the die that own an L2 partition, one crossbar (IOD), no MALL.
inline SystemSpec hopper(std::uint32_t num_gpus, const std::string& topology) {
  SystemSpec s;
  s.name = "hopper-" + std::to_string(num_gpus);
  s.num_gpus = num_gpus;
  s.gpu.model = "H200";
  s.gpu.vendor = "nvidia";
  s.gpu.compute.num_dies = 2;
  s.gpu.compute.compute_units_per_die = 66;
  s.gpu.memory.hbm_bandwidth_bytes_per_s = 4.8e12;
  s.gpu.memory.hbm_latency_ps = 400'000;
  s.gpu.memory.l2.bandwidth_bytes_per_s = 5e12;
  s.gpu.memory.mall.capacity_bytes = 0;
  s.gpu.fabric.die_link_bandwidth_bytes_per_s = 6e12;
  s.gpu.fabric.num_iods = 1;
  s.interconnect.topology = topology;
  s.interconnect.links_per_gpu = 18;
  s.interconnect.link_bandwidth_bytes_per_s = 26.562e9;
  s.interconnect.link_latency_ps = 500'000;
  if (topology == "switch") {
    s.interconnect.num_switches = 4;
    s.interconnect.switch_latency_ps = 300'000;
    s.interconnect.link_bandwidth_bytes_per_s = 25e9;
  }
  return s;
}

}  // namespace tessera::test

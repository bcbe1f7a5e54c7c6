#pragma once
// The description of a machine as a system file gives it: GPUs, their dies, compute, memory
// and the links between GPUs. Plain values in SI base units (_hz, _bytes, _bytes_per_s, _ps);
// the YAML with units is read once through system_schema(). The hardware models build from
// this; they never see a unit string.
#include <cstdint>
#include <string>

#include "sim/config/schema.h"
#include "sim/core/tick.h"

namespace tessera::models {

struct ComputeSpec {
  std::uint32_t num_dies = 8;              // XCDs (AMD) or GPC groups (NVIDIA)
  std::uint32_t compute_units_per_die = 38;
  double clock_hz = 2.1e9;
  double fp16_flops_per_clock_per_cu = 2048;  // dense matrix rate
  std::uint32_t workgroup_slots_per_cu = 8;
};

struct MemorySpec {
  std::uint64_t hbm_capacity_bytes = 192ULL << 30;
  double hbm_bandwidth_bytes_per_s = 5.3e12;
  std::uint32_t hbm_stacks = 8;
  sim::Tick hbm_latency_ps = 0;
  std::uint64_t l2_capacity_per_die_bytes = 4ULL << 20;
  std::uint64_t mall_capacity_bytes = 256ULL << 20;  // 0: no memory-side cache
};

struct InterconnectSpec {
  std::string topology = "none";  // none, full_mesh (xGMI), switch (NVSwitch), direct (one bundle)
  std::uint32_t links_per_gpu = 0;
  double link_bandwidth_bytes_per_s = 0;  // per direction, per link
  sim::Tick link_latency_ps = 0;
};

struct GpuSpec {
  std::string model = "unnamed";
  std::string vendor = "amd";
  ComputeSpec compute;
  MemorySpec memory;
};

struct SystemSpec {
  std::string name = "unnamed";
  std::string description;
  std::uint32_t num_gpus = 1;
  GpuSpec gpu;
  InterconnectSpec interconnect;
};

const sim::config::Schema<SystemSpec>& system_schema();

// Derived figures that reports and sanity checks quote.
double peak_fp16_flops_per_s(const GpuSpec& gpu);
std::uint32_t total_compute_units(const GpuSpec& gpu);

}  // namespace tessera::models

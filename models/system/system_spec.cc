#include "models/system/system_spec.h"

namespace tessera::models {

namespace {

using sim::config::Schema;

const Schema<ComputeSpec>& compute_schema() {
  static const Schema<ComputeSpec> s =
      Schema<ComputeSpec>("compute", "compute dies and units of one GPU")
          .count("num_dies", &ComputeSpec::num_dies, "compute dies: XCDs on AMD, GPC groups on NVIDIA")
          .range(1, 64)
          .count("compute_units_per_die", &ComputeSpec::compute_units_per_die, "active CUs (SMs) per die")
          .range(1, 1024)
          .frequency("clock", &ComputeSpec::clock_hz, "peak engine clock")
          .min(1e6)
          .real("fp16_flops_per_clock_per_cu", &ComputeSpec::fp16_flops_per_clock_per_cu,
                "dense fp16 matrix FLOP per clock per CU")
          .min(1)
          .count("workgroup_slots_per_cu", &ComputeSpec::workgroup_slots_per_cu, "resident workgroups per CU")
          .range(1, 64);
  return s;
}

const Schema<MemorySpec>& memory_schema() {
  static const Schema<MemorySpec> s =
      Schema<MemorySpec>("memory", "memory hierarchy of one GPU")
          .bytes("hbm_capacity", &MemorySpec::hbm_capacity_bytes, "HBM capacity")
          .min(1)
          .bandwidth("hbm_bandwidth", &MemorySpec::hbm_bandwidth_bytes_per_s, "peak HBM bandwidth")
          .min(1)
          .count("hbm_stacks", &MemorySpec::hbm_stacks, "HBM stacks")
          .range(1, 64)
          .time("hbm_latency", &MemorySpec::hbm_latency_ps, "unloaded HBM access latency")
          .bytes("l2_capacity_per_die", &MemorySpec::l2_capacity_per_die_bytes, "L2 capacity per die")
          .min(1)
          .bytes("mall_capacity", &MemorySpec::mall_capacity_bytes, "memory-side cache (Infinity Cache); 0: none");
  return s;
}

const Schema<GpuSpec>& gpu_schema() {
  static const Schema<GpuSpec> s = Schema<GpuSpec>("gpu", "one GPU")
                                       .string("model", &GpuSpec::model, "product name")
                                       .choice("vendor", &GpuSpec::vendor, {"amd", "nvidia"}, "vendor")
                                       .nested("compute", &GpuSpec::compute, compute_schema())
                                       .nested("memory", &GpuSpec::memory, memory_schema());
  return s;
}

const Schema<InterconnectSpec>& interconnect_schema() {
  static const Schema<InterconnectSpec> s =
      Schema<InterconnectSpec>("interconnect", "GPU-to-GPU links")
          .choice("topology", &InterconnectSpec::topology, {"none", "full_mesh", "switch", "direct"},
                  "none; full_mesh (xGMI); switch (NVSwitch); direct (one NVLink bundle between two GPUs)")
          .count("links_per_gpu", &InterconnectSpec::links_per_gpu, "links leaving each GPU")
          .range(0, 64)
          .bandwidth("link_bandwidth", &InterconnectSpec::link_bandwidth_bytes_per_s, "per link, per direction")
          .time("link_latency", &InterconnectSpec::link_latency_ps, "one-way latency of a link")
          .check([](const InterconnectSpec& i) -> std::optional<std::string> {
            if (i.topology != "none" && (i.links_per_gpu == 0 || i.link_bandwidth_bytes_per_s <= 0)) {
              return "a topology other than 'none' needs links_per_gpu and link_bandwidth";
            }
            return std::nullopt;
          });
  return s;
}

}  // namespace

const Schema<SystemSpec>& system_schema() {
  static const Schema<SystemSpec> s =
      Schema<SystemSpec>("system", "a machine: GPUs and the links between them")
          .string("name", &SystemSpec::name, "system name")
          .string("description", &SystemSpec::description, "what this system is")
          .count("num_gpus", &SystemSpec::num_gpus, "GPUs in the system")
          .range(1, 1024)
          .nested("gpu", &SystemSpec::gpu, gpu_schema())
          .nested("interconnect", &SystemSpec::interconnect, interconnect_schema())
          .check([](const SystemSpec& sys) -> std::optional<std::string> {
            if (sys.num_gpus > 1 && sys.interconnect.topology == "none") {
              return "a system of several GPUs needs an interconnect topology";
            }
            if (sys.interconnect.topology == "direct" && sys.num_gpus != 2) {
              return "a direct link bundle joins exactly two GPUs";
            }
            return std::nullopt;
          });
  return s;
}

double peak_fp16_flops_per_s(const GpuSpec& gpu) {
  return gpu.compute.fp16_flops_per_clock_per_cu * gpu.compute.clock_hz * total_compute_units(gpu);
}

std::uint32_t total_compute_units(const GpuSpec& gpu) {
  return gpu.compute.num_dies * gpu.compute.compute_units_per_die;
}

}  // namespace tessera::models

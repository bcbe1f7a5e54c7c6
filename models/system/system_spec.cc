#include "models/system/system_spec.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "models/cache/cache_schema.h"
#include "models/system/system_limits.h"

namespace tessera::models {

namespace {

using sim::config::Schema;

const Schema<DtypeRates>& rates_schema(const char* what) {
  // One schema per meaning, so that describe prints the right comment for each.
  static const Schema<DtypeRates> flops =
      Schema<DtypeRates>("matrix_flops_per_clock_per_cu", "dense matrix FLOP per clock per CU, by data type")
          .real("fp16", &DtypeRates::fp16, "fp16 inputs").min(0)
          .real("bf16", &DtypeRates::bf16, "bf16 inputs").min(0)
          .real("fp8", &DtypeRates::fp8, "fp8 inputs").min(0)
          .real("fp32", &DtypeRates::fp32, "fp32 inputs").min(0);
  static const Schema<DtypeRates> efficiency =
      Schema<DtypeRates>("matrix_efficiency",
                         "achieved fraction of the peak matrix rate in a tile loop, by data type (calibrated from "
                         "microbenchmarks)")
          .fraction("fp16", &DtypeRates::fp16, "fp16")
          .fraction("bf16", &DtypeRates::bf16, "bf16")
          .fraction("fp8", &DtypeRates::fp8, "fp8")
          .fraction("fp32", &DtypeRates::fp32, "fp32");
  return std::string_view(what) == "flops" ? flops : efficiency;
}

const Schema<KernelEfficiency>& kernel_efficiency_schema() {
  static const Schema<KernelEfficiency> s =
      Schema<KernelEfficiency>("kernel_efficiency",
                               "matrix efficiency of one kernel's inner loop by occupancy (replaces matrix_efficiency "
                               "for that kernel and data type)")
          .string("kernel", &KernelEfficiency::kernel,
                  "the kernel's name as the trace names it (gemm, attention, gemm_all_scatter, ...)")
          .required()
          .choice("dtype", &KernelEfficiency::dtype, {"fp16", "bf16", "fp8", "fp32"}, "data type it applies to")
          .real_list("efficiency", &KernelEfficiency::efficiency,
                     "achieved / peak matrix rate of a CU with 1, 2, ... resident workgroups (fractions in (0, 1]); "
                     "the last entry holds for more")
          .required()
          .check([](const KernelEfficiency& k) -> std::optional<std::string> {
            if (k.kernel.empty()) return "kernel: must not be empty";
            if (k.efficiency.empty()) return "efficiency: needs at least one value";
            for (double e : k.efficiency) {
              if (!(e > 0 && e <= 1)) return "efficiency: every value must be in (0, 1]";
            }
            return std::nullopt;
          });
  return s;
}

const Schema<CuPipeRates>& pipes_schema() {
  static const Schema<CuPipeRates> s =
      Schema<CuPipeRates>("pipes",
                          "per-CU (SM) rates of the pipes besides the matrix unit, per clock: a compute op that gives "
                          "its demands (lds_bytes, sfu_ops, vector_ops) takes as long as its busiest pipe needs "
                          "(docs/config-reference.md; 0: the pipe is not modelled)")
          .real("lds_bytes_per_clock", &CuPipeRates::lds_bytes_per_clock, "shared memory (LDS) bytes per clock")
          .min(0)
          .real("sfu_ops_per_clock", &CuPipeRates::sfu_ops_per_clock,
                "transcendental lane-operations (exp2, reciprocal, ...) per clock")
          .min(0)
          .real("vector_ops_per_clock", &CuPipeRates::vector_ops_per_clock,
                "fp32 vector lane-operations (add, multiply, fma, max) per clock")
          .min(0)
          .real("warp_matrix_fraction", &CuPipeRates::warp_matrix_fraction,
                "rate of the warp-level matrix instructions (mma.sync/wmma, MFMA) that ops with pipe demands use, as "
                "a fraction of matrix_flops_per_clock_per_cu")
          .range(1e-6, 1)
          .real("lds_latency_clocks", &CuPipeRates::lds_latency_clocks, "a dependent shared-memory load, in clocks")
          .min(0)
          .real("matrix_latency_clocks", &CuPipeRates::matrix_latency_clocks,
                "a dependent 16 x 16 x 16 matrix instruction, in clocks")
          .min(0)
          .real("barrier_latency_clocks", &CuPipeRates::barrier_latency_clocks,
                "a workgroup barrier with nothing to wait for, in clocks")
          .min(0)
          .boolean("loads_through_lds", &CuPipeRates::loads_through_lds,
                   "a workgroup's loads from memory pass through the shared-memory pipe (NVIDIA: L1 and shared "
                   "memory are one unit), so a compute op with pipe demands also moves the bytes its workgroup "
                   "loaded since its previous compute op");
  return s;
}

const Schema<CuCapacity>& occupancy_schema() {
  static const Schema<CuCapacity> s =
      Schema<CuCapacity>("occupancy",
                         "what one CU (SM) holds for its resident workgroups: a kernel that gives its footprint "
                         "(waves, registers, lds_bytes per workgroup) runs at most as many workgroups per CU as fit "
                         "(and at most workgroup_slots_per_cu); 0: no limit")
          .count("registers", &CuCapacity::registers, "32-bit registers per CU (per lane of its waves)")
          .bytes("lds", &CuCapacity::lds_bytes, "shared memory (LDS) per CU")
          .count("waves", &CuCapacity::waves, "resident waves (warps) per CU")
          .count("wave_size", &CuCapacity::wave_size, "lanes per wave")
          .range(0, 64);
  return s;
}

const Schema<ComputeSpec>& compute_schema() {
  static const Schema<ComputeSpec> s =
      Schema<ComputeSpec>("compute", "compute dies and units of one GPU")
          .count("num_dies", &ComputeSpec::num_dies, "compute dies: XCDs on AMD; on NVIDIA the halves owning an L2 partition")
          .range(1, 64)
          .count("compute_units_per_die", &ComputeSpec::compute_units_per_die, "active CUs (SMs) per die")
          .range(1, 1024)
          .frequency("clock", &ComputeSpec::clock_hz, "peak engine clock")
          .min(1e6)
          .count("workgroup_slots_per_cu", &ComputeSpec::workgroup_slots_per_cu, "resident workgroups per CU")
          .range(1, 64)
          .nested("matrix_flops_per_clock_per_cu", &ComputeSpec::matrix_flops_per_clock_per_cu, rates_schema("flops"))
          .nested("matrix_efficiency", &ComputeSpec::matrix_efficiency, rates_schema("efficiency"))
          .nested_list("kernel_efficiency", &ComputeSpec::kernel_efficiency, kernel_efficiency_schema(),
                       "per kernel and data type: matrix efficiency by resident workgroups per CU (calibrated from "
                       "the kernel's inner-loop microbenchmark); kernels not listed use matrix_efficiency")
          .nested("pipes", &ComputeSpec::pipes, pipes_schema(),
                  "the structural compute model: a compute op of a kernel without a kernel_efficiency entry that "
                  "gives its pipe demands runs as long as the CU's busiest pipe needs")
          .nested("occupancy", &ComputeSpec::occupancy, occupancy_schema(),
                  "the CU's registers, shared memory and wave slots, which bound the resident workgroups of a "
                  "kernel that gives its footprint")
          .check([](const ComputeSpec& c) -> std::optional<std::string> {
            for (std::size_t i = 0; i < c.kernel_efficiency.size(); ++i) {
              for (std::size_t j = 0; j < i; ++j) {
                if (c.kernel_efficiency[i].kernel == c.kernel_efficiency[j].kernel &&
                    c.kernel_efficiency[i].dtype == c.kernel_efficiency[j].dtype) {
                  return "kernel_efficiency: two entries for kernel '" + c.kernel_efficiency[i].kernel + "' and " +
                         c.kernel_efficiency[i].dtype;
                }
              }
            }
            return std::nullopt;
          });
  return s;
}

const Schema<DispatchSpec>& dispatch_schema() {
  static const Schema<DispatchSpec> s =
      Schema<DispatchSpec>("dispatch", "kernel launch and workgroup dispatch")
          .choice("policy", &DispatchSpec::policy, {"round_robin"}, "workgroup i runs on die (i / chunk) mod num_dies")
          .count("chunk", &DispatchSpec::chunk, "consecutive workgroups sent to one die")
          .range(1, 1 << 20)
          .time("kernel_launch_latency", &DispatchSpec::kernel_launch_latency_ps, "host enqueue to first workgroup start")
          .time("workgroup_dispatch", &DispatchSpec::workgroup_dispatch_ps, "per workgroup, serialised per die")
          .time("kernel_teardown", &DispatchSpec::kernel_teardown_ps, "last workgroup end to kernel completion");
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
          .boolean("peer_reads_in_l2", &MemorySpec::peer_reads_in_l2,
                   "a load of a peer GPU's coarse-grained memory (a trace buffer's default coherence) looks up and "
                   "fills the reader's L2, and only its misses cross the links (MI300X maps peer VRAM MTYPE NC); "
                   "false: every peer load is served at the owner's memory side. Fine-grained buffers never are")
          .nested("l2", &MemorySpec::l2, cache::cache_schema(), "the L2, one instance per die")
          .nested("mall", &MemorySpec::mall, cache::cache_schema(),
                  "the memory-side cache (Infinity Cache), one per GPU; its defaults differ from the L2's: "
                  "capacity 0 B (none) and write_through_allocate")
          .check([](const MemorySpec& m) -> std::optional<std::string> {
            if (m.l2.capacity_bytes == 0) return "l2.capacity must be positive";
            if (m.mall.capacity_bytes > 0 && m.mall.write_policy == cache::WritePolicy::kWriteBackAllocate) {
              return "mall.write_policy: a memory-side cache never holds dirty data; use write_through_allocate "
                     "(or write_through)";
            }
            return std::nullopt;
          });
  return s;
}

const Schema<FabricSpec>& fabric_schema() {
  static const Schema<FabricSpec> s =
      Schema<FabricSpec>("fabric", "on-package data paths")
          .real("cu_port_bytes_per_clock", &FabricSpec::cu_port_bytes_per_clock, "a CU's load/store bytes per clock")
          .min(1)
          .bandwidth("die_link_bandwidth", &FabricSpec::die_link_bandwidth_bytes_per_s, "die (XCD) to IOD, each direction")
          .min(1)
          .count("num_iods", &FabricSpec::num_iods, "IODs; dies spread evenly over them")
          .range(1, 64)
          .bandwidth("iod_link_bandwidth", &FabricSpec::iod_link_bandwidth_bytes_per_s, "between two IODs, each direction")
          .min(1)
          .time("iod_hop_latency", &FabricSpec::iod_hop_latency_ps, "latency of one IOD-to-IOD hop")
          .bytes("max_bytes_in_flight_per_workgroup", &FabricSpec::max_bytes_in_flight_per_workgroup,
                 "outstanding load bytes of one workgroup (bounds remote loads by Little's law)")
          .min(1)
          .bytes("max_store_bytes_in_flight_per_workgroup", &FabricSpec::max_store_bytes_in_flight_per_workgroup,
                 "posted stores to peers of one workgroup in flight: a store that would exceed it waits for room (one "
                 "store alone may). Default: 63 outstanding vector memory instructions per wave (GFX9/CDNA s_waitcnt "
                 "vmcnt, https://llvm.org/docs/AMDGPU/gfx9_waitcnt.html) x 1 KiB per 64-lane dwordx4 store x 4 waves "
                 "per workgroup = 252 KiB")
          .min(1);
  return s;
}

const Schema<AtomicSpec>& atomics_schema() {
  static const Schema<AtomicSpec> s =
      Schema<AtomicSpec>("atomics", "atomics and flags")
          .time("local_latency", &AtomicSpec::local_latency_ps, "an atomic on this GPU's memory")
          .time("remote_latency", &AtomicSpec::remote_latency_ps, "added to the link round trip for a peer's memory")
          .time("poll_interval", &AtomicSpec::poll_interval_ps, "spin-wait: time between two reads of a flag");
  return s;
}

const Schema<CollectiveLibrarySpec>& collective_library_schema() {
  static const Schema<CollectiveLibrarySpec> s =
      Schema<CollectiveLibrarySpec>("collective_library",
                                    "the vendor collective library's kernels (NCCL, RCCL) on this GPU: GPU time per "
                                    "kernel beyond the data movement and handshakes Tessera runs for them")
          .time("ll_kernel_overhead", &CollectiveLibrarySpec::ll_kernel_overhead_ps,
                "per collective kernel with the LL protocol; 0 s: none")
          .time("ll128_kernel_overhead", &CollectiveLibrarySpec::ll128_kernel_overhead_ps,
                "per collective kernel with the LL128 protocol; 0 s: none")
          .time("simple_kernel_overhead", &CollectiveLibrarySpec::simple_kernel_overhead_ps,
                "per collective kernel with the Simple protocol; 0 s: none");
  return s;
}

const Schema<GpuSpec>& gpu_schema() {
  static const Schema<GpuSpec> s = Schema<GpuSpec>("gpu", "one GPU")
                                       .string("model", &GpuSpec::model, "product name")
                                       .choice("vendor", &GpuSpec::vendor, {"amd", "nvidia"},
                                               "vendor; GPU links are xGMI on amd, NVLink on nvidia")
                                       .nested("compute", &GpuSpec::compute, compute_schema())
                                       .nested("dispatch", &GpuSpec::dispatch, dispatch_schema())
                                       .nested("memory", &GpuSpec::memory, memory_schema())
                                       .nested("fabric", &GpuSpec::fabric, fabric_schema())
                                       .nested("atomics", &GpuSpec::atomics, atomics_schema())
                                       .nested("collective_library", &GpuSpec::collective_library,
                                               collective_library_schema())
                                       .check([](const GpuSpec& g) -> std::optional<std::string> {
                                         if (g.compute.num_dies % g.fabric.num_iods != 0) {
                                           return "compute.num_dies must be a multiple of fabric.num_iods";
                                         }
                                         return std::nullopt;
                                       });
  return s;
}

using sim::config::CheckProblem;

const Schema<LinkSpec>& link_schema() {
  static const Schema<LinkSpec> s =
      Schema<LinkSpec>("link", "count links between two endpoints, each way")
          .string_list("between", &LinkSpec::between, "the two endpoints: gpuN (N from 0) or a switch's name")
          .required()
          .count("count", &LinkSpec::count, "links between the two, each way")
          .range(1, 64)
          .bandwidth("bandwidth", &LinkSpec::bandwidth_bytes_per_s,
                     "per link, per direction; not set: the interconnect's link_bandwidth")
          .time("latency", &LinkSpec::latency_ps, "one-way; not set: the interconnect's link_latency")
          .check([](const LinkSpec& l) -> std::optional<CheckProblem> {
            if (l.between.size() != 2) {
              return CheckProblem({"between"}, fmt::format("a link joins two endpoints, got {}", l.between.size()));
            }
            if (l.between[0] == l.between[1]) {
              return CheckProblem({"between"}, fmt::format("a link joins two different endpoints, got '{}' twice",
                                                           l.between[0]));
            }
            if (l.bandwidth_bytes_per_s && !(*l.bandwidth_bytes_per_s > 0)) {
              return CheckProblem({"bandwidth"}, "a link's bandwidth must be more than 0 B/s");
            }
            return std::nullopt;
          });
  return s;
}

const Schema<SwitchSpec>& switch_schema() {
  static const Schema<SwitchSpec> s =
      Schema<SwitchSpec>("switch", "a switch that links may name: a non-blocking crossbar as wide as its ports")
          .string("name", &SwitchSpec::name, "what links call it (not gpuN)")
          .required()
          .time("latency", &SwitchSpec::latency_ps, "through the switch; not set: the interconnect's switch_latency")
          .check([](const SwitchSpec& w) -> std::optional<CheckProblem> {
            if (w.name.empty()) return CheckProblem({"name"}, "a switch needs a name");
            if (gpu_endpoint_index(w.name)) {
              return CheckProblem({"name"}, fmt::format("'{}' names a GPU; a switch needs another name", w.name));
            }
            return std::nullopt;
          });
  return s;
}

// The interconnect's links as the system file gives them (topology links): every endpoint a GPU
// of the system or a declared switch, every switch named once, every GPU reached.
std::optional<CheckProblem> link_list_problem(const SystemSpec& sys) {
  const InterconnectSpec& ic = sys.interconnect;
  const std::vector<std::string> at_links{"interconnect", "links"};
  if (ic.topology != "links") {
    if (!ic.links.empty() || !ic.switches.empty()) {
      return CheckProblem(at_links, fmt::format("links and switches are read with topology links only, not {}",
                                                ic.topology));
    }
    return std::nullopt;
  }
  if (ic.links.empty()) return CheckProblem(at_links, "topology links needs a list of links");
  std::vector<std::string> names;
  for (std::size_t i = 0; i < ic.switches.size(); ++i) {
    const std::string& name = ic.switches[i].name;
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      return CheckProblem({"interconnect", "switches", std::to_string(i), "name"},
                          fmt::format("a second switch named '{}'", name));
    }
    names.push_back(name);
  }
  // Endpoints as vertices: GPUs 0..n-1, then the switches; a union-find says who is reached.
  const std::size_t n = gpus_per_node(sys);  // a node's list: every node is wired alike
  std::vector<std::size_t> parent(n + names.size());
  for (std::size_t v = 0; v < parent.size(); ++v) parent[v] = v;
  auto root = [&](std::size_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  std::vector<std::pair<std::size_t, std::size_t>> seen;
  for (std::size_t i = 0; i < ic.links.size(); ++i) {
    const LinkSpec& link = ic.links[i];
    const std::vector<std::string> at_between{"interconnect", "links", std::to_string(i), "between"};
    std::size_t ends[2];
    for (int e = 0; e < 2; ++e) {
      const std::string& text = link.between[e];
      if (const std::optional<std::uint32_t> g = gpu_endpoint_index(text)) {
        if (*g >= n) return CheckProblem(at_between, fmt::format("'{}': the system has {} GPU(s), gpu0 to gpu{}", text, n, n - 1));
        ends[e] = *g;
        continue;
      }
      const auto it = std::find(names.begin(), names.end(), text);
      if (it == names.end()) {
        return CheckProblem(at_between, names.empty()
                                            ? fmt::format("unknown endpoint '{}' (gpuN, or a switch of interconnect.switches: none declared)", text)
                                            : fmt::format("unknown endpoint '{}' (gpuN, or a switch of interconnect.switches)", text));
      }
      ends[e] = n + static_cast<std::size_t>(it - names.begin());
    }
    const std::pair<std::size_t, std::size_t> pair{std::min(ends[0], ends[1]), std::max(ends[0], ends[1])};
    if (std::find(seen.begin(), seen.end(), pair) != seen.end()) {
      return CheckProblem(at_between, fmt::format("a second entry between {} and {}: give one entry its count",
                                                  link.between[0], link.between[1]));
    }
    seen.push_back(pair);
    if (!link.bandwidth_bytes_per_s && !(ic.link_bandwidth_bytes_per_s > 0)) {
      return CheckProblem({"interconnect", "links", std::to_string(i)},
                          "this link gives no bandwidth and the interconnect's link_bandwidth is not set");
    }
    parent[root(ends[0])] = root(ends[1]);
  }
  for (std::size_t g = 1; g < n; ++g) {
    if (root(g) != root(0)) {
      return CheckProblem(at_links, fmt::format("gpu{} is not connected to gpu0 by these links", g));
    }
  }
  return std::nullopt;
}

// What a shorthand needs of the system (the number of GPUs): nothing, or what is wrong.
std::optional<CheckProblem> shorthand_problem(const SystemSpec& sys) {
  const InterconnectSpec& ic = sys.interconnect;
  const std::uint32_t n = gpus_per_node(sys);
  const char* n_name = sys.scale_out.nodes > 1 ? "the GPUs of a node" : "num_gpus";
  const std::vector<std::string> at_topology{"interconnect", "topology"};
  if (ic.topology == "direct" && n != 2) return CheckProblem(at_topology, "a direct link bundle joins exactly two GPUs");
  if (ic.topology == "full_mesh" && ic.links_per_gpu % (n - 1 == 0 ? 1 : n - 1) != 0) {
    return CheckProblem(at_topology, fmt::format("a full mesh of {} GPUs needs links_per_gpu to be a multiple of {}",
                                                 n, n - 1));
  }
  if (ic.topology == "ring" && n > 2 && ic.links_per_gpu < 2) {
    return CheckProblem({"interconnect", "links_per_gpu"}, "a ring of more than two GPUs needs links_per_gpu >= 2 (half to each neighbour)");
  }
  if (ic.topology != "torus_2d" && !ic.torus_dims.empty()) {
    return CheckProblem({"interconnect", "torus_dims"},
                        fmt::format("torus_dims is read with topology torus_2d only, not {}", ic.topology));
  }
  if (ic.topology == "torus_2d") {
    if (ic.torus_dims.size() != 2 || std::uint64_t{ic.torus_dims[0]} * ic.torus_dims[1] != n) {
      return CheckProblem({"interconnect", "torus_dims"},
                          fmt::format("a 2D torus needs torus_dims [rows, columns] with rows x columns = {} ({})",
                                      n_name, n));
    }
    const std::uint32_t directions = (ic.torus_dims[0] > 1 ? 2u : 0u) + (ic.torus_dims[1] > 1 ? 2u : 0u);
    if (directions > 0 && ic.links_per_gpu < directions) {
      return CheckProblem({"interconnect", "links_per_gpu"},
                          fmt::format("this 2D torus needs links_per_gpu >= {} (an equal share to each neighbour)", directions));
    }
  }
  return std::nullopt;
}

const Schema<InterconnectSpec>& interconnect_schema() {
  static const Schema<InterconnectSpec> s =
      Schema<InterconnectSpec>("interconnect", "GPU-to-GPU links")
          .choice("topology", &InterconnectSpec::topology,
                  {"none", "full_mesh", "switch", "direct", "ring", "torus_2d", "links"},
                  "none: a single GPU; full_mesh: xGMI, the links of each GPU spread evenly over its peers; switch: "
                  "NVSwitch; direct: one NVLink bundle between two GPUs; ring: each GPU to its two neighbours "
                  "(gpuN to gpuN+1, the last to gpu0), links_per_gpu / 2 (rounded down) to each; torus_2d: "
                  "torus_dims rows x columns, each GPU to its neighbours in both, links_per_gpu spread evenly over "
                  "them; links: the list under links (and switches). Every shorthand is a generator of such a list "
                  "(docs/config-reference.md, \"Topologies\")")
          .count("links_per_gpu", &InterconnectSpec::links_per_gpu, "links leaving each GPU")
          .range(0, 64)
          .bandwidth("link_bandwidth", &InterconnectSpec::link_bandwidth_bytes_per_s, "per link, per direction")
          .time("link_latency", &InterconnectSpec::link_latency_ps, "one-way latency of a link")
          .count("num_switches", &InterconnectSpec::num_switches,
                 "switch chips (switch topology); each GPU's links spread evenly over them. The model joins "
                 "all switches into one non-blocking crossbar, so bandwidth does not depend on this number")
          .range(0, 64)
          .time("switch_latency", &InterconnectSpec::switch_latency_ps, "latency through a switch")
          .bandwidth("pcie_bandwidth", &InterconnectSpec::pcie_bandwidth_bytes_per_s,
                     "GPU to host, each direction; 0 B/s: no host link")
          .count_list("torus_dims", &InterconnectSpec::torus_dims,
                      "torus_2d: [rows, columns], rows x columns = num_gpus; gpuN sits at row N / columns")
          .nested_list("links", &InterconnectSpec::links, link_schema(),
                       "topology links: the links, each {between: [a, b], count, bandwidth, latency}")
          .nested_list("switches", &InterconnectSpec::switches, switch_schema(),
                       "topology links: the switches links may name, each {name, latency}")
          .check([](const InterconnectSpec& i) -> std::optional<std::string> {
            if (i.topology != "none" && i.topology != "links" &&
                (i.links_per_gpu == 0 || i.link_bandwidth_bytes_per_s <= 0)) {
              return "a topology other than 'none' and 'links' needs links_per_gpu and link_bandwidth";
            }
            if (i.topology == "switch" && (i.num_switches == 0 || i.links_per_gpu % i.num_switches != 0)) {
              return "a switch topology needs num_switches dividing links_per_gpu";
            }
            return std::nullopt;
          });
  return s;
}

const Schema<NicSpec>& nic_schema() {
  static const Schema<NicSpec> s =
      Schema<NicSpec>("nic", "each GPU's network interface (one per GPU)")
          .bandwidth("bandwidth", &NicSpec::bandwidth_bytes_per_s, "the port, per direction (400 Gb/s: 50 GB/s)")
          .time("latency", &NicSpec::latency_ps, "through one NIC, each way; a transfer between nodes crosses two")
          .bandwidth("pcie_bandwidth", &NicSpec::pcie_bandwidth_bytes_per_s,
                     "GPU to NIC through the node's PCIe switch, each direction");
  return s;
}

const Schema<NetworkSpec>& network_schema() {
  static const Schema<NetworkSpec> s =
      Schema<NetworkSpec>("network", "the switches between nodes")
          .choice("topology", &NetworkSpec::topology, {"rail", "fat_tree"},
                  "rail: leaf r joins GPU r's NIC of every node (rail-optimised); fat_tree: a leaf joins every NIC "
                  "of nodes_per_leaf nodes. A spine joins the leaves when there are several (its switches joined "
                  "into one crossbar: ideal ECMP)")
          .count("nodes_per_leaf", &NetworkSpec::nodes_per_leaf, "fat_tree: nodes under one leaf; 0: every node")
          .range(0, 1024)
          .real("oversubscription", &NetworkSpec::oversubscription,
                "a leaf's bandwidth down to its NICs over its bandwidth up to the spine (1: non-blocking)")
          .min(1)
          .time("switch_latency", &NetworkSpec::switch_latency_ps, "through one switch (leaf or spine)");
  return s;
}

const Schema<ScaleOutSpec>& scale_out_schema() {
  static const Schema<ScaleOutSpec> s =
      Schema<ScaleOutSpec>("scale_out", "nodes and the network between them")
          .count("nodes", &ScaleOutSpec::nodes,
                 "nodes of num_gpus / nodes GPUs each; the interconnect joins the GPUs of one node")
          .range(1, 1024)
          .nested("nic", &ScaleOutSpec::nic, nic_schema())
          .nested("network", &ScaleOutSpec::network, network_schema());
  return s;
}

// What several nodes need: GPUs divided evenly, a NIC with bandwidth, leaves that divide the nodes.
std::optional<CheckProblem> scale_out_problem(const SystemSpec& sys) {
  const ScaleOutSpec& so = sys.scale_out;
  if (so.nodes <= 1) return std::nullopt;
  if (sys.num_gpus % so.nodes != 0) {
    return CheckProblem({"scale_out", "nodes"},
                        fmt::format("{} GPUs cannot be spread evenly over {} nodes", sys.num_gpus, so.nodes));
  }
  if (!(so.nic.bandwidth_bytes_per_s > 0)) return CheckProblem({"scale_out", "nic", "bandwidth"}, "several nodes need nic.bandwidth > 0 (the NIC port, per direction)");
  if (!(so.nic.pcie_bandwidth_bytes_per_s > 0)) {
    return CheckProblem({"scale_out", "nic", "pcie_bandwidth"}, "several nodes need nic.pcie_bandwidth > 0 (GPU to NIC)");
  }
  const NetworkSpec& net = so.network;
  if (net.topology == "fat_tree" && net.nodes_per_leaf > 0 && so.nodes % net.nodes_per_leaf != 0) {
    return CheckProblem({"scale_out", "network", "nodes_per_leaf"},
                        fmt::format("{} nodes cannot be spread evenly over leaves of {}", so.nodes, net.nodes_per_leaf));
  }
  if (net.topology != "fat_tree" && net.nodes_per_leaf > 0) {
    return CheckProblem({"scale_out", "network", "nodes_per_leaf"}, "nodes_per_leaf is read with topology fat_tree only");
  }
  return std::nullopt;
}

const Schema<HostSpec>& host_schema() {
  static const Schema<HostSpec> s =
      Schema<HostSpec>("host", "the host's software costs between kernels")
          .time("collective_call", &HostSpec::collective_call_ps,
                "CPU time per GPU of one collective-library call (NCCL/RCCL enqueue and launch); a thread issuing "
                "R GPUs' calls spends R times this per collective; 0 s: free (kind collective, host: one_thread)")
          .time("framework_op", &HostSpec::framework_op_ps,
                "CPU time of one eager-framework op (PyTorch: Python, dispatch, launch) per rank's process, "
                "before each compute kernel of a bulk-synchronous variant with host: pytorch; 0 s: free")
          .time("framework_collective", &HostSpec::framework_collective_ps,
                "CPU time of one collective through the framework's process group (torch.distributed with its "
                "library's enqueue) per rank's process, before each collective of a bulk-synchronous variant "
                "with host: pytorch; 0 s: free");
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
          .nested("scale_out", &SystemSpec::scale_out, scale_out_schema())
          .nested("host", &SystemSpec::host, host_schema())
          .check([](const SystemSpec& sys) -> std::optional<CheckProblem> {
            const auto& ic = sys.interconnect;
            if (std::optional<CheckProblem> problem = scale_out_problem(sys)) return problem;
            if (gpus_per_node(sys) > 1 && ic.topology == "none") {
              return CheckProblem(sys.scale_out.nodes > 1 ? "a node of several GPUs needs an interconnect topology"
                                                          : "a system of several GPUs needs an interconnect topology");
            }
            if (std::optional<CheckProblem> problem = shorthand_problem(sys)) return problem;
            if (std::optional<CheckProblem> problem = link_list_problem(sys)) return problem;
            if (std::optional<std::string> problem = system_size_problem(sys)) return CheckProblem(*problem);
            return std::nullopt;
          });
  return s;
}

std::optional<std::uint32_t> gpu_endpoint_index(std::string_view endpoint) {
  if (endpoint.size() < 4 || endpoint.size() > 7 || endpoint.substr(0, 3) != "gpu") return std::nullopt;
  const std::string_view digits = endpoint.substr(3);
  if (digits.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  if (digits.size() > 1 && digits[0] == '0') return std::nullopt;  // gpu01 is a name, not gpu1
  std::uint32_t index = 0;
  for (char c : digits) index = index * 10 + static_cast<std::uint32_t>(c - '0');
  return index;
}

std::uint32_t gpus_per_node(const SystemSpec& spec) {
  return spec.scale_out.nodes > 1 ? spec.num_gpus / spec.scale_out.nodes : spec.num_gpus;
}

std::uint32_t node_of(const SystemSpec& spec, std::uint32_t gpu) { return gpu / gpus_per_node(spec); }

std::uint32_t total_compute_units(const GpuSpec& gpu) { return gpu.compute.num_dies * gpu.compute.compute_units_per_die; }

double peak_fp16_flops_per_s(const GpuSpec& gpu) {
  return gpu.compute.matrix_flops_per_clock_per_cu.fp16 * gpu.compute.clock_hz * total_compute_units(gpu);
}

double rate_of(const DtypeRates& rates, std::string_view dtype) {
  if (dtype == "fp16") return rates.fp16;
  if (dtype == "bf16") return rates.bf16;
  if (dtype == "fp8") return rates.fp8;
  if (dtype == "fp32") return rates.fp32;
  throw std::invalid_argument(fmt::format("unknown data type '{}' (fp16, bf16, fp8, fp32)", dtype));
}

std::vector<std::string> zero_latency_keys(const SystemSpec& spec) {
  const GpuSpec& g = spec.gpu;
  const std::pair<const char*, sim::Tick> latencies[] = {
      {"gpu.dispatch.kernel_launch_latency", g.dispatch.kernel_launch_latency_ps},
      {"gpu.dispatch.workgroup_dispatch", g.dispatch.workgroup_dispatch_ps},
      {"gpu.dispatch.kernel_teardown", g.dispatch.kernel_teardown_ps},
      {"gpu.memory.hbm_latency", g.memory.hbm_latency_ps},
      {"gpu.memory.l2.hit_latency", g.memory.l2.hit_latency_ps},
      {"gpu.atomics.local_latency", g.atomics.local_latency_ps},
      {"gpu.atomics.remote_latency", g.atomics.remote_latency_ps},
  };
  std::vector<std::string> keys;
  for (const auto& [key, value] : latencies) {
    if (value == 0) keys.emplace_back(key);
  }
  if (g.memory.mall.capacity_bytes > 0 && g.memory.mall.hit_latency_ps == 0) keys.emplace_back("gpu.memory.mall.hit_latency");
  if (g.fabric.num_iods > 1 && g.fabric.iod_hop_latency_ps == 0) keys.emplace_back("gpu.fabric.iod_hop_latency");
  if (gpus_per_node(spec) > 1 && spec.interconnect.link_latency_ps == 0) keys.emplace_back("interconnect.link_latency");
  if (spec.interconnect.topology == "switch" && spec.interconnect.switch_latency_ps == 0) {
    keys.emplace_back("interconnect.switch_latency");
  }
  if (spec.scale_out.nodes > 1 && spec.scale_out.nic.latency_ps == 0) keys.emplace_back("scale_out.nic.latency");
  if (spec.scale_out.nodes > 1 && spec.scale_out.network.switch_latency_ps == 0) {
    keys.emplace_back("scale_out.network.switch_latency");
  }
  return keys;
}

}  // namespace tessera::models

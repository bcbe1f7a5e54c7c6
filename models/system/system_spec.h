#pragma once
// The description of a machine as a system file gives it: GPUs, their dies, compute, caches,
// on-package fabric, atomics and the links between GPUs. Plain values in SI base units (_hz,
// _bytes, _bytes_per_s, _ps); the YAML with units is read once through system_schema(). The
// hardware models build from this; they never see a unit string.
//
// Defaults are those of one MI300X where a public figure exists; efficiencies that no
// specification gives default to 1 (the spec ceiling) and are calibrated from
// microbenchmarks (`tessera calibrate`, docs/validation.md). Every system file under configs/systems/ cites its sources.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/cache/cache_spec.h"
#include "sim/config/schema.h"
#include "sim/core/tick.h"

namespace tessera::models {

// One number per data type of the matrix units.
struct DtypeRates {
  double fp16 = 0;
  double bf16 = 0;
  double fp8 = 0;
  double fp32 = 0;
};

// The matrix efficiency of one kernel's inner loop (a kernel of that trace name) for one data type,
// by occupancy: efficiency[i] is achieved / peak matrix rate of a CU with i + 1 resident workgroups;
// the last entry holds for more. Measured by a microbenchmark of that kernel's inner loop.
struct KernelEfficiency {
  std::string kernel;
  std::string dtype = "fp16";
  std::vector<double> efficiency;
};

// Per-CU rates of the pipes besides the matrix unit, per clock (models/compute/cu_pipes.h). 0: the
// pipe is not modelled, and a compute op's demand on it costs nothing.
struct CuPipeRates {
  double lds_bytes_per_clock = 0;   // shared memory (LDS) bytes read or written per clock
  double sfu_ops_per_clock = 0;     // transcendental lane-operations (exp2, rcp, ...) per clock
  double vector_ops_per_clock = 0;  // fp32 vector lane-operations (add, mul, fma, max) per clock
  // The rate of the warp-level matrix instructions (mma.sync / wmma; MFMA) that ops with pipe
  // demands use, as a fraction of matrix_flops_per_clock_per_cu (Hopper's nameplate is wgmma's).
  double warp_matrix_fraction = 1;
  // What one barrier-delimited phase of an op exposes, in clocks: the dependent shared-memory
  // load, matrix instruction and barrier that the workgroup's own waves cannot overlap.
  double lds_latency_clocks = 0;
  double matrix_latency_clocks = 0;
  double barrier_latency_clocks = 0;
  // Whether a workgroup's loads from memory pass through the same data path as its shared-memory
  // accesses (NVIDIA: the L1 and shared memory are one unit, the L1/TEX), so that the bytes it
  // loads between two compute ops also occupy that pipe during the second one.
  bool loads_through_lds = false;

  double phase_latency_clocks() const { return lds_latency_clocks + matrix_latency_clocks + barrier_latency_clocks; }
};

// What one CU (SM) holds for its resident workgroups (models/compute/occupancy.h); 0: no limit.
struct CuCapacity {
  std::uint32_t registers = 0;   // registers per CU (32-bit, per lane)
  std::uint64_t lds_bytes = 0;   // shared memory (LDS) per CU
  std::uint32_t waves = 0;       // resident waves (warps) per CU
  std::uint32_t wave_size = 0;   // lanes per wave
};

struct ComputeSpec {
  std::uint32_t num_dies = 8;              // XCDs (AMD); on NVIDIA the two halves owning an L2 partition
  std::uint32_t compute_units_per_die = 38;
  double clock_hz = 2.1e9;
  std::uint32_t workgroup_slots_per_cu = 8;
  DtypeRates matrix_flops_per_clock_per_cu{2048, 2048, 4096, 256};  // dense
  DtypeRates matrix_efficiency{1, 1, 1, 1};  // achieved / peak for a tile loop; calibrated
  std::vector<KernelEfficiency> kernel_efficiency;  // per kernel and occupancy; else matrix_efficiency
  CuPipeRates pipes;  // for compute ops that give their pipe demands (trace format version 8)
  CuCapacity occupancy;  // for kernels that give their footprint (trace format version 8)
};

struct DispatchSpec {
  std::string policy = "round_robin";  // workgroup i -> die (i / chunk) mod num_dies
  std::uint32_t chunk = 1;
  sim::Tick kernel_launch_latency_ps = 0;  // host enqueue to first workgroup start
  sim::Tick workgroup_dispatch_ps = 0;     // per workgroup, serialised per die's dispatcher
  sim::Tick kernel_teardown_ps = 0;        // last workgroup end to kernel completion seen by the stream
};

// A memory-side cache by default: none (capacity 0) and, when a file gives it a capacity,
// never dirty (write-through with allocate), as the MALL is.
inline cache::CacheSpec absent_memory_side_cache() {
  cache::CacheSpec c;
  c.capacity_bytes = 0;
  c.write_policy = cache::WritePolicy::kWriteThroughAllocate;
  return c;
}

struct MemorySpec {
  std::uint64_t hbm_capacity_bytes = 192'000'000'000ULL;
  double hbm_bandwidth_bytes_per_s = 5.3e12;
  std::uint32_t hbm_stacks = 8;
  sim::Tick hbm_latency_ps = 0;
  // A load of a peer's coarse-grained memory looks up and fills the reader's L2 (MI300X: the
  // driver maps peer VRAM MTYPE NC); false: every peer load is served at the owner.
  bool peer_reads_in_l2 = false;
  cache::CacheSpec l2;    // one instance per die
  cache::CacheSpec mall = absent_memory_side_cache();  // one per GPU, memory side; capacity 0: none
};

// On-package data paths. Bandwidths are per instance.
struct FabricSpec {
  double cu_port_bytes_per_clock = 64;            // a CU's load/store path to its L2
  double die_link_bandwidth_bytes_per_s = 2.15e12;  // die (XCD) <-> IOD, each direction
  std::uint32_t num_iods = 4;                     // IODs; dies are spread evenly over them
  double iod_link_bandwidth_bytes_per_s = 1.2e12;  // between two IODs, each direction
  sim::Tick iod_hop_latency_ps = 0;
  std::uint64_t max_bytes_in_flight_per_workgroup = 64 * 1024;  // bounds a workgroup's loads (Little's law)
  // A workgroup's posted stores to peers in flight. 63 outstanding vector memory instructions
  // per wave (the GFX9/CDNA s_waitcnt vmcnt field, loads and stores alike) x 1 KiB per 64-lane
  // dwordx4 store x 4 waves per workgroup.
  std::uint64_t max_store_bytes_in_flight_per_workgroup = 63 * 1024 * 4;
};

struct AtomicSpec {
  sim::Tick local_latency_ps = 0;   // an atomic on this GPU's memory, at the L2 or memory side
  sim::Tick remote_latency_ps = 0;  // added to the link round trip for an atomic on a peer's memory
  sim::Tick poll_interval_ps = 0;   // spin-wait: time between two reads of a flag
};

// One entry of an interconnect's link list: `count` links between two endpoints ("gpu3", or a
// switch's name), each way. Bandwidth and latency default to the interconnect's link_bandwidth
// and link_latency.
struct LinkSpec {
  std::vector<std::string> between;
  std::uint32_t count = 1;
  std::optional<double> bandwidth_bytes_per_s;  // per link, per direction
  std::optional<sim::Tick> latency_ps;
};

// A named switch of an interconnect's link list: a non-blocking crossbar as wide as its ports.
struct SwitchSpec {
  std::string name;
  std::optional<sim::Tick> latency_ps;  // default: the interconnect's switch_latency
};

struct InterconnectSpec {
  // none; full_mesh (xGMI); switch (NVSwitch); direct (one bundle); ring; torus_2d; links (the
  // list below). Every shorthand generates a link list (models/topology/link_plan.h).
  std::string topology = "none";
  std::uint32_t links_per_gpu = 0;
  double link_bandwidth_bytes_per_s = 0;  // per direction, per link
  sim::Tick link_latency_ps = 0;
  std::uint32_t num_switches = 0;  // switch topology: links of each GPU spread evenly over them
  sim::Tick switch_latency_ps = 0;
  double pcie_bandwidth_bytes_per_s = 0;  // GPU <-> host, each direction
  std::vector<std::uint32_t> torus_dims;  // torus_2d: rows x columns = num_gpus
  std::vector<LinkSpec> links;            // topology links
  std::vector<SwitchSpec> switches;       // topology links: the switches links may name
};

// The vendor collective library's kernels on this GPU (NCCL's, RCCL's): the GPU time each of
// its collective kernels takes beyond the data movement and flag handshakes Tessera runs for it,
// per protocol (measured as the kernel's duration minus Tessera's kernel; docs/validation.md,
// "NCCL's kernels on the GPU"). 0: nothing beyond the model.
struct CollectiveLibrarySpec {
  sim::Tick ll_kernel_overhead_ps = 0;
  sim::Tick ll128_kernel_overhead_ps = 0;
  sim::Tick simple_kernel_overhead_ps = 0;
};

struct GpuSpec {
  std::string model = "unnamed";
  std::string vendor = "amd";
  ComputeSpec compute;
  DispatchSpec dispatch;
  MemorySpec memory;
  FabricSpec fabric;
  AtomicSpec atomics;
  CollectiveLibrarySpec collective_library;
};

// What the host's software costs between kernels: CPU time the GPUs wait for when the host
// issues slower than they run (the launch-overhead tax of small collectives).
struct HostSpec {
  // CPU time per GPU of one vendor-library collective call (NCCL's or RCCL's enqueue and launch):
  // a host thread issuing R GPUs' calls spends R times this per collective.
  sim::Tick collective_call_ps = 0;
  // An eager framework's host time per op (PyTorch: Python, the dispatcher, the launch), each
  // rank's process issuing its own ops: per compute kernel, and per collective call through the
  // framework's process group (its bookkeeping and the library's enqueue together).
  sim::Tick framework_op_ps = 0;
  sim::Tick framework_collective_ps = 0;
};

// A GPU's network interface for traffic between nodes (RDMA over InfiniBand or RoCE): one per
// GPU, attached to it through PCIe, its port cabled to a leaf switch of the scale-out network.
struct NicSpec {
  double bandwidth_bytes_per_s = 0;       // the port, per direction
  sim::Tick latency_ps = 0;               // through one NIC, each way (a route between nodes crosses two)
  double pcie_bandwidth_bytes_per_s = 0;  // GPU <-> NIC through the node's PCIe switch, each direction
};

// The network between nodes: leaf switches the NICs are cabled to and, where one leaf does not
// reach every NIC, a spine above them. The spine's switches are joined into one crossbar (ideal
// ECMP over them: flows spread evenly over every uplink), as the node's NVSwitches are.
struct NetworkSpec {
  // rail: leaf r joins the NICs of every node's GPU r (rail-optimised, as NVIDIA's and AMD's
  // reference clusters cable them); fat_tree: leaf i joins every NIC of nodes_per_leaf nodes.
  std::string topology = "rail";
  std::uint32_t nodes_per_leaf = 0;  // fat_tree: nodes under one leaf; 0: every node (one leaf)
  double oversubscription = 1;       // a leaf's bandwidth down (to NICs) over its bandwidth up (to the spine)
  sim::Tick switch_latency_ps = 0;   // through one switch, leaf or spine
};

// Several nodes of `num_gpus / nodes` GPUs each: the interconnect joins the GPUs of one node
// (GPUs n x k .. n x k + n - 1 form node k), the network joins the nodes through each GPU's NIC.
struct ScaleOutSpec {
  std::uint32_t nodes = 1;
  NicSpec nic;
  NetworkSpec network;
};

struct SystemSpec {
  std::string name = "unnamed";
  std::string description;
  std::uint32_t num_gpus = 1;  // in all nodes together
  GpuSpec gpu;
  InterconnectSpec interconnect;
  ScaleOutSpec scale_out;
  HostSpec host;
};

// The GPUs of one node (what the interconnect joins), and the node of a GPU.
std::uint32_t gpus_per_node(const SystemSpec& spec);
std::uint32_t node_of(const SystemSpec& spec, std::uint32_t gpu);

const sim::config::Schema<SystemSpec>& system_schema();

// The GPU index of a link endpoint written "gpuN", or nothing for any other text (a switch's name).
std::optional<std::uint32_t> gpu_endpoint_index(std::string_view endpoint);

// Derived figures that reports and sanity checks quote.
std::uint32_t total_compute_units(const GpuSpec& gpu);
double peak_fp16_flops_per_s(const GpuSpec& gpu);
double rate_of(const DtypeRates& rates, std::string_view dtype);  // throws on an unknown dtype

// The config keys of latencies left at 0 ps (no public figure: uncalibrated until `tessera calibrate`
// fits them from microbenchmarks, docs/validation.md), so that reports can say which results lack them.
std::vector<std::string> zero_latency_keys(const SystemSpec& spec);

}  // namespace tessera::models

#pragma once
// RCCL's own choice of algorithm, protocol, channels and chunking for one collective call, as
// RCCL makes it at commit 0cbce2a7571c907554199fad7e905f16ec0a565c (2024-10-24,
// https://github.com/ROCm/rccl/tree/0cbce2a7571c907554199fad7e905f16ec0a565c). RCCL is AMD's
// fork of NCCL: its device code runs NCCL's runRing and runTreeUpDown, so the plan returned here
// is an NcclPlan that nccl_kernels.h runs unchanged; what differs is the host side:
//
// - src/graph/tuning.cc, ncclTopoTuneModel (the __HIP_PLATFORM_AMD__ branch): per (op, algorithm,
//   protocol) a latency (a base latency plus rcclTuningModel[tuning].hwLat per step) and a bus
//   bandwidth (graph channels x per-channel bandwidth times rcclTuningModel[tuning].bwRatio,
//   none of NCCL's per-protocol caps), turned into an algorithm bandwidth. Tree with Simple is
//   skipped on gfx94x within one node; ring LL of broadcast and reduce gets 1.65 x there. LL128
//   is enabled by default only on gfx90a platforms whose topology model says ll128Enabled.
//   ncclTopoGetAlgoTime: time = latency + bytes / bandwidth, the tree's bandwidth scaled by the
//   table's treeCorrectionFactor (27 powers of two), no correction for a single node's ring.
// - src/graph/rome_models.cc and search.cc: which table applies. A topology model (rome_model_*)
//   matched to the node's GPUs, links, CPUs and NICs sets `tuning` and gives the rings; 8 x
//   MI300X (gfx942, one xGMI link to each peer, no NIC in a single-node communicator) matches
//   rome_model_79: tuning 5 and 28 rings over the full mesh. Without a match RCCL's search runs
//   (its speed array) and tuning stays 0.
// - src/init.cc and src/graph/connect.cc (ncclTopoPostset): the channels a call may use, with
//   gfx94x's own minimums (32 channels at 2 ranks, 24 at 4) and MAXCHANNELS = 128 on gfx94x.
// - src/enqueue.cc, topoGetAlgoInfo and getChannnelThreadInfo: the cheapest pair (LL128 only on a
//   topology that is exactly "all xGMI"), then fewer channels while the bytes are fewer than
//   channels x threads x a per-protocol threshold (threads never shrink on AMD);
//   computeCollChunkInfo: the chunk per protocol. src/include/device.h: 256 threads per
//   workgroup, LL 256 KiB of 16-byte lines (half data), LL128 448 KiB of 64-byte lines (56 bytes
//   data), Simple 4 MiB, each NCCL_STEPS = 8 steps.
//
// Not modelled (docs/workloads.md says so too): MSCCL and MSCCL++ (rome_model_79 sets
// mscclEnabled, so RCCL on 8 x MI300X runs out-of-place all_reduce up to 16 MiB and all_to_all
// up to 43 MB with the MSCCL algorithms of tools/msccl-algorithms/, and MSCCL++ under graph
// capture); multi-node; RCCL's pivot all-to-all; the rome models of other platforms (their tables
// 1 to 4). RCCL's LL128 line is 64 bytes with 8 of flags (NCCL_LL128_LINESIZE); nccl_kernels
// charges NCCL's 8 flag bytes per 120, so an LL128 plan (only ever by request, on a topology that
// is all xGMI and has no rome model) runs with fewer flag bytes on the wire than RCCL's.
//
// RCCL does not run on NVIDIA GPUs. So that `library: rccl` runs on every system file, a system
// whose GPUs are not AMD's is modelled as RCCL on a GPU of no known architecture (no gfx94x or
// gfx90a rule applies), its links as xGMI at the system's own per-link bandwidth, table 0.
#include <cstdint>
#include <optional>
#include <string>

#include "models/system/system_spec.h"
#include "workloads/patterns/collective_op.h"
#include "workloads/patterns/nccl_tuning.h"

namespace tessera::workloads::patterns {

// The architecture RCCL's rules test (IsArchMatch on the GPU's gcnArchName).
enum class RcclArch : std::uint8_t {
  kGfx94x,    // MI300X, MI300A, MI325X (gfx942)
  kGfx90a,    // MI250X, MI250, MI210
  kOtherAmd,  // an AMD GPU none of this commit's arch rules name, MI355X's gfx950 among them
  kNotAmd,    // not an AMD GPU: RCCL does not run there (the fallback above)
};
std::string rccl_arch_name(RcclArch arch);  // "gfx94x", "gfx90a", "other AMD", "not AMD"

// What RCCL's topology detection and search settle on for one single-node communicator.
struct RcclTopology {
  std::uint32_t ranks = 0;
  RcclArch arch = RcclArch::kGfx94x;
  std::uint32_t compute_units = 0;   // gpu.cu: MAXCHANNELS applies unless 80, 20 or 38 (connect.cc)
  bool xgmi = true;                  // links between the GPUs (NCCL_HW_NVLINK), else PCIe (NCCL_HW_PCI)
  int tuning = 0;                    // index into rcclTuningModel[] (0 or 5 here)
  int rome_model = -1;               // the matched rome_model_N (79), or -1
  bool rome_topology = false;        // RCCL_TOPO_4P2H_ROME: more than 4 GPUs with direct xGMI links
  bool xgmi_all = false;             // RCCL_TOPO_XGMI_ALL: every GPU pair xGMI-connected
  bool msccl_enabled = false;        // the rome model's mscclEnabled (MSCCL itself is not modelled)
  std::uint32_t graph_channels = 0;  // ring graph's nChannels (the tree graph has as many)
  double ring_bw_GBps = 0;           // ring graph's bwIntra, per channel
  double tree_bw_GBps = 0;           // tree graph's bwIntra, per channel
  std::uint32_t channels = 0;        // comm->nChannels
  std::uint32_t p2p_channels = 0;    // comm->p2pnChannels (all_to_all's grouped sends and receives)
  std::uint32_t p2p_channels_per_peer = 0;
  // Not RCCL's: NCCL's view of the same GPUs (nccl_topology_of). The kernels are NCCL's, so what
  // nccl_plan attaches to a plan beyond its choice (the system's costs of the kernels) is taken
  // from NCCL's plan of the same pair (rccl_plan).
  NcclTopology nccl;
};

// The topology of `ranks` GPUs of `system` as RCCL sees it (rccl_tuning.cc says how).
RcclTopology rccl_topology_of(const models::SystemSpec& system, std::uint32_t ranks);

// RCCL's model of one op on `topology` with its default protocol enabling (LL128 as RCCL enables
// it by itself): latency (us) and algorithm bandwidth (GB/s) per algorithm and protocol; 0 where
// the pair does not exist or is disabled.
NcclCostModel rccl_cost_model(CollectiveOp op, const RcclTopology& topology);

// RCCL's predicted time (us) of `bytes` by one pair (with the table's tree correction); nullopt
// where the pair has no bandwidth.
std::optional<double> rccl_model_time_us(const NcclCostModel& model, const RcclTopology& topology,
                                         NcclAlgorithm algorithm, NcclProtocol protocol, std::uint64_t bytes);

// RCCL's plan for `op` of `bytes` on `topology`, restricted as NCCL_ALGO, NCCL_PROTO and
// NCCL_MAX_NCHANNELS restrict it: RCCL's algorithm, protocol, channels, threads, chunks, FIFO,
// wire bytes and model time, everything else as nccl_plan gives it for that pair on topology.nccl. Throws std::invalid_argument naming what the overrides
// exclude when no pair is left (tree for all_gather, tree Simple on gfx94x, LL128 where RCCL
// does not run it); RCCL itself would quietly fall back to a ring there.
NcclPlan rccl_plan(CollectiveOp op, std::uint64_t bytes, const RcclTopology& topology,
                   const NcclOverrides& overrides = {});

}  // namespace tessera::workloads::patterns

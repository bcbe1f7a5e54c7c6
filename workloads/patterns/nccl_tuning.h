#pragma once
// NCCL's own choice of algorithm, protocol, channels and chunking for one collective call, as
// NCCL 2.28.9 makes it (https://github.com/NVIDIA/nccl/tree/v2.28.9-1):
//
// - src/graph/tuning.cc, ncclTopoTuneModel: per (op, algorithm, protocol) a latency (a base
//   latency plus a per-step hardware latency times the steps) and a bus bandwidth (channels x
//   per-channel bandwidth, with per-protocol caps), turned into an algorithm bandwidth; and
//   ncclTopoGetAlgoTime: time = latency + bytes / bandwidth, with the tree's correction factor.
// - src/enqueue.cc, topoGetAlgoInfo: the cheapest (algorithm, protocol) wins; then the channels
//   (and threads) shrink while the bytes are fewer than channels x threads x a per-protocol
//   threshold. calcCollChunking and src/include/collectives.h: the chunk and slice per protocol.
// - src/include/device.h: the buffers (LL 512 KiB of 16-byte lines, half data; LL128 4.7 MB of
//   128-byte lines, 120 bytes data; Simple 4 MiB), each of NCCL_STEPS = 8 steps.
//
// Ring and Tree (Tree for all_reduce only, as NCCL) within one node; across nodes the ring
// (ncclTopoTuneModel's nNodes > 1 terms: the graph's inter-node bandwidth from three nodes on,
// NET latencies per inter-node step, the network overhead); the tree across nodes (a double
// binary tree between the nodes) is not modelled and left out of the choice. NVLS, CollNet and
// PAT are out (NVLS needs NVLink multicast, which Tessera's systems do not have; CollNet needs
// in-network reduction; PAT runs with one GPU per node only).
//
// The topology NCCL's search would find (channels and per-channel bandwidth of its ring and tree
// graphs, src/graph/search.cc) is an input: nccl_topology_of derives it from the system.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/system/system_spec.h"
#include "workloads/patterns/collective_op.h"

namespace tessera::workloads::patterns {

enum class NcclAlgorithm : std::uint8_t { kTree, kRing };         // NCCL's order (NCCL_ALGO_TREE = 0)
enum class NcclProtocol : std::uint8_t { kLL, kLL128, kSimple };  // NCCL's order (NCCL_PROTO_LL = 0)
inline constexpr int kNcclAlgorithms = 2;
inline constexpr int kNcclProtocols = 3;
std::string nccl_algorithm_name(NcclAlgorithm algorithm);  // "ring", "tree"
std::string nccl_protocol_name(NcclProtocol protocol);     // "LL", "LL128", "Simple"

// The GPU generation NCCL's constants are indexed by (compCapIndex).
enum class NcclGeneration : std::uint8_t { kVolta, kAmpere, kHopper, kBlackwell };

// What NCCL's topology search finds on one node: its ring and tree graphs (channels and
// bandwidth per channel, which its cost model multiplies) and the channels a call may use (the
// graph's, doubled once more when the communicator is set up: ncclTopoPostset).
struct NcclTopology {
  std::uint32_t ranks = 0;
  std::uint32_t nodes = 1;           // nNodes: the ranks fill whole nodes of ranks / nodes GPUs
  double ring_bw_inter_GBps = 0;     // graphs[RING]->bwInter: per channel, through the NICs (nodes > 1)
  double net_overhead_us = 0;        // getNetOverhead: the proxy's cost per network step (nodes > 1)
  NcclGeneration generation = NcclGeneration::kHopper;
  bool nvlink = true;                // NVLink (or xGMI): NCCL_HW_NVLINK, else NCCL_HW_PCI
  std::uint32_t graph_channels = 0;  // graphs[RING]->nChannels = graphs[TREE]->nChannels
  double ring_bw_GBps = 0;           // graphs[RING]->bwIntra: per channel
  double tree_bw_GBps = 0;           // graphs[TREE]->bwIntra: per channel
  std::uint32_t channels = 0;        // comm->nChannels
};

// The topology of `ranks` GPUs of `system`, in NCCL's nominal figures (src/graph/topo.h: 20.6 GB/s
// per NVLink on Hopper, ...), as its search settles on it (nccl_tuning.cc says how).
NcclTopology nccl_topology_of(const models::SystemSpec& system, std::uint32_t ranks);

// NCCL's model of one op on `topology`: latency (us) and algorithm bandwidth (GB/s) per
// algorithm and protocol; bandwidth 0 where the pair does not exist for the op.
struct NcclCostModel {
  std::array<std::array<double, kNcclProtocols>, kNcclAlgorithms> latency_us{};
  std::array<std::array<double, kNcclProtocols>, kNcclAlgorithms> bandwidth_GBps{};
};
NcclCostModel nccl_cost_model(CollectiveOp op, const NcclTopology& topology);

// NCCL's predicted time (us) of `bytes` (nccl-tests' size) by one pair; nullopt where the pair does not exist.
std::optional<double> nccl_model_time_us(const NcclCostModel& model, NcclAlgorithm algorithm, NcclProtocol protocol,
                                         std::uint64_t bytes);

// What a call runs with.
struct NcclPlan {
  NcclAlgorithm algorithm = NcclAlgorithm::kRing;
  NcclProtocol protocol = NcclProtocol::kSimple;
  std::uint32_t channels = 1;     // CTAs per rank, each on its own ring (or tree)
  std::uint32_t threads = 0;      // per CTA (informative: Tessera's workgroups have no thread count)
  std::uint64_t chunk_bytes = 0;  // data bytes a channel moves per ring step
  std::uint64_t slice_bytes = 0;  // data bytes per flow-controlled transfer (chunk / slices)
  std::uint32_t fifo_slices = 0;  // slices the receiver's buffer holds (NCCL_STEPS / sliceSteps)
  double wire_per_data = 1;       // bytes on the wire per data byte: LL 2, LL128 128/120, Simple 1
  double model_time_us = 0;       // NCCL's own prediction for the chosen pair
};

// Restrictions a user may put on the choice (NCCL_ALGO, NCCL_PROTO, NCCL_MAX_NCHANNELS).
struct NcclOverrides {
  std::optional<NcclAlgorithm> algorithm;
  std::optional<NcclProtocol> protocol;
  std::uint32_t max_channels = 0;  // 0: NCCL's own
};

// The library's choice among the pairs the overrides allow (NCCL's updateCollCostTable, RCCL's
// topoGetAlgoInfo): the least time `time_us` gives (nullopt: the pair is not considered). One rank
// runs ring Simple at no modelled cost when `one_rank_runs` (a local copy). nullopt: no pair is left.
struct NcclChoice {
  NcclAlgorithm algorithm = NcclAlgorithm::kRing;
  NcclProtocol protocol = NcclProtocol::kSimple;
  double time_us = 0;
};
std::optional<NcclChoice> cheapest_pair(
    const NcclOverrides& overrides, std::uint32_t ranks, bool one_rank_runs,
    const std::function<std::optional<double>(NcclAlgorithm, NcclProtocol)>& time_us);

// What the overrides ask for, for messages: "tree LL", "ring", "LL128", or "algorithm and protocol".
std::string requested_pair_name(const NcclOverrides& overrides);

// NCCL's plan for `op` of `bytes` on `topology`; throws std::invalid_argument naming what the
// overrides exclude when no pair is left (e.g. tree for all_gather).
NcclPlan nccl_plan(CollectiveOp op, std::uint64_t bytes, const NcclTopology& topology,
                   const NcclOverrides& overrides = {});

}  // namespace tessera::workloads::patterns

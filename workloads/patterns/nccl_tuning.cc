#include "workloads/patterns/nccl_tuning.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace tessera::workloads::patterns {
namespace {

constexpr int kTree = static_cast<int>(NcclAlgorithm::kTree);
constexpr int kRing = static_cast<int>(NcclAlgorithm::kRing);
constexpr int kLL = static_cast<int>(NcclProtocol::kLL);
constexpr int kLL128 = static_cast<int>(NcclProtocol::kLL128);
constexpr int kSimple = static_cast<int>(NcclProtocol::kSimple);

// src/graph/tuning.cc (v2.28.9), ncclTunerConstantsDefaults; microseconds and GB/s.
constexpr double kBaseLatency[kNcclAlgorithms][kNcclProtocols] = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}};
// hwLatencies[NCCL_HW_NVLINK] and [NCCL_HW_PCI]: per step.
constexpr double kNvlinkLatency[kNcclAlgorithms][kNcclProtocols] = {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}};
constexpr double kPciLatency[kNcclAlgorithms][kNcclProtocols] = {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}};
// hwLatencies[NCCL_HW_NET]: per inter-node step.
constexpr double kNetLatency[kNcclAlgorithms][kNcclProtocols] = {{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}};
// Indexed by generation (Volta, Ampere, Hopper, Blackwell), one node (N1).
constexpr double kLlMaxBw[] = {39.0, 87.7, 141.0, 2 * 141.0};
constexpr double kPerChannelMaxRingLL128Bw[] = {20.0, 20.0, 36.7, 2 * 36.7};
// Several nodes: llMaxBws[index1][index2] with index1 the CPU (0: Intel, as the DGX H100/H200's Xeon)
// and index2 1 for two nodes, 2 for more; perChMaxRingLL128Bws[generation][index2].
constexpr double kLlMaxBwIntel[] = {39.0, 39.0, 20.4};
constexpr double kPerChannelMaxRingLL128BwNodes[][3] = {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7},
                                                       {2 * 36.7, 34.6, 2 * 36.7}};
constexpr double kPerChannelMaxTreeLL128Bw[] = {20.0, 20.0, 36.7, 55.6};
constexpr double kPerChannelMaxTreeBw[] = {26.5, 24.0, 38.7, 70.0};
// ncclTopoGetAlgoTime: the tree all-reduce's bandwidth correction by log2(bytes / 64).
constexpr double kTreeCorrection[kNcclProtocols][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

// src/include/device.h: threads per CTA and the buffers (NCCL_STEPS = 8 steps each).
constexpr std::uint32_t kSimpleMaxThreads = 512;
constexpr std::uint32_t kLLMaxThreads = 512;
constexpr std::uint32_t kLL128MaxThreads = 640;
constexpr std::uint32_t kMaxThreads = 640;
constexpr std::uint32_t kWarp = 32;
constexpr std::uint32_t kSteps = 8;
constexpr std::uint64_t kLLBufferBytes = 8ULL * kLLMaxThreads * kSteps * 16;            // 512 KiB of 16-byte lines
constexpr std::uint64_t kLL128BufferBytes = 120ULL * kLL128MaxThreads * kSteps * 8;     // 4,915,200 B
constexpr std::uint64_t kSimpleBufferBytes = 4ULL << 20;                               // DEFAULT_BUFFSIZE
// src/include/comm.h: bytes per thread before NCCL adds channels or threads.
constexpr double kThreadThreshold[kNcclProtocols] = {8, 8, 64};
// PCI_BW (src/include/graph.h), GB/s: below it a ring runs Simple with 256 threads.
constexpr double kPciBw = 12.0;

int generation_index(NcclGeneration g) { return static_cast<int>(g); }

std::uint32_t steps_of(CollectiveOp op, std::uint32_t ranks) {
  switch (op) {
    case CollectiveOp::kAllReduce: return 2 * (ranks - 1);
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter: return ranks - 1;
    default: return ranks;
  }
}

bool algorithm_exists(CollectiveOp op, int algorithm) {
  if (op == CollectiveOp::kAllToAll) return false;  // point-to-point, not a collective algorithm
  return algorithm == kRing || op == CollectiveOp::kAllReduce;
}

// chunkSteps / sliceSteps of a ring with Simple (src/include/collectives.h); every other pair 1/1.
std::pair<std::uint32_t, std::uint32_t> chunk_and_slice_steps(CollectiveOp op, int algorithm, int protocol) {
  if (algorithm != kRing || protocol != kSimple) return {1, 1};
  switch (op) {
    case CollectiveOp::kAllReduce:
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter: return {kSteps / 2, kSteps / 4};
    default: return {1, 1};
  }
}

}  // namespace

std::string nccl_algorithm_name(NcclAlgorithm algorithm) { return algorithm == NcclAlgorithm::kRing ? "ring" : "tree"; }

std::string nccl_protocol_name(NcclProtocol protocol) {
  switch (protocol) {
    case NcclProtocol::kLL: return "LL";
    case NcclProtocol::kLL128: return "LL128";
    case NcclProtocol::kSimple: return "Simple";
  }
  return "?";
}

NcclCostModel nccl_cost_model(CollectiveOp op, const NcclTopology& t) {
  NcclCostModel m;
  if (t.ranks < 2) return m;
  const int g = generation_index(t.generation);
  const auto n = static_cast<double>(t.ranks);
  const std::uint32_t nsteps = steps_of(op, t.ranks);
  const double channels = t.graph_channels;
  const bool multi_node = t.nodes > 1;
  const int index2 = t.nodes <= 2 ? static_cast<int>(t.nodes) - 1 : 2;
  const double ll_max_bw = multi_node ? kLlMaxBwIntel[index2] : kLlMaxBw[g];
  const double ll128_max_bw = multi_node ? kPerChannelMaxRingLL128BwNodes[g][index2] : kPerChannelMaxRingLL128Bw[g];
  for (int a = 0; a < kNcclAlgorithms; ++a) {
    if (!algorithm_exists(op, a)) continue;
    if (multi_node && a == kTree) continue;  // the tree across nodes: not modelled (nccl_tuning.h)
    for (int p = 0; p < kNcclProtocols; ++p) {
      // ncclTopoTuneModel: the graph's per-channel bandwidth (intra-node up to two nodes, the
      // inter-node one from three on) times its channels, then the per-protocol refinements,
      // then bus bandwidth to algorithm bandwidth.
      const double per_channel = a == kRing ? (t.nodes <= 2 ? t.ring_bw_GBps : t.ring_bw_inter_GBps) : t.tree_bw_GBps;
      double bus = channels * per_channel;
      if (a == kRing && p == kLL) bus = std::min(ll_max_bw, bus * .5);
      if (a == kRing && p == kLL128) bus = std::min(bus * .92, channels * ll128_max_bw);
      if (a == kTree && op == CollectiveOp::kAllReduce) bus = std::min(bus * .92, channels * kPerChannelMaxTreeBw[g]);
      if (a == kTree && p == kLL) bus = std::min(bus / 3.8, kLlMaxBw[g]);
      if (a == kTree && p == kLL128) bus = std::min(bus * 7.0 / 9.0, channels * kPerChannelMaxTreeLL128Bw[g]);
      bus *= a == kRing ? n / nsteps : .5;
      // LL128 runs by default only over NVLink (pEnable &= typeIntra <= PATH_NVB).
      if (p == kLL128 && !t.nvlink) bus = 0;
      m.bandwidth_GBps[a][p] = bus;

      const double hop = t.nvlink ? kNvlinkLatency[a][p] : kPciLatency[a][p];
      double latency = kBaseLatency[a][p];
      if (a == kRing && (op == CollectiveOp::kBroadcast || op == CollectiveOp::kReduce)) {
        // Broadcast and reduce pipeline one hop's latency when every channel runs the same ring
        // (the network's hop across nodes).
        latency += multi_node ? kNetLatency[kRing][p] : hop;
      } else if (a == kRing) {
        // Across nodes: nInterSteps steps at the network's latency (the tree's figure with one
        // GPU per node; latencyInter is 0: NCCL's IB transport sets none), the others at the
        // intra-node one but no less than the proxy's overhead (three times it with Simple).
        const double ppn = n / t.nodes;
        const std::uint32_t inter_steps = !multi_node ? 0 : op == CollectiveOp::kAllReduce ? 2 * (t.nodes - 1) : t.nodes - 1;
        const double inter = kNetLatency[ppn == 1 ? kTree : kRing][p];
        const double intra = multi_node ? std::max(hop, t.net_overhead_us * (p == kSimple ? 3 : 1)) : hop;
        latency += (nsteps - inter_steps) * intra + inter_steps * inter;
      } else {
        latency += 2 * ((n - 1) * hop);
      }
      m.latency_us[a][p] = latency;
    }
  }
  return m;
}

std::optional<double> nccl_model_time_us(const NcclCostModel& model, NcclAlgorithm algorithm, NcclProtocol protocol,
                                         std::uint64_t bytes) {
  const int a = static_cast<int>(algorithm);
  const int p = static_cast<int>(protocol);
  double bw = model.bandwidth_GBps[a][p];
  if (bw <= 0) return std::nullopt;
  const std::uint64_t sixty_fourths = bytes >> 6;
  if (a == kTree && sixty_fourths > 0) {
    const int log_size = static_cast<int>(std::floor(std::log2(static_cast<double>(sixty_fourths))));
    if (log_size < 23) bw *= kTreeCorrection[p][log_size];
  }
  return model.latency_us[a][p] + static_cast<double>(bytes) / (1000.0 * bw);
}

std::optional<NcclChoice> cheapest_pair(
    const NcclOverrides& overrides, std::uint32_t ranks, bool one_rank_runs,
    const std::function<std::optional<double>(NcclAlgorithm, NcclProtocol)>& time_us) {
  if (ranks <= 1) {
    const bool allowed = one_rank_runs && !(overrides.algorithm && *overrides.algorithm != NcclAlgorithm::kRing) &&
                         !(overrides.protocol && *overrides.protocol != NcclProtocol::kSimple);
    return allowed ? std::optional<NcclChoice>(NcclChoice{}) : std::nullopt;
  }
  std::optional<NcclChoice> best;
  for (int a = 0; a < kNcclAlgorithms; ++a) {
    if (overrides.algorithm && static_cast<int>(*overrides.algorithm) != a) continue;
    for (int p = 0; p < kNcclProtocols; ++p) {
      if (overrides.protocol && static_cast<int>(*overrides.protocol) != p) continue;
      const auto time = time_us(static_cast<NcclAlgorithm>(a), static_cast<NcclProtocol>(p));
      if (!time || (best && *time >= best->time_us)) continue;
      best = NcclChoice{static_cast<NcclAlgorithm>(a), static_cast<NcclProtocol>(p), *time};
    }
  }
  return best;
}

std::string requested_pair_name(const NcclOverrides& overrides) {
  if (overrides.algorithm && overrides.protocol) {
    return nccl_algorithm_name(*overrides.algorithm) + " " + nccl_protocol_name(*overrides.protocol);
  }
  if (overrides.algorithm) return nccl_algorithm_name(*overrides.algorithm);
  if (overrides.protocol) return nccl_protocol_name(*overrides.protocol);
  return "algorithm and protocol";
}

NcclPlan nccl_plan(CollectiveOp op, std::uint64_t bytes, const NcclTopology& t, const NcclOverrides& overrides) {
  const NcclCostModel model = nccl_cost_model(op, t);
  NcclPlan plan;
  const auto choice = cheapest_pair(overrides, t.ranks, true, [&](NcclAlgorithm a, NcclProtocol p) {
    return nccl_model_time_us(model, a, p, bytes);
  });
  if (!choice) {
    const std::string pair = requested_pair_name(overrides);
    std::string why;
    if (overrides.algorithm == NcclAlgorithm::kTree && op != CollectiveOp::kAllReduce) why = " (tree runs all_reduce only)";
    if (t.ranks <= 1) why = " (one rank runs ring Simple)";
    if (overrides.protocol == NcclProtocol::kLL128 && !t.nvlink) why = " (LL128 runs over NVLink only)";
    if (overrides.algorithm == NcclAlgorithm::kTree && t.nodes > 1) why = " (the tree across nodes is not modelled)";
    throw std::invalid_argument(fmt::format("NCCL has no {} for {} on {} ranks{}", pair, op_name(op), t.ranks, why));
  }
  plan.algorithm = choice->algorithm;
  plan.protocol = choice->protocol;
  plan.model_time_us = choice->time_us;
  const int a = static_cast<int>(plan.algorithm);
  const int p = static_cast<int>(plan.protocol);

  // topoGetAlgoInfo: fewer channels, then fewer threads, while there is too little work per thread.
  std::uint32_t nc = std::max<std::uint32_t>(1, t.channels);
  if (overrides.max_channels != 0) nc = std::min(nc, overrides.max_channels);
  const bool slow_ring = t.ring_bw_GBps * t.graph_channels <= kPciBw;
  std::uint32_t nt = p == kLL128 ? kLL128MaxThreads : p == kLL ? kLLMaxThreads : (a == kRing && slow_ring ? 256 : kSimpleMaxThreads);
  double threshold = kThreadThreshold[p];
  if (a == kRing && p == kLL) threshold *= t.ranks;
  const auto too_little = [&] { return static_cast<double>(bytes) < nc * static_cast<double>(nt) * threshold; };
  while (too_little() && nc >= 2) --nc;
  while (too_little() && nt % 128 == 0) nt /= 2;
  if (p == kSimple) nt += a == kRing ? kWarp : 4 * kWarp;
  nt = std::max(nt, 3 * kWarp);
  if (a == kTree) nt = kMaxThreads;
  plan.channels = nc;
  plan.threads = nt;

  // calcCollChunking: the step is the buffer / NCCL_STEPS; a chunk is chunkSteps steps of data.
  const auto [chunk_steps, slice_steps] = chunk_and_slice_steps(op, a, p);
  const std::uint64_t buffer = p == kLL ? kLLBufferBytes : p == kLL128 ? kLL128BufferBytes : kSimpleBufferBytes;
  const std::uint64_t step = buffer / kSteps;
  std::uint64_t chunk = step * chunk_steps;
  if (p == kLL) chunk /= 2;               // half of each 16-byte line is flags
  if (p == kLL128) chunk = chunk / 16 * 15;  // 8 of each 128-byte line's 128 are a flag
  if (a == kTree && p == kLL128) {
    // One node: nstepsLL128 = 1 + 0.1 x ranks per node, ppn = ranks.
    const double ppn = t.ranks;
    const double nsteps_ll128 = 1 + 0.1 * ppn;
    while (static_cast<double>(bytes / (nc * chunk)) < nsteps_ll128 * 64 / ppn && chunk > 131072) chunk /= 2;
    while (static_cast<double>(bytes / (nc * chunk)) < nsteps_ll128 * 16 / ppn && chunk > 32768) chunk /= 2;
  }
  plan.chunk_bytes = chunk;
  plan.slice_bytes = chunk / chunk_steps * slice_steps;
  plan.fifo_slices = kSteps / slice_steps;
  plan.wire_per_data = p == kLL ? 2.0 : p == kLL128 ? 128.0 / 120.0 : 1.0;
  return plan;
}

NcclTopology nccl_topology_of(const models::SystemSpec& system, std::uint32_t ranks) {
  const std::uint32_t per_node = models::gpus_per_node(system);
  if (ranks > per_node && ranks % per_node != 0) {
    throw std::invalid_argument(fmt::format("NCCL's ranks across nodes must fill whole nodes: {} ranks on nodes of {} "
                                            "GPUs in '{}'",
                                            ranks, per_node, system.name));
  }
  NcclTopology t;
  t.ranks = ranks;
  t.nodes = ranks > per_node ? ranks / per_node : 1;
  const std::uint32_t local_ranks = ranks / t.nodes;
  const std::string& model = system.gpu.model;
  const auto has = [&](const char* s) { return model.find(s) != std::string::npos; };
  t.generation = has("B200") || has("B300") || has("GB") ? NcclGeneration::kBlackwell
                 : has("A100") || has("A800")           ? NcclGeneration::kAmpere
                 : has("V100")                          ? NcclGeneration::kVolta
                                                        : NcclGeneration::kHopper;
  const auto& ic = system.interconnect;
  t.nvlink = ic.topology != "none" && ic.links_per_gpu > 0;
  // NCCL's nominal bandwidth per NVLink (src/graph/topo.h, SM*_NVLINK_BW), GB/s; other vendors'
  // links (xGMI) at the system's own figure.
  const double per_link = system.gpu.vendor != "nvidia"                  ? ic.link_bandwidth_bytes_per_s / 1e9
                          : t.generation == NcclGeneration::kBlackwell ? 40.1
                          : t.generation == NcclGeneration::kHopper    ? 20.6
                                                                       : 20.0;
  // A channel's path to its ring neighbour carries at most `max_GBps` (every link on a switch or a
  // direct bundle, one peer's links on a full mesh); the GPU's links together `total_GBps`.
  double max_GBps = kPciBw;
  double total_GBps = kPciBw;
  if (t.nvlink) {
    total_GBps = ic.links_per_gpu * per_link;
    max_GBps = ic.topology == "full_mesh" && per_node > 1
                   ? std::max<std::uint32_t>(1, ic.links_per_gpu / (per_node - 1)) * per_link
                   : total_GBps;
  }
  // src/graph/search.cc, ncclTopoCompute for a ring: the fastest speed of the generation's
  // array that one channel's path carries, as many channels at it as the GPU's links carry (at
  // most MAXCHANNELS / 2 = 16); then ncclTopoDupChannels doubles the channels at half the speed when
  // the speed is at least 25 GB/s (from Hopper on: at least 50 GB/s, or at most 4 channels).
  // The tree graph has the ring's channels; a chain of two GPUs runs each at twice the ring's
  // speed (its way up and its way down use opposite directions of the links). On the H200 node
  // (NVLink 18 x 20.6 = 370.8 GB/s) NCCL 2.28.9 logs exactly this: ring 12 x 30 GB/s, tree
  // 12 x 60 GB/s at 2 ranks and 12 x 30 at 4, 24 channels (validation/data/h200-4/nccl-choices/).
  static constexpr double kHopperSpeeds[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
  static constexpr double kOlderSpeeds[] = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
  // Across nodes the search runs on the inter-node arrays (sm90SpeedArrayInter, speedArrayInter),
  // each channel a ring NET n -> GPU ... -> NET n that takes its speed from one NIC
  // (ncclTopoSearchRecNet: net.bw -= bw) and from the NVLinks of every GPU it crosses.
  static constexpr double kHopperInterSpeeds[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                                  15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
  static constexpr double kOlderInterSpeeds[] = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                                                 7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
  const bool hopper_on = t.generation == NcclGeneration::kHopper || t.generation == NcclGeneration::kBlackwell;
  double speed = 0;
  std::uint32_t channels = 1;
  if (t.nodes == 1) {
    const std::vector<double> speeds = hopper_on ? std::vector<double>(std::begin(kHopperSpeeds), std::end(kHopperSpeeds))
                                                 : std::vector<double>(std::begin(kOlderSpeeds), std::end(kOlderSpeeds));
    speed = speeds.back();
    for (double s : speeds) {
      if (s <= max_GBps) {
        speed = s;
        break;
      }
    }
    channels = std::clamp<std::uint32_t>(static_cast<std::uint32_t>(total_GBps / speed), 1, 16);
  } else {
    // What the search settles on for a node of one NIC per GPU (its recursion is not modelled: its
    // outcome for this wiring is): the speed whose channels (NICs x channels each NIC carries,
    // bounded by what a GPU's links carry and by 16) move the most, the fastest on a tie.
    const std::vector<double> speeds =
        hopper_on ? std::vector<double>(std::begin(kHopperInterSpeeds), std::end(kHopperInterSpeeds))
                  : std::vector<double>(std::begin(kOlderInterSpeeds), std::end(kOlderInterSpeeds));
    const double nic_GBps = system.scale_out.nic.bandwidth_bytes_per_s / 1e9;
    double best = 0;
    for (double s : speeds) {
      if (s > max_GBps || s > nic_GBps) continue;
      const auto fit = std::min({static_cast<double>(per_node) * std::floor(nic_GBps / s), std::floor(total_GBps / s),
                                 16.0});
      if (fit * s > best) {
        best = fit * s;
        speed = s;
        channels = std::max<std::uint32_t>(1, static_cast<std::uint32_t>(fit));
      }
    }
    if (speed == 0) speed = speeds.back();
    // getNetOverhead: 1 us on an Intel x86 host (the DGX H100/H200's Xeon), 2 us on AMD.
    t.net_overhead_us = 1.0;
  }
  const bool dup = speed >= 25.0 && !(hopper_on && speed < 50.0 && channels > 4);
  if (dup) {
    channels = std::min<std::uint32_t>(channels * 2, 16);
    speed /= 2;
  }
  t.graph_channels = channels;
  t.ring_bw_GBps = speed;
  t.ring_bw_inter_GBps = t.nodes > 1 ? speed : 0;
  t.tree_bw_GBps = t.nodes > 1 ? 0 : local_ranks == 2 ? 2 * speed : speed;
  t.channels = std::min<std::uint32_t>(2 * channels, 32);  // MAXCHANNELS
  return t;
}

}  // namespace tessera::workloads::patterns

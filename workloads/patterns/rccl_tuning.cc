#include "workloads/patterns/rccl_tuning.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

// Every constant below is RCCL's at commit 0cbce2a7571c907554199fad7e905f16ec0a565c; the files,
// each cited below by its path alone:
//   https://github.com/ROCm/rccl/blob/0cbce2a7571c907554199fad7e905f16ec0a565c/src/graph/tuning.cc
//   https://github.com/ROCm/rccl/blob/0cbce2a7571c907554199fad7e905f16ec0a565c/src/graph/rome_models.cc
//   https://github.com/ROCm/rccl/blob/0cbce2a7571c907554199fad7e905f16ec0a565c/src/graph/search.cc
//   https://github.com/ROCm/rccl/blob/0cbce2a7571c907554199fad7e905f16ec0a565c/src/graph/topo.h
//   https://github.com/ROCm/rccl/blob/0cbce2a7571c907554199fad7e905f16ec0a565c/src/graph/paths.cc
//   https://github.com/ROCm/rccl/blob/0cbce2a7571c907554199fad7e905f16ec0a565c/src/graph/connect.cc
//   https://github.com/ROCm/rccl/blob/0cbce2a7571c907554199fad7e905f16ec0a565c/src/init.cc
//   https://github.com/ROCm/rccl/blob/0cbce2a7571c907554199fad7e905f16ec0a565c/src/enqueue.cc
//   https://github.com/ROCm/rccl/blob/0cbce2a7571c907554199fad7e905f16ec0a565c/src/include/device.h
//   https://github.com/ROCm/rccl/blob/0cbce2a7571c907554199fad7e905f16ec0a565c/src/include/comm.h
//   https://github.com/ROCm/rccl/blob/0cbce2a7571c907554199fad7e905f16ec0a565c/src/include/collectives.h

namespace tessera::workloads::patterns {
namespace {

constexpr int kTree = static_cast<int>(NcclAlgorithm::kTree);
constexpr int kRing = static_cast<int>(NcclAlgorithm::kRing);
constexpr int kLL = static_cast<int>(NcclProtocol::kLL);
constexpr int kLL128 = static_cast<int>(NcclProtocol::kLL128);
constexpr int kSimple = static_cast<int>(NcclProtocol::kSimple);
constexpr int kCorrections = 27;  // treeCorrectionFactor's powers of two, 64 B to 4 GiB

// src/graph/tuning.cc, baseLat: Tree {LL, LL128, Simple}, Ring {LL, LL128, Simple}, us.
constexpr double kBaseLatency[kNcclAlgorithms][kNcclProtocols] = {{12.0, 12.0, 17.0}, {12.0, 12.0, 17.0}};

// src/graph/tuning.cc, struct tuningModel: the parts a single node uses. hwLat[NCCL_HW_NVLINK]
// (xGMI is RCCL's LINK_NVL) and [NCCL_HW_PCI] per step in us; bwRatio[0] (up to two nodes);
// treeCorrectionFactor by log2(bytes / 64). ringCorrectionFactor and hwLat[NCCL_HW_NET] apply to
// more than one node only.
struct TuningModel {
  double hw_latency[2][kNcclAlgorithms][kNcclProtocols];
  double bw_ratio[kNcclAlgorithms][kNcclProtocols];
  double tree_correction[kNcclProtocols][kCorrections];
};

// src/graph/tuning.cc, tuning_model_0: the table when no rome model sets `tuning` (the system
// struct is zeroed). Tables 1 to 4 belong to rome models of MI100 and MI250 platforms
// (rome_models.cc: tuning=1 rome_model_56, 2 rome_model_66/68/71/85, 3 rome_model_62/63/67,
// 4 rome_model_59/65), none of which a Tessera system matches.
constexpr TuningModel kTuningModel0{
    .hw_latency = {{{0.8, 1.4, 2.5}, {0.8, 2.2, 3.6}}, {{2.2, 2.2, 5.7}, {2.2, 2.2, 5.7}}},
    .bw_ratio = {{0.04, 0.22, 0.91}, {0.04, 0.34, 1.00}},
    .tree_correction = {
        {0.1, 0.2, 0.1, 0.1, 0.9, 0.3, 0.4, 0.1, 0.2, 0.4, 0.2, 0.1, 0.3, 0.3,
         0.2, 0.2, 0.2, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1},
        {0.1, 0.3, 1.0, 0.1, 0.5, 1.0, 0.9, 1.0, 1.0, 1.0, 0.3, 0.1, 0.4, 0.5,
         0.5, 0.4, 0.4, 0.3, 0.3, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2},
        {0.2, 1.0, 0.1, 0.1, 0.7, 0.2, 0.4, 0.1, 0.1, 0.3, 0.4, 0.3, 0.6, 0.8,
         1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.8, 0.8, 0.8, 0.8, 0.9, 0.9, 0.9}}};

// src/graph/tuning.cc, tuning_model_5: the MI300X table (rome_model_79, 80 and 84 set tuning=5).
// LL128 has no bandwidth and no correction: RCCL gives gfx942 no LL128.
constexpr TuningModel kTuningModel5{
    .hw_latency = {{{0.9, 0.0, 2.3}, {0.8, 0.0, 2.1}}, {{2.2, 2.2, 5.7}, {2.2, 2.2, 5.7}}},
    .bw_ratio = {{0.06, 0.00, 0.11}, {0.08, 0.00, 1.00}},
    .tree_correction = {
        {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 1.0, 1.0, 1.0, 1.0, 1.0, 0.6, 1.0, 0.9,
         1.0, 1.0, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1},
        {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
         0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0},
        {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
         0.1, 0.7, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.8}}};

const TuningModel& tuning_model(int tuning) { return tuning == 5 ? kTuningModel5 : kTuningModel0; }

// src/graph/tuning.cc, ncclTopoTuneModel: ring LL of broadcast and reduce on gfx94x within one node.
constexpr double kGfx94RootedLLFactor = 1.65;

// src/graph/topo.h, ncclTopoXGMISpeed: RCCL's nominal bandwidth per xGMI link, GB/s
// (GFX94X_XGMI_WIDTH, MI200_XGMI_WIDTH, VEGA_XGMI_WIDTH for every other gcn).
constexpr double kGfx94XgmiWidth = 48.0;
constexpr double kMi200XgmiWidth = 36.0;
constexpr double kVegaXgmiWidth = 24.0;
// src/graph/topo.h: PCI_BW (PCI Gen3 x16), GB/s: the path between GPUs without links.
constexpr double kPciBw = 12.0;

// src/graph/search.cc, speedArrayIntra under __HIP_PLATFORM_AMD__ (no NIC in the communicator).
constexpr double kSpeedArrayIntra[] = {48.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0,
                                       6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};

// src/graph/rome_models.cc, rome_model_79: 8 GPUs, 7 xGMI links each (one per peer), no NIC,
// options "noCpuCheck=1,mscclEnabled=1,tuning=5,disableNumaMatching=1"; its ringBase lists 28
// rings of the 8 GPUs (14 orders, twice), so the ring graph has 28 channels at totalBw / 28.
constexpr std::uint32_t kRomeModel79Gpus = 8;
constexpr std::uint32_t kRomeModel79Rings = 28;
constexpr int kRomeModel79Tuning = 5;

// src/init.cc: ringGraph.maxChannels = MAXCHANNELS/2 (MAXCHANNELS = 128, src/include/device.h);
// src/graph/search.cc, ncclTopoCompute: a ring on a 4P2H/Rome topology within one node at most 2.
constexpr std::uint32_t kMaxChannels = 128;
constexpr std::uint32_t kRingGraphMaxChannels = kMaxChannels / 2;
constexpr std::uint32_t kRomeRingMaxChannels = 2;
// src/include/device.h: CHANNEL_LIMIT; ncclTopoPostset (connect.cc) caps other archs at 2 x it.
constexpr std::uint32_t kChannelLimit = 16;
// src/graph/connect.cc, ncclMinNchannels: the default minimum.
constexpr std::uint32_t kMinChannels = 2;
// src/graph/search.cc, ncclTopoDupChannels: graphs at 25 GB/s or more per channel double their
// channels (AMD's cudaCompCap is 60, src/graph/topo.cc ncclTopoAddGpu, so the sm90 exception
// does not apply).
constexpr double kDupMinBw = 25.0;

// src/include/device.h: NCCL_MAX_NTHREADS = NCCL_SIMPLE_MAX_NTHREADS = NCCL_LL_MAX_NTHREADS =
// NCCL_LL128_MAX_NTHREADS = 256 threads per workgroup (4 wavefronts of 64), and NCCL_STEPS.
constexpr std::uint32_t kThreads = 256;
constexpr std::uint32_t kSteps = 8;
// src/init.cc, DEFAULT_LL_BUFFSIZE = NCCL_LL_LINES_PER_THREAD (8) x NCCL_LL_MAX_NTHREADS x
// NCCL_STEPS x sizeof(ncclLLFifoLine) (16 B); DEFAULT_LL128_BUFFSIZE = NCCL_LL128_ELEMS_PER_THREAD
// (28) x NCCL_LL128_MAX_NTHREADS x NCCL_STEPS x 8 B; DEFAULT_BUFFSIZE = 4 MiB.
constexpr std::uint64_t kLLBufferBytes = 8ULL * kThreads * kSteps * 16;       // 262,144 B
constexpr std::uint64_t kLL128BufferBytes = 28ULL * kThreads * kSteps * 8;    // 458,752 B
constexpr std::uint64_t kSimpleBufferBytes = 4ULL << 20;
// src/include/device.h: NCCL_LL128_LINESIZE = 64 bytes, NCCL_LL128_LINEELEMS = 8 uint64, of which
// NCCL_LL128_DATAELEMS = 7 carry data (NCCL's line is 128 bytes with 15 of 16 data).
constexpr std::uint64_t kLL128LineElems = 8;
constexpr std::uint64_t kLL128DataElems = 7;
// src/include/comm.h: NCCL_LL_THREAD_THRESHOLD, NCCL_LL128_THREAD_THRESHOLD,
// NCCL_SIMPLE_THREAD_THRESHOLD: bytes per thread before a call adds channels.
constexpr double kThreadThreshold[kNcclProtocols] = {8, 8, 64};

std::uint32_t steps_of(CollectiveOp op, std::uint32_t ranks) {
  // ncclTopoTuneModel's nsteps.
  switch (op) {
    case CollectiveOp::kAllReduce: return 2 * (ranks - 1);
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter: return ranks - 1;
    default: return ranks;
  }
}

bool algorithm_exists(CollectiveOp op, int algorithm) {
  if (op == CollectiveOp::kAllToAll) return false;  // grouped sends and receives, no collective algorithm
  return algorithm == kRing || op == CollectiveOp::kAllReduce;  // ncclTopoTuneModel: tree for all_reduce only
}

// src/include/collectives.h: chunkSteps / sliceSteps of a ring with Simple (ALLREDUCE_, ALLGATHER_,
// REDUCESCATTER_CHUNKSTEPS = NCCL_STEPS/2, _SLICESTEPS = NCCL_STEPS/4; BROADCAST_, REDUCE_ 1 and
// 1); computeCollChunkInfo (enqueue.cc) uses 1/1 for every other pair.
std::pair<std::uint32_t, std::uint32_t> chunk_and_slice_steps(CollectiveOp op, int algorithm, int protocol) {
  if (algorithm != kRing || protocol != kSimple) return {1, 1};
  switch (op) {
    case CollectiveOp::kAllReduce:
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter: return {kSteps / 2, kSteps / 4};
    default: return {1, 1};
  }
}

// src/include/utils.h, log2i: floor(log2(n)), 0 for n = 0.
int log2i(std::uint64_t n) {
  int l = 0;
  while (n >>= 1) ++l;
  return l;
}

std::uint32_t next_pow2(std::uint32_t v) {
  std::uint32_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

bool has(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

RcclArch arch_of(const models::GpuSpec& gpu) {
  if (gpu.vendor != "amd") return RcclArch::kNotAmd;
  const std::string& m = gpu.model;
  // MI300X, MI300A and MI325X are gfx942; MI250X, MI250 and MI210 gfx90a. MI355X and MI350X are
  // gfx950, which this commit predates: IsArchMatch(gcn, "gfx94") is false for it, so none of
  // its gfx94x rules (channels, tree Simple, the LL factor, the 48 GB/s xGMI width) applies, as
  // RCCL at this commit would run on it.
  if (has(m, "MI300") || has(m, "MI325")) return RcclArch::kGfx94x;
  if (has(m, "MI250") || has(m, "MI210") || has(m, "MI200")) return RcclArch::kGfx90a;
  return RcclArch::kOtherAmd;
}

double xgmi_width(RcclArch arch) {
  switch (arch) {
    case RcclArch::kGfx94x: return kGfx94XgmiWidth;
    case RcclArch::kGfx90a: return kMi200XgmiWidth;
    default: return kVegaXgmiWidth;
  }
}

bool single_node_gfx94(const RcclTopology& t) { return t.arch == RcclArch::kGfx94x; }  // one node always here

// ncclTopoTuneModel (AMD branch) for one op; `ll128_requested`: NCCL_PROTO names LL128
// (protoEnable 1 instead of the default 2, which RCCL turns into "gfx90a with ll128Enabled" only).
NcclCostModel cost_model(CollectiveOp op, const RcclTopology& t, bool ll128_requested) {
  NcclCostModel m;
  if (t.ranks < 2) return m;
  const TuningModel& table = tuning_model(t.tuning);
  const auto n = static_cast<double>(t.ranks);
  const std::uint32_t nsteps = steps_of(op, t.ranks);
  const int hw = t.xgmi ? 0 : 1;  // intraHw: NCCL_HW_NVLINK for xGMI paths, else NCCL_HW_PCI
  const bool rooted = op == CollectiveOp::kBroadcast || op == CollectiveOp::kReduce;
  // tuning.cc: pEnable for LL128 by default only on gfx90a with the topology model's ll128Enabled
  // (ENABLE_LL128 builds); no rome model a Tessera system matches sets ll128Enabled.
  const bool ll128_enabled = ll128_requested;
  for (int a = 0; a < kNcclAlgorithms; ++a) {
    if (!algorithm_exists(op, a)) continue;
    for (int p = 0; p < kNcclProtocols; ++p) {
      // Tree Simple is skipped on gfx94x when every GPU of the communicator is on this node.
      if (a == kTree && p == kSimple && single_node_gfx94(t)) continue;
      // busBw = graph channels x bwIntra (baseBw is 0 for rome_model_79), times the table's ratio.
      double bus = t.graph_channels * (a == kRing ? t.ring_bw_GBps : t.tree_bw_GBps) * table.bw_ratio[a][p];
      if (a == kRing && p == kLL && rooted && single_node_gfx94(t)) bus *= kGfx94RootedLLFactor;
      // Bus bandwidth to algorithm bandwidth.
      bus *= a == kRing ? n / nsteps : 0.5;
      if (p == kLL128 && !ll128_enabled) bus = 0;
      m.bandwidth_GBps[a][p] = bus;

      const double hop = table.hw_latency[hw][a][p];
      double latency = kBaseLatency[a][p];
      if (a == kRing) {
        // Broadcast and reduce pipeline one hop when the graph's channels run the same rings
        // (sameChannels, which a parsed or searched single-node graph keeps).
        latency += rooted ? hop : nsteps * hop;
      } else {
        latency += 2 * ((n - 1) * hop);
      }
      m.latency_us[a][p] = latency;
    }
  }
  return m;
}

// topoGetAlgoInfo (enqueue.cc) looks at LL128 only when the topology type is exactly
// RCCL_TOPO_XGMI_ALL: every pair xGMI-connected and no 4P2H/Rome flag.
bool ll128_considered(const RcclTopology& t) { return t.xgmi_all && !t.rome_topology; }

}  // namespace

std::string rccl_arch_name(RcclArch arch) {
  switch (arch) {
    case RcclArch::kGfx94x: return "gfx94x";
    case RcclArch::kGfx90a: return "gfx90a";
    case RcclArch::kOtherAmd: return "other AMD";
    case RcclArch::kNotAmd: return "not AMD";
  }
  return "?";
}

NcclCostModel rccl_cost_model(CollectiveOp op, const RcclTopology& topology) {
  return cost_model(op, topology, false);
}

std::optional<double> rccl_model_time_us(const NcclCostModel& model, const RcclTopology& topology,
                                         NcclAlgorithm algorithm, NcclProtocol protocol, std::uint64_t bytes) {
  const int a = static_cast<int>(algorithm);
  const int p = static_cast<int>(protocol);
  double bw = model.bandwidth_GBps[a][p];
  if (bw <= 0) return std::nullopt;
  // ncclTopoGetAlgoTime (AMD branch): the tree's bandwidth times the table's correction by
  // log2i(bytes >> 6), the last entry beyond it; a single node's ring has none.
  if (a == kTree) {
    const int log_size = std::min(log2i(bytes >> 6), kCorrections - 1);
    bw *= tuning_model(topology.tuning).tree_correction[p][log_size];
    if (bw <= 0) return std::nullopt;  // a 0 correction: infinite time, never chosen
  }
  return model.latency_us[a][p] + static_cast<double>(bytes) / (1000.0 * bw);
}

namespace {

// RCCL's own plan: its choice, channels and chunks (what RCCL decides; rccl_plan adds the rest).
NcclPlan rccl_choice(CollectiveOp op, std::uint64_t bytes, const RcclTopology& t, const NcclOverrides& overrides) {
  const bool ll128_requested = overrides.protocol == NcclProtocol::kLL128;
  const NcclCostModel model = cost_model(op, t, ll128_requested);
  NcclPlan plan;
  // One rank runs ring Simple (a local copy) at no modelled cost; all_to_all is no collective algorithm.
  const auto choice = cheapest_pair(overrides, t.ranks, op != CollectiveOp::kAllToAll,
                                    [&](NcclAlgorithm a, NcclProtocol p) -> std::optional<double> {
                                      if (p == NcclProtocol::kLL128 && !ll128_considered(t)) return std::nullopt;
                                      return rccl_model_time_us(model, t, a, p, bytes);
                                    });
  if (!choice) {
    const std::string pair = requested_pair_name(overrides);
    std::string why;
    if (op == CollectiveOp::kAllToAll) {
      why = " (all_to_all is grouped sends and receives, not a collective algorithm)";
    } else if (t.ranks <= 1) {
      why = " (one rank runs ring Simple)";
    } else if (overrides.algorithm == NcclAlgorithm::kTree && op != CollectiveOp::kAllReduce) {
      why = " (tree runs all_reduce only; RCCL itself would fall back to its ring)";
    } else if (overrides.algorithm == NcclAlgorithm::kTree && overrides.protocol == NcclProtocol::kSimple &&
               single_node_gfx94(t)) {
      why = " (RCCL's tuning.cc skips tree Simple on gfx94x within one node)";
    } else if (ll128_requested && !ll128_considered(t)) {
      why = " (RCCL's enqueue.cc considers LL128 only where every GPU pair is xGMI-connected and no 4P2H/Rome "
            "topology model applies; RCCL itself would fall back to its ring)";
    } else if (ll128_requested) {
      why = fmt::format(" (RCCL's tuning table {} gives LL128 no bandwidth)", t.tuning);
    }
    throw std::invalid_argument(fmt::format("RCCL has no {} for {} on {} ranks{}", pair, op_name(op), t.ranks, why));
  }
  plan.algorithm = choice->algorithm;
  plan.protocol = choice->protocol;
  plan.model_time_us = choice->time_us;
  const int a = static_cast<int>(plan.algorithm);
  const int p = static_cast<int>(plan.protocol);

  // getChannnelThreadInfo (enqueue.cc): fewer channels while there is too little work per
  // thread; on AMD the threads never shrink and no sync warp is added.
  std::uint32_t nc = std::max<std::uint32_t>(1, t.channels);
  if (overrides.max_channels != 0) nc = std::min(nc, overrides.max_channels);
  double threshold = kThreadThreshold[p];
  if (a == kRing && p == kLL) threshold *= t.ranks;  // ncclTopoTuneModel: threadThresholds[RING][LL] *= nRanks
  while (static_cast<double>(bytes) < nc * static_cast<double>(kThreads) * threshold && nc >= 2) --nc;
  plan.channels = nc;
  plan.threads = kThreads;

  // computeCollChunkInfo (enqueue.cc): the step is the buffer / NCCL_STEPS; a chunk is chunkSteps
  // steps of data.
  const auto [chunk_steps, slice_steps] = chunk_and_slice_steps(op, a, p);
  const std::uint64_t buffer = p == kLL ? kLLBufferBytes : p == kLL128 ? kLL128BufferBytes : kSimpleBufferBytes;
  const std::uint64_t step = buffer / kSteps;
  std::uint64_t chunk = step * chunk_steps;
  if (p == kLL) chunk /= 2;  // half of each 16-byte line is flags
  if (p == kLL128) chunk = chunk / kLL128LineElems * kLL128DataElems;
  const auto per_chunks = [&](std::uint64_t c) { return static_cast<double>(bytes / (std::uint64_t{nc} * c)); };
  if (a == kTree && p == kSimple) {
    // ncclPatternTreeUpDown: tree.depth = nRanks/nNodes - 1 + log2i(nNodes) (connect.cc, connectTrees).
    const double depth = t.ranks - 1.0;
    while (per_chunks(chunk) < depth * 8 && chunk > 131072) chunk /= 2;
    while (per_chunks(chunk) < depth * 4 && chunk > 65536) chunk /= 2;
    while (per_chunks(chunk) < depth && chunk > 32768) chunk /= 2;
  } else if (a == kRing && p == kSimple && (op == CollectiveOp::kBroadcast || op == CollectiveOp::kReduce)) {
    // ncclPatternPipelineFrom / PipelineTo: smaller chunks until every channel has enough of them.
    while (per_chunks(chunk) < 64 && chunk > 262144) chunk /= 2;
    while (per_chunks(chunk) < 32 && chunk > 131072) chunk /= 2;
    while (per_chunks(chunk) < 16 && chunk > 65536) chunk /= 2;
    while (per_chunks(chunk) < 8 && chunk > 32768) chunk /= 2;
  } else if (a == kTree && p == kLL128) {
    // One node: nstepsLL128 = 1 + log2i(nNodes) + 0.1 x ppn, ppn = ranks.
    const double ppn = t.ranks;
    const double nsteps_ll128 = 1 + 0.1 * ppn;
    while (per_chunks(chunk) < nsteps_ll128 * 64 / ppn && chunk > 131072) chunk /= 2;
    while (per_chunks(chunk) < nsteps_ll128 * 16 / ppn && chunk > 32768) chunk /= 2;
  }
  plan.chunk_bytes = chunk;
  plan.slice_bytes = chunk / chunk_steps * slice_steps;
  plan.fifo_slices = kSteps / slice_steps;
  // Bytes on the wire per data byte. LL128's is RCCL's 64/56; nccl_kernels charges NCCL's
  // 128/120 for LL128 whatever this says (rccl_tuning.h): the closest plan it can run.
  plan.wire_per_data = p == kLL      ? 2.0
                       : p == kLL128 ? static_cast<double>(kLL128LineElems) / static_cast<double>(kLL128DataElems)
                                     : 1.0;
  return plan;
}

}  // namespace

NcclPlan rccl_plan(CollectiveOp op, std::uint64_t bytes, const RcclTopology& t, const NcclOverrides& overrides) {
  const NcclPlan rccl = rccl_choice(op, bytes, t, overrides);
  // NCCL's plan of the same pair carries whatever belongs to the kernels rather than to the
  // library's choice; RCCL's decisions go into it.
  NcclPlan plan;
  try {
    NcclOverrides same;
    same.algorithm = rccl.algorithm;
    same.protocol = rccl.protocol;
    plan = nccl_plan(op, bytes, t.nccl, same);
  } catch (const std::invalid_argument&) {
    return rccl;  // NCCL has no such pair here (e.g. LL128 without links): nothing to take over
  }
  plan.algorithm = rccl.algorithm;
  plan.protocol = rccl.protocol;
  plan.channels = rccl.channels;
  plan.threads = rccl.threads;
  plan.chunk_bytes = rccl.chunk_bytes;
  plan.slice_bytes = rccl.slice_bytes;
  plan.fifo_slices = rccl.fifo_slices;
  plan.wire_per_data = rccl.wire_per_data;
  plan.model_time_us = rccl.model_time_us;
  return plan;
}

RcclTopology rccl_topology_of(const models::SystemSpec& system, std::uint32_t ranks) {
  if (ranks > models::gpus_per_node(system)) {
    throw std::invalid_argument(fmt::format("RCCL's tuner is modelled within one node: {} ranks span several nodes of "
                                            "{} GPUs in '{}'",
                                            ranks, models::gpus_per_node(system), system.name));
  }
  RcclTopology t;
  t.ranks = ranks;
  t.nccl = nccl_topology_of(system, ranks);
  t.arch = arch_of(system.gpu);
  t.compute_units = system.gpu.compute.num_dies * system.gpu.compute.compute_units_per_die;
  const auto& ic = system.interconnect;
  t.xgmi = ic.topology != "none" && ic.links_per_gpu > 0;
  const bool mesh = ic.topology == "full_mesh" && system.num_gpus > 1;
  // Links to each peer on a full mesh (rome_models.cc's connMatrix entry: link bw / xGMI speed).
  const std::uint32_t links_per_peer = mesh ? std::max<std::uint32_t>(1, ic.links_per_gpu / (system.num_gpus - 1)) : 0;
  // RCCL's figure per link: its nominal xGMI width (topo.h) on AMD, whatever the system file's
  // measured figure; on another vendor's GPU (the fallback) the system's own per-direction figure.
  const double per_link = t.arch == RcclArch::kNotAmd ? ic.link_bandwidth_bytes_per_s / 1e9 : xgmi_width(t.arch);

  // ncclTopoSearchInit (search.cc): maxBw, the best path between two GPUs, and totalBw, the most
  // a GPU's links carry. Only the communicator's GPUs are in RCCL's topology, so on a full mesh a
  // GPU has links to ranks - 1 peers.
  double max_bw = kPciBw;
  double total_bw = kPciBw;
  if (t.xgmi && ranks > 1) {
    if (mesh) {
      max_bw = links_per_peer * per_link;
      total_bw = std::min<std::uint32_t>(ic.links_per_gpu, (ranks - 1) * links_per_peer) * per_link;
    } else {
      max_bw = total_bw = ic.links_per_gpu * per_link;
    }
  }
  // paths.cc (ncclTopoTrimSystem): RCCL_TOPO_XGMI_ALL when every GPU pair is xGMI-connected;
  // rome_models.cc (parseRome4P2H): RCCL_TOPO_4P2H_ROME for more than 4 GPUs with direct links.
  t.xgmi_all = t.xgmi && ranks > 1;
  t.rome_topology = t.xgmi && mesh && ranks > 4;

  if (t.xgmi && mesh && ranks == kRomeModel79Gpus && links_per_peer == 1) {
    // parseA2a8P / parseRome4P2H (rome_models.cc) match rome_model_79 (its CPU and NUMA checks
    // are off, and a single-node communicator has no NIC): its rings, tuning=5, mscclEnabled.
    t.rome_model = 79;
    t.tuning = kRomeModel79Tuning;
    t.msccl_enabled = true;
    t.graph_channels = kRomeModel79Rings;
    t.ring_bw_GBps = total_bw / kRomeModel79Rings;  // parseGraph: bwIntra = totalBw / nChannels
    t.tree_bw_GBps = t.ring_bw_GBps;                // the tree graph falls back to the same ringBase
  } else {
    // ncclTopoCompute's search in closed form, as nccl_topology_of: the fastest speed of the
    // array one channel's path carries, as many channels at it as the GPU's links carry; then
    // ncclTopoDupChannels doubles the channels at half the speed from 25 GB/s on. The tree graph
    // has the ring's channels (init.cc: treeGraph.minChannels = maxChannels = ring's), a chain
    // of two GPUs each at twice the ring's speed (its way up and down use opposite directions).
    const std::uint32_t max_channels = t.rome_topology ? kRomeRingMaxChannels : kRingGraphMaxChannels;
    double speed = std::end(kSpeedArrayIntra)[-1];
    for (double s : kSpeedArrayIntra) {
      if (s <= max_bw && s <= total_bw) {
        speed = s;
        break;
      }
    }
    std::uint32_t channels =
        std::clamp<std::uint32_t>(static_cast<std::uint32_t>(total_bw / speed + 1e-9), 1, max_channels);
    if (ranks > 1 && speed >= kDupMinBw) {
      const std::uint32_t dup = std::min(2 * channels, max_channels);
      speed /= (dup + channels - 1) / channels;
      channels = dup;
    }
    t.graph_channels = channels;
    t.ring_bw_GBps = speed;
    t.tree_bw_GBps = ranks == 2 ? 2 * speed : speed;
  }

  // init.cc (allGather3Data[rank].nc) and connect.cc (ncclTopoPostset): the graph's channels
  // doubled, or nc times them, whichever is more. gfx94x: MAXCHANNELS unless the GPU has 80, 20
  // or 38 CUs, and nc = 16 at 2 ranks, 4 at 4 ranks (so 32 and 24 channels: "NCCL_MIN_NCHANNELS"
  // in RCCL's comments); gfx90a within one node: nc = 4, at least 4 / ring channels; other
  // archs: 2 x CHANNEL_LIMIT.
  const std::uint32_t g = std::max<std::uint32_t>(1, t.graph_channels);
  std::uint32_t post_max = 2 * kChannelLimit;
  if (t.arch == RcclArch::kGfx94x) {
    const std::uint32_t cu = t.compute_units;
    post_max = cu == 80 || cu == 20 || cu == 38 ? cu : kMaxChannels;
  }
  std::uint32_t nc = 2;
  if (t.arch == RcclArch::kGfx90a) nc = std::max<std::uint32_t>(4, 4 / g);
  if (g > kMaxChannels / 2) nc = 1;
  if (t.arch == RcclArch::kGfx94x && ranks == 2) nc = 16;
  if (t.arch == RcclArch::kGfx94x && ranks == 4) nc = 4;
  const std::uint32_t dup = std::min(post_max, g <= post_max / 2 ? 2 * g : g);
  const std::uint32_t with_nc = std::min(std::min(kMaxChannels, post_max) / g, nc) * g;
  t.channels = std::max({dup, with_nc, kMinChannels});

  // paths.cc, ncclTopoComputeP2pChannels (the host CPU is in no system file: taken as not Intel's):
  // per peer (gfx94x ? 4 : 2) x the xGMI links to it; then, unless a Rome topology without
  // XGMI_ALL limits it to 2, the next power of two (doubled on gfx94x within one node), and
  // nextPow2(channels) at most 4 x CHANNEL_LIMIT in all.
  const double path_bw = t.xgmi ? max_bw : 0.0;
  const std::uint32_t per_peer_links = std::max<std::uint32_t>(1, static_cast<std::uint32_t>(path_bw / xgmi_width(t.arch)));
  const std::uint32_t per_peer = t.xgmi ? (t.arch == RcclArch::kGfx94x ? 4 : 2) * per_peer_links : 2;
  if (t.rome_topology && !t.xgmi_all) {
    t.p2p_channels_per_peer = 2;
    t.p2p_channels = 2;
  } else {
    t.p2p_channels_per_peer = next_pow2(std::min(t.channels, per_peer)) * (t.arch == RcclArch::kGfx94x ? 2 : 1);
    t.p2p_channels = std::min(next_pow2(t.channels), 4 * kChannelLimit);
  }
  return t;
}

}  // namespace tessera::workloads::patterns

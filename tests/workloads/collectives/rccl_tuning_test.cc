// RCCL's choices as rccl_tuning.h models them, against numbers worked out by hand from RCCL's
// source at commit 0cbce2a7571c907554199fad7e905f16ec0a565c (https://github.com/ROCm/rccl):
// rome_model_79's 28 rings and tuning=5 (src/graph/rome_models.cc), tuning_model_5's hwLat and
// bwRatio (src/graph/tuning.cc), GFX94X_XGMI_WIDTH = 48 GB/s (src/graph/topo.h), the channel
// rules of src/init.cc and src/graph/connect.cc, and src/enqueue.cc's choice, channel reduction
// and chunks.
#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "tests/support/run_config.h"
#include "workloads/patterns/rccl_tuning.h"

namespace p = tessera::workloads::patterns;

namespace {

tessera::models::SystemSpec system_named(const std::string& name) {
  return tessera::test::read_run_config_text("system: " + name + "\nworkload: {kind: phold}\n").system;
}

constexpr int kTree = static_cast<int>(p::NcclAlgorithm::kTree);
constexpr int kRing = static_cast<int>(p::NcclAlgorithm::kRing);
constexpr int kLL = static_cast<int>(p::NcclProtocol::kLL);
constexpr int kLL128 = static_cast<int>(p::NcclProtocol::kLL128);
constexpr int kSimple = static_cast<int>(p::NcclProtocol::kSimple);

}  // namespace

TEST_CASE("rccl: 8 x MI300X matches rome_model_79, tuning 5, 28 rings of 12 GB/s, 56 channels, 64 p2p channels") {
  const p::RcclTopology t = p::rccl_topology_of(system_named("mi300x-8"), 8);
  CHECK(t.arch == p::RcclArch::kGfx94x);
  CHECK(t.rome_model == 79);
  CHECK(t.tuning == 5);
  CHECK(t.msccl_enabled);
  CHECK(t.xgmi);
  CHECK(t.xgmi_all);
  CHECK(t.rome_topology);
  // parseGraph: 28 rings, bwIntra = totalBw / 28 = 7 links x 48 GB/s / 28.
  CHECK(t.graph_channels == 28);
  CHECK(t.ring_bw_GBps == doctest::Approx(7 * 48.0 / 28));
  CHECK(t.tree_bw_GBps == doctest::Approx(12.0));
  // ncclTopoPostset: 28 doubled (MAXCHANNELS = 128 on gfx94x with 304 CUs), nc = 2 at 8 ranks.
  CHECK(t.channels == 56);
  // ncclTopoComputeP2pChannels: nextPow2(56) = 64; per peer nextPow2(4 x 1 link) x 2 on gfx94x.
  CHECK(t.p2p_channels == 64);
  CHECK(t.p2p_channels_per_peer == 8);
  // MI325X is gfx942 as well.
  const p::RcclTopology mi325 = p::rccl_topology_of(system_named("mi325x-8"), 8);
  CHECK(mi325.arch == p::RcclArch::kGfx94x);
  CHECK(mi325.tuning == 5);
  CHECK(mi325.channels == 56);
}

TEST_CASE("rccl: fewer MI300X ranks find no rome model, search, and get gfx94x's 32 and 24 channels") {
  const auto mi300x = system_named("mi300x-8");
  // 2 ranks: one 48 GB/s link, a ring channel at 48 doubled to 2 x 24; nc = 16 -> 32 channels
  // (init.cc: "NCCL_MIN_NCHANNELS=32").
  const p::RcclTopology two = p::rccl_topology_of(mi300x, 2);
  CHECK(two.rome_model == -1);
  CHECK(two.tuning == 0);
  CHECK(two.graph_channels == 2);
  CHECK(two.ring_bw_GBps == doctest::Approx(24.0));
  CHECK(two.tree_bw_GBps == doctest::Approx(48.0));
  CHECK(two.channels == 32);
  // 4 ranks: 3 links, 3 channels at 48 doubled to 6 x 24; nc = 4 -> 24 ("NCCL_MIN_NCHANNELS=24").
  const p::RcclTopology four = p::rccl_topology_of(mi300x, 4);
  CHECK(four.graph_channels == 6);
  CHECK(four.ring_bw_GBps == doctest::Approx(24.0));
  CHECK(four.channels == 24);
  CHECK(!four.rome_topology);
  // 6 ranks: more than 4 GPUs with direct links is a 4P2H/Rome topology: rings of at most 2 channels.
  const p::RcclTopology six = p::rccl_topology_of(mi300x, 6);
  CHECK(six.rome_topology);
  CHECK(six.graph_channels == 2);
  CHECK(six.ring_bw_GBps == doctest::Approx(48.0));
  CHECK(six.channels == 4);
}

TEST_CASE("rccl: tuning table cells of 8 x MI300X, computed by hand from tuning_model_5") {
  const p::RcclTopology t = p::rccl_topology_of(system_named("mi300x-8"), 8);
  const double bus = 28 * 12.0;  // graph channels x bwIntra = 336 GB/s
  // all_reduce: nsteps = 2 x 7 = 14; ring ratio 8 / 14, tree 0.5.
  const p::NcclCostModel ar = p::rccl_cost_model(p::CollectiveOp::kAllReduce, t);
  CHECK(ar.bandwidth_GBps[kRing][kLL] == doctest::Approx(bus * 0.08 * 8 / 14));  // 15.36
  CHECK(ar.bandwidth_GBps[kRing][kSimple] == doctest::Approx(bus * 1.00 * 8 / 14));  // 192
  CHECK(ar.bandwidth_GBps[kRing][kLL128] == 0.0);  // bwRatio 0, and LL128 off on gfx942
  CHECK(ar.bandwidth_GBps[kTree][kLL] == doctest::Approx(bus * 0.06 * 0.5));  // 10.08
  CHECK(ar.bandwidth_GBps[kTree][kLL128] == 0.0);
  CHECK(ar.bandwidth_GBps[kTree][kSimple] == 0.0);  // tree Simple skipped on gfx94x within one node
  CHECK(ar.latency_us[kRing][kLL] == doctest::Approx(12.0 + 14 * 0.8));    // 23.2
  CHECK(ar.latency_us[kRing][kSimple] == doctest::Approx(17.0 + 14 * 2.1));  // 46.4
  CHECK(ar.latency_us[kTree][kLL] == doctest::Approx(12.0 + 2 * 7 * 0.9));   // 24.6
  // all_gather: nsteps 7, ratio 8 / 7.
  const p::NcclCostModel ag = p::rccl_cost_model(p::CollectiveOp::kAllGather, t);
  CHECK(ag.bandwidth_GBps[kRing][kLL] == doctest::Approx(bus * 0.08 * 8 / 7));  // 30.72
  CHECK(ag.bandwidth_GBps[kRing][kSimple] == doctest::Approx(bus * 8 / 7));     // 384
  CHECK(ag.bandwidth_GBps[kTree][kLL] == 0.0);  // tree runs all_reduce only
  CHECK(ag.latency_us[kRing][kSimple] == doctest::Approx(17.0 + 7 * 2.1));      // 31.7
  // broadcast: ring LL gets gfx94x's 1.65; one hop of latency (the channels run the same rings).
  const p::NcclCostModel bc = p::rccl_cost_model(p::CollectiveOp::kBroadcast, t);
  CHECK(bc.bandwidth_GBps[kRing][kLL] == doctest::Approx(bus * 0.08 * 1.65));  // 44.352
  CHECK(bc.bandwidth_GBps[kRing][kSimple] == doctest::Approx(bus));
  CHECK(bc.latency_us[kRing][kLL] == doctest::Approx(12.8));
  CHECK(bc.latency_us[kRing][kSimple] == doctest::Approx(19.1));
  // The tree's time carries tuning_model_5's correction: LL at 1 MiB (log2(16384) = 14) is 1.0,
  // at 8 B (log2i(0) = 0) 0.1.
  CHECK(*p::rccl_model_time_us(ar, t, p::NcclAlgorithm::kTree, p::NcclProtocol::kLL, 1 << 20) ==
        doctest::Approx(24.6 + 1048576.0 / (1000 * 10.08)));
  CHECK(*p::rccl_model_time_us(ar, t, p::NcclAlgorithm::kTree, p::NcclProtocol::kLL, 8) ==
        doctest::Approx(24.6 + 8.0 / (1000 * 1.008)));
  CHECK(!p::rccl_model_time_us(ar, t, p::NcclAlgorithm::kTree, p::NcclProtocol::kSimple, 1 << 20));
}

TEST_CASE("rccl: its choice on 8 x MI300X - ring LL when small, ring Simple from about 380 KB, channels by the threshold") {
  const p::RcclTopology t = p::rccl_topology_of(system_named("mi300x-8"), 8);
  struct Choice {
    p::CollectiveOp op;
    std::uint64_t bytes;
    p::NcclProtocol protocol;
    std::uint32_t channels;
    double time_us;
  };
  const auto all_reduce = p::CollectiveOp::kAllReduce;
  const auto all_gather = p::CollectiveOp::kAllGather;
  const Choice expected[] = {
      // Ring LL's threshold is 8 x 8 ranks bytes per thread of 256: 16 KiB per channel.
      {all_reduce, 8, p::NcclProtocol::kLL, 1, 23.2 + 8.0 / 15360},
      {all_reduce, 256 << 10, p::NcclProtocol::kLL, 16, 23.2 + 262144.0 / 15360},
      // Simple's is 64 bytes per thread: 16 KiB per channel, so 32 channels at 512 KiB.
      {all_reduce, 512 << 10, p::NcclProtocol::kSimple, 32, 46.4 + 524288.0 / 192000},
      {all_reduce, 1 << 20, p::NcclProtocol::kSimple, 56, 46.4 + 1048576.0 / 192000},
      {all_reduce, 256ULL << 20, p::NcclProtocol::kSimple, 56, 46.4 + 268435456.0 / 192000},
      {all_gather, 8, p::NcclProtocol::kLL, 1, 17.6 + 8.0 / 30720},
      {all_gather, 1 << 20, p::NcclProtocol::kSimple, 56, 31.7 + 1048576.0 / 384000},
      {all_gather, 256ULL << 20, p::NcclProtocol::kSimple, 56, 31.7 + 268435456.0 / 384000},
  };
  for (const Choice& k : expected) {
    CAPTURE(p::op_name(k.op));
    CAPTURE(k.bytes);
    const p::NcclPlan plan = p::rccl_plan(k.op, k.bytes, t);
    CHECK(plan.algorithm == p::NcclAlgorithm::kRing);  // tree LL is never cheaper than ring LL here
    CHECK(p::nccl_protocol_name(plan.protocol) == p::nccl_protocol_name(k.protocol));
    CHECK(plan.channels == k.channels);
    CHECK(plan.threads == 256);
    CHECK(plan.model_time_us == doctest::Approx(k.time_us));
  }
}

TEST_CASE("rccl: chunks and FIFOs per protocol from RCCL's buffers") {
  const p::RcclTopology t = p::rccl_topology_of(system_named("mi300x-8"), 8);
  // Simple ring all_reduce: 4 steps of 512 KiB per chunk, slices of 2 steps, 4 slices in the FIFO.
  p::NcclPlan plan = p::rccl_plan(p::CollectiveOp::kAllReduce, 256ULL << 20, t);
  CHECK(plan.chunk_bytes == 2ULL << 20);
  CHECK(plan.slice_bytes == 1ULL << 20);
  CHECK(plan.fifo_slices == 4);
  CHECK(plan.wire_per_data == 1.0);
  // LL: 256 KiB buffer (8 lines x 256 threads x 8 steps x 16 B), a 32 KiB step, half of it data.
  plan = p::rccl_plan(p::CollectiveOp::kAllReduce, 256ULL << 20, t, {.protocol = p::NcclProtocol::kLL});
  CHECK(plan.chunk_bytes == 16ULL << 10);
  CHECK(plan.slice_bytes == 16ULL << 10);
  CHECK(plan.fifo_slices == 8);
  CHECK(plan.wire_per_data == 2.0);
  // Broadcast Simple, 256 MiB on 56 channels: computeCollChunkInfo halves the 512 KiB chunk while a
  // channel has fewer than 64 (down to 256 KiB), then 32 (down to 128 KiB) chunks: 128 KiB.
  plan = p::rccl_plan(p::CollectiveOp::kBroadcast, 256ULL << 20, t);
  CHECK(plan.protocol == p::NcclProtocol::kSimple);
  CHECK(plan.channels == 56);
  CHECK(plan.chunk_bytes == 128ULL << 10);
  CHECK(plan.fifo_slices == 8);
  // NCCL_MAX_NCHANNELS caps the channels.
  CHECK(p::rccl_plan(p::CollectiveOp::kAllReduce, 256ULL << 20, t, {.max_channels = 8}).channels == 8);
  // Forced tree: LL, the only tree protocol RCCL leaves on gfx94x.
  plan = p::rccl_plan(p::CollectiveOp::kAllReduce, 1 << 20, t, {.algorithm = p::NcclAlgorithm::kTree});
  CHECK(plan.algorithm == p::NcclAlgorithm::kTree);
  CHECK(plan.protocol == p::NcclProtocol::kLL);
}

TEST_CASE("rccl: impossible overrides are errors naming why") {
  const p::RcclTopology t = p::rccl_topology_of(system_named("mi300x-8"), 8);
  CHECK_THROWS_WITH_AS(p::rccl_plan(p::CollectiveOp::kAllGather, 1 << 20, t, {.algorithm = p::NcclAlgorithm::kTree}),
                       doctest::Contains("tree runs all_reduce only"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(p::rccl_plan(p::CollectiveOp::kAllReduce, 1 << 20, t,
                                    {.algorithm = p::NcclAlgorithm::kTree, .protocol = p::NcclProtocol::kSimple}),
                       doctest::Contains("skips tree Simple on gfx94x"), std::invalid_argument);
  // LL128 is off on 8 x MI300X (a rome model applies; tuning 5 has no LL128 bandwidth).
  CHECK_THROWS_WITH_AS(p::rccl_plan(p::CollectiveOp::kAllReduce, 1 << 20, t, {.protocol = p::NcclProtocol::kLL128}),
                       doctest::Contains("considers LL128 only"), std::invalid_argument);
  CHECK_THROWS_AS(p::rccl_plan(p::CollectiveOp::kAllToAll, 1 << 20, t), std::invalid_argument);
}

TEST_CASE("rccl: LL128 by request on 4 MI300X ranks (all xGMI, no rome model) with RCCL's 64-byte lines") {
  const p::RcclTopology four = p::rccl_topology_of(system_named("mi300x-8"), 4);
  // Never by itself: tuning.cc enables LL128 by default on gfx90a only.
  CHECK(p::rccl_cost_model(p::CollectiveOp::kAllReduce, four).bandwidth_GBps[kRing][kLL128] == 0.0);
  CHECK(p::rccl_plan(p::CollectiveOp::kAllReduce, 64ULL << 20, four).protocol != p::NcclProtocol::kLL128);
  const p::NcclPlan plan =
      p::rccl_plan(p::CollectiveOp::kAllReduce, 64ULL << 20, four, {.protocol = p::NcclProtocol::kLL128});
  CHECK(plan.protocol == p::NcclProtocol::kLL128);
  // 458,752-byte buffer / 8 steps = 57,344 B; 7 of every 8 uint64 are data.
  CHECK(plan.chunk_bytes == 57344 / 8 * 7);
  CHECK(plan.wire_per_data == doctest::Approx(8.0 / 7.0));
  // tuning_model_0: ring LL128 bus = 6 x 24 x 0.34, times 4 / 6 for all_reduce; 12 + 6 x 2.2 us.
  CHECK(plan.model_time_us == doctest::Approx(12.0 + 6 * 2.2 + 67108864.0 / (1000 * 6 * 24 * 0.34 * 4 / 6)));
}

TEST_CASE("rccl: a GPU RCCL has no rule for, and the fallback off AMD hardware") {
  // MI355X (gfx950) predates this commit's rules: rome_model_79 still matches (tuning 5), at
  // VEGA_XGMI_WIDTH (24 GB/s) and 2 x CHANNEL_LIMIT channels, and tree Simple is not skipped.
  const p::RcclTopology mi355 = p::rccl_topology_of(system_named("mi355x-8"), 8);
  CHECK(mi355.arch == p::RcclArch::kOtherAmd);
  CHECK(mi355.tuning == 5);
  CHECK(mi355.ring_bw_GBps == doctest::Approx(6.0));
  CHECK(mi355.channels == 28);
  CHECK(p::rccl_cost_model(p::CollectiveOp::kAllReduce, mi355).bandwidth_GBps[kTree][kSimple] ==
        doctest::Approx(28 * 6.0 * 0.11 * 0.5));
  // H200 (not AMD): table 0, the system's own link figure (18 x 25 GB/s on the switch), a ring at
  // 48 GB/s doubled to 18 x 24, 18 channels (at most 2 x CHANNEL_LIMIT).
  const p::RcclTopology h200 = p::rccl_topology_of(system_named("h200-8"), 8);
  CHECK(h200.arch == p::RcclArch::kNotAmd);
  CHECK(h200.tuning == 0);
  CHECK(h200.rome_model == -1);
  CHECK(h200.graph_channels == 18);
  CHECK(h200.ring_bw_GBps == doctest::Approx(24.0));
  CHECK(h200.channels == 18);
  const p::NcclPlan plan = p::rccl_plan(p::CollectiveOp::kAllReduce, 256ULL << 20, h200);
  CHECK(plan.channels == 18);
  CHECK(plan.model_time_us > 0.0);
  // One rank: ring Simple, a local copy.
  const p::NcclPlan one = p::rccl_plan(p::CollectiveOp::kAllReduce, 1 << 20, p::rccl_topology_of(system_named("mi300x-1"), 1));
  CHECK(one.algorithm == p::NcclAlgorithm::kRing);
  CHECK(one.protocol == p::NcclProtocol::kSimple);
}

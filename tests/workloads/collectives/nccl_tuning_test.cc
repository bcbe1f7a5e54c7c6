// NCCL's choices as nccl_tuning.h models them, against what NCCL 2.28.9 itself logged on the
// four-H200 NVSwitch machine (validation/data/h200-4/nccl-choices/, NCCL_DEBUG_SUBSYS=TUNING,GRAPH):
// its graphs, its tuning table (latency us / algorithm bandwidth GB/s, printed to one decimal) and
// its per-call choice of algorithm, protocol and channels.
#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/run_config.h"
#include "workloads/patterns/nccl_tuning.h"

namespace p = tessera::workloads::patterns;

namespace {

tessera::models::SystemSpec system_named(const std::string& name) {
  return tessera::test::read_run_config_text("system: " + name + "\nworkload: {kind: phold}\n").system;
}

struct Cell {
  double latency_us;
  double bandwidth_GBps;
};

// One row of NCCL's table: Tree LL, LL128, Simple, then Ring LL, LL128, Simple.
void check_row(const p::NcclCostModel& m, const std::vector<Cell>& row) {
  for (int a = 0; a < p::kNcclAlgorithms; ++a) {
    for (int p = 0; p < p::kNcclProtocols; ++p) {
      const Cell& want = row[static_cast<std::size_t>(a * p::kNcclProtocols + p)];
      CAPTURE(a);
      CAPTURE(p);
      CHECK(m.bandwidth_GBps[a][p] == doctest::Approx(want.bandwidth_GBps).epsilon(0.0005));
      if (want.bandwidth_GBps > 0) CHECK(m.latency_us[a][p] == doctest::Approx(want.latency_us).epsilon(0.005));
    }
  }
}

}  // namespace

TEST_CASE("the topology NCCL finds on NVLink 4 x 18: ring 12 x 30 GB/s, tree 12 x 60 (2 ranks) or 12 x 30, 24 channels") {
  const p::NcclTopology two = p::nccl_topology_of(system_named("h200-2"), 2);
  CHECK(two.generation == p::NcclGeneration::kHopper);
  CHECK(two.nvlink);
  CHECK(two.graph_channels == 12);
  CHECK(two.ring_bw_GBps == doctest::Approx(30.0));
  CHECK(two.tree_bw_GBps == doctest::Approx(60.0));
  CHECK(two.channels == 24);
  const p::NcclTopology four = p::nccl_topology_of(system_named("h200-8"), 4);
  CHECK(four.graph_channels == 12);
  CHECK(four.ring_bw_GBps == doctest::Approx(30.0));
  CHECK(four.tree_bw_GBps == doctest::Approx(30.0));
  CHECK(four.channels == 24);
}

TEST_CASE("the cost model reproduces NCCL's tuning table on two and four H200s") {
  const p::NcclTopology two = p::nccl_topology_of(system_named("h200-2"), 2);
  const p::NcclTopology four = p::nccl_topology_of(system_named("h200-8"), 4);
  const Cell none{0, 0};
  // Two ranks.
  check_row(p::nccl_cost_model(p::CollectiveOp::kBroadcast, two),
            {none, none, none, {7.2, 141.0}, {15.9, 331.2}, {11.8, 360.0}});
  check_row(p::nccl_cost_model(p::CollectiveOp::kReduce, two),
            {none, none, none, {7.2, 141.0}, {15.9, 331.2}, {11.8, 360.0}});
  check_row(p::nccl_cost_model(p::CollectiveOp::kAllGather, two),
            {none, none, none, {7.2, 282.0}, {15.9, 662.4}, {11.8, 720.0}});
  check_row(p::nccl_cost_model(p::CollectiveOp::kReduceScatter, two),
            {none, none, none, {7.2, 282.0}, {15.9, 662.4}, {11.8, 720.0}});
  check_row(p::nccl_cost_model(p::CollectiveOp::kAllReduce, two),
            {{8.0, 61.1}, {16.5, 180.6}, {16.4, 232.2}, {7.8, 141.0}, {17.8, 331.2}, {15.2, 360.0}});
  // Four ranks.
  check_row(p::nccl_cost_model(p::CollectiveOp::kBroadcast, four),
            {none, none, none, {7.2, 141.0}, {15.9, 331.2}, {11.8, 360.0}});
  check_row(p::nccl_cost_model(p::CollectiveOp::kAllGather, four),
            {none, none, none, {8.4, 188.0}, {19.7, 441.6}, {18.6, 480.0}});
  check_row(p::nccl_cost_model(p::CollectiveOp::kAllReduce, four),
            {{10.4, 43.6}, {21.5, 128.8}, {32.4, 165.6}, {10.2, 94.0}, {25.4, 220.8}, {28.8, 240.0}});
}

TEST_CASE("NCCL's choice of algorithm, protocol and channels per call, as it logged them") {
  const p::NcclTopology two = p::nccl_topology_of(system_named("h200-2"), 2);
  const p::NcclTopology four = p::nccl_topology_of(system_named("h200-8"), 4);
  struct Choice {
    const p::NcclTopology* topology;
    p::CollectiveOp op;
    std::uint64_t bytes;
    p::NcclProtocol protocol;
    std::uint32_t channels;
  };
  const auto all_reduce = p::CollectiveOp::kAllReduce;
  const auto all_gather = p::CollectiveOp::kAllGather;
  const std::vector<Choice> logged{
      {&two, all_reduce, 8, p::NcclProtocol::kLL, 1},
      {&two, all_reduce, 32 << 10, p::NcclProtocol::kLL, 4},
      {&two, all_reduce, 1 << 20, p::NcclProtocol::kLL, 24},
      {&two, all_reduce, 8 << 20, p::NcclProtocol::kSimple, 24},
      {&two, all_reduce, 1ULL << 30, p::NcclProtocol::kSimple, 24},
      {&two, all_gather, 32 << 10, p::NcclProtocol::kLL, 4},
      {&two, all_gather, 8 << 20, p::NcclProtocol::kSimple, 24},
      {&four, all_reduce, 32 << 10, p::NcclProtocol::kLL, 2},
      {&four, all_reduce, 8 << 20, p::NcclProtocol::kLL128, 24},
      {&four, all_reduce, 128 << 20, p::NcclProtocol::kSimple, 24},
      {&four, all_gather, 8 << 20, p::NcclProtocol::kSimple, 24},
      {&four, p::CollectiveOp::kBroadcast, 1 << 20, p::NcclProtocol::kLL, 24},
  };
  for (const Choice& k : logged) {
    CAPTURE(k.topology->ranks);
    CAPTURE(p::op_name(k.op));
    CAPTURE(k.bytes);
    const p::NcclPlan plan = p::nccl_plan(k.op, k.bytes, *k.topology);
    CHECK(plan.algorithm == p::NcclAlgorithm::kRing);  // NCCL chose no tree at these sizes
    CHECK(p::nccl_protocol_name(plan.protocol) == p::nccl_protocol_name(k.protocol));
    CHECK(plan.channels == k.channels);
  }
}

TEST_CASE("chunks and FIFOs per protocol, and the overrides") {
  const p::NcclTopology two = p::nccl_topology_of(system_named("h200-2"), 2);
  // Ring Simple all_reduce: chunk = 4 steps of 512 KiB, slices of 2 steps, 4 slices in the FIFO.
  p::NcclPlan p = p::nccl_plan(p::CollectiveOp::kAllReduce, 1ULL << 30, two);
  CHECK(p.chunk_bytes == 2ULL << 20);
  CHECK(p.slice_bytes == 1ULL << 20);
  CHECK(p.fifo_slices == 4);
  CHECK(p.wire_per_data == 1.0);
  // LL: a 64 KiB step of 16-byte lines, half of them flags.
  p = p::nccl_plan(p::CollectiveOp::kAllReduce, 1ULL << 30, two, {.protocol = p::NcclProtocol::kLL});
  CHECK(p.chunk_bytes == 32ULL << 10);
  CHECK(p.fifo_slices == 8);
  CHECK(p.wire_per_data == 2.0);
  // LL128: a 614400-byte step of 128-byte lines, 120 bytes of data each.
  p = p::nccl_plan(p::CollectiveOp::kAllReduce, 1ULL << 30, two, {.protocol = p::NcclProtocol::kLL128});
  CHECK(p.chunk_bytes == 576000);
  // Broadcast runs one step per chunk.
  p = p::nccl_plan(p::CollectiveOp::kBroadcast, 1ULL << 30, two, {.protocol = p::NcclProtocol::kSimple});
  CHECK(p.chunk_bytes == 512ULL << 10);
  CHECK(p.slice_bytes == 512ULL << 10);
  CHECK(p.fifo_slices == 8);
  // The channels can be capped (NCCL_MAX_NCHANNELS).
  CHECK(p::nccl_plan(p::CollectiveOp::kAllReduce, 1ULL << 30, two, {.max_channels = 8}).channels == 8);
  // Forced tree: NCCL's model ranks it, and tree runs all_reduce only.
  CHECK(p::nccl_plan(p::CollectiveOp::kAllReduce, 1ULL << 30, two, {.algorithm = p::NcclAlgorithm::kTree}).algorithm ==
        p::NcclAlgorithm::kTree);
  CHECK_THROWS_AS(p::nccl_plan(p::CollectiveOp::kAllGather, 1 << 20, two, {.algorithm = p::NcclAlgorithm::kTree}),
                  std::invalid_argument);
  // NCCL's own time: latency + bytes / bandwidth (1 GiB ring Simple all_reduce: 15.2 + 1073741824 / 360000 us).
  CHECK(p::nccl_plan(p::CollectiveOp::kAllReduce, 1ULL << 30, two).model_time_us ==
        doctest::Approx(15.2 + 1073741824.0 / 360000.0));
}

TEST_CASE("over PCIe NCCL runs no LL128 and its latencies are PCIe's") {
  tessera::models::SystemSpec pcie = system_named("h200-2");
  pcie.interconnect.topology = "none";
  pcie.interconnect.links_per_gpu = 0;
  const p::NcclTopology t = p::nccl_topology_of(pcie, 2);
  CHECK_FALSE(t.nvlink);
  const p::NcclCostModel m = p::nccl_cost_model(p::CollectiveOp::kAllReduce, t);
  CHECK(m.bandwidth_GBps[1][1] == 0.0);  // ring LL128
  CHECK(m.latency_us[1][2] == doctest::Approx(8.4 + 2 * 5.7));  // ring Simple: base + 2 steps of PCIe's 5.7 us
  CHECK_THROWS_AS(p::nccl_plan(p::CollectiveOp::kAllReduce, 1 << 20, t, {.protocol = p::NcclProtocol::kLL128}),
                  std::invalid_argument);
}

TEST_CASE("across nodes: the search's outcome for one 400 Gb/s NIC per GPU and the ring's network terms") {
  // Two nodes of eight H200s: 45 GB/s is the fastest inter-node speed at which the eight NICs
  // (50 GB/s each: one channel) and a GPU's NVLinks (370.8 GB/s: eight) both carry eight channels
  // (48 GB/s: seven, 336 GB/s; 24 GB/s: fifteen, 360 GB/s, slower on the tie); no duplication
  // (Hopper, under 50 GB/s, more than four channels); 16 channels per call.
  const tessera::models::SystemSpec cluster = tessera::test::read_run_config_text(
      "system: {base: h200-8x16, num_gpus: 16, scale_out: {nodes: 2}}\nworkload: {kind: phold}\n").system;
  const p::NcclTopology t = p::nccl_topology_of(cluster, 16);
  CHECK(t.nodes == 2);
  CHECK(t.graph_channels == 8);
  CHECK(t.ring_bw_GBps == doctest::Approx(45.0));
  CHECK(t.ring_bw_inter_GBps == doctest::Approx(45.0));
  CHECK(t.channels == 16);
  CHECK(t.net_overhead_us == doctest::Approx(1.0));
  // Within one node of the same system: the one-node search (ring 12 x 30 GB/s).
  CHECK(p::nccl_topology_of(cluster, 8).nodes == 1);
  CHECK(p::nccl_topology_of(cluster, 8).ring_bw_GBps == doctest::Approx(30.0));
  CHECK_THROWS_AS(p::nccl_topology_of(cluster, 12), std::invalid_argument);  // not whole nodes

  // ncclTopoTuneModel, all_reduce on 16 ranks over 2 nodes: 2(n-1) = 30 steps, 2(nodes-1) = 2
  // of them across the network at NET's ring latency, the others at max(NVLink's, the proxy's
  // overhead: 1 us, 3 us with Simple); bandwidth 8 x 45 GB/s (two nodes: the intra-node figure)
  // x 16 / 30; LL capped at 39 GB/s (Intel, two nodes); no tree.
  const p::NcclCostModel m = p::nccl_cost_model(p::CollectiveOp::kAllReduce, t);
  CHECK(m.latency_us[1][2] == doctest::Approx(8.4 + 28 * 3.4 + 2 * 14.0));  // ring Simple
  CHECK(m.latency_us[1][0] == doctest::Approx(6.6 + 28 * 1.0 + 2 * 2.7));   // ring LL
  CHECK(m.bandwidth_GBps[1][2] == doctest::Approx(360.0 * 16 / 30));
  CHECK(m.bandwidth_GBps[1][0] == doctest::Approx(39.0 * 16 / 30));
  CHECK(m.bandwidth_GBps[0][2] == 0.0);
  p::NcclOverrides tree;
  tree.algorithm = p::NcclAlgorithm::kTree;
  CHECK_THROWS_WITH_AS(p::nccl_plan(p::CollectiveOp::kAllReduce, 1 << 20, t, tree),
                       doctest::Contains("the tree across nodes is not modelled"), std::invalid_argument);
}

// Collectives between nodes: Tessera's ring all-reduce across nodes takes what the alpha-beta
// model of a ring gives on an uncontended network (nccl-tests' PERFORMANCE.md: 2(n-1) steps of
// alpha, 2(n-1)/n of the buffer through the slowest hop at beta), an oversubscribed spine slows it
// by its ratio; NCCL's rings spread over every NIC, and RCCL, modelled within one node, refuses
// ranks of several nodes.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "tests/support/run_config.h"
#include "workloads/workload_kinds.h"

namespace wl = tessera::workloads;

namespace {

wl::CollectiveFigures run(const std::string& system, const std::string& workload) {
  const auto parts = tessera::test::read_run_config_text("system: " + system + "\nworkload: " + workload + "\n");
  const wl::WorkloadKind* kind = wl::find_workload_kind("collective");
  REQUIRE(kind != nullptr);
  const wl::Workload w = kind->read(parts.workload, parts.system);
  const wl::WorkloadResult result = w.run(parts.system, wl::RunContext{}).result;
  REQUIRE(result.complete);
  REQUIRE(result.collective.has_value());
  return *result.collective;
}

// `nodes` nodes of `per_node` H200s; 50 GB/s NICs, 350 ns each, 300 ns switches.
std::string cluster(int nodes, int per_node, const std::string& network = "{switch_latency: 300 ns}") {
  return "{base: h200-8, num_gpus: " + std::to_string(nodes * per_node) +
         (per_node == 1 ? ", interconnect: {topology: none}" : "") + ", scale_out: {nodes: " + std::to_string(nodes) +
         ", nic: {bandwidth: 50 GB/s, latency: 350 ns, pcie_bandwidth: 63 GB/s}, network: " + network + "}}";
}

// The ring's alpha-beta time (us): 2(n-1) steps of `alpha_us`, 2(n-1)/n x size at `beta_GBps`.
double ring_all_reduce_us(int ranks, double size_bytes, double alpha_us, double beta_GBps) {
  return 2.0 * (ranks - 1) * alpha_us + 2.0 * (ranks - 1) / ranks * size_bytes / (beta_GBps * 1e3);
}

}  // namespace

TEST_CASE("a ring all-reduce across four nodes takes the alpha-beta estimate of its NIC hops") {
  // One GPU per node: every ring step crosses the network through two NICs and one leaf (one
  // rail): alpha 1 us, beta the NIC's 50 GB/s. The launch adds a constant microseconds.
  for (const char* size : {"64 MiB", "256 MiB"}) {
    CAPTURE(size);
    const wl::CollectiveFigures f = run(cluster(4, 1), std::string("{kind: collective, op: all_reduce, size: ") + size + "}");
    const double estimate = ring_all_reduce_us(4, static_cast<double>(f.size_bytes), 1.0, 50.0);
    CHECK(f.time_us == doctest::Approx(estimate).epsilon(0.05));
    CHECK(f.busbw_GBps <= 50.0 * (1 + 1e-9));
  }
}

TEST_CASE("two nodes of four H200s: NVLink inside, the ring's two node crossings at the NIC's rate") {
  // The reduce-scatter ring runs in rank order on a switch (reduce_scatter.h): ranks 3 -> 4 and
  // 7 -> 0 cross (rail 3 to rail 0: two NICs, two leaves and the spine, alpha 1.6 us), each
  // through its own NIC; the NVLink hops are 9x faster, so the NIC sets beta: (n-1) steps of
  // alpha, (n-1)/n of the buffer at beta.
  const wl::CollectiveFigures f = run(cluster(2, 4), "{kind: collective, op: reduce_scatter, size: 256 MiB}");
  const double estimate = 7 * 1.6 + 7.0 / 8 * static_cast<double>(f.size_bytes) / (50.0 * 1e3);
  CHECK(f.time_us == doctest::Approx(estimate).epsilon(0.05));
}

TEST_CASE("an oversubscribed spine slows the crossing by its ratio") {
  // A leaf per node (fat tree, one node each): two NICs of 50 GB/s below a leaf, oversubscribed
  // 4:1, leave 25 GB/s up; the rank-order ring's crossings (1 -> 2, 3 -> 0) each have a leaf's
  // uplink to themselves: they run at 25 GB/s instead of the NIC's 50.
  const std::string workload = "{kind: collective, op: reduce_scatter, size: 256 MiB}";
  const wl::CollectiveFigures open =
      run(cluster(2, 2, "{topology: fat_tree, nodes_per_leaf: 1, switch_latency: 300 ns}"), workload);
  const wl::CollectiveFigures narrow =
      run(cluster(2, 2, "{topology: fat_tree, nodes_per_leaf: 1, oversubscription: 4, switch_latency: 300 ns}"),
          workload);
  // (n-1) steps of alpha (two NICs, two leaves, the spine: 1.6 us), (n-1)/n of the buffer at beta.
  const double bytes = static_cast<double>(open.size_bytes);
  CHECK(open.time_us == doctest::Approx(3 * 1.6 + 0.75 * bytes / 50e3).epsilon(0.05));
  CHECK(narrow.time_us == doctest::Approx(3 * 1.6 + 0.75 * bytes / 25e3).epsilon(0.05));
  CHECK(narrow.time_us > 1.8 * open.time_us);
}

TEST_CASE("NCCL's rings cross the nodes through every NIC, one class of channels each") {
  // Two nodes of four: NCCL's channels in four classes, class k entering each node at GPU k and
  // leaving it from GPU k-1 (nccl_kernels.h): the four NICs of a node carry the crossings
  // together, more than two NICs' 100 GB/s and at most the four's 200 GB/s (a ring in rank order
  // would cross through one NIC: at most 50).
  const wl::CollectiveFigures f = run(cluster(2, 4), "{kind: collective, op: all_reduce, size: 256 MiB, library: nccl}");
  CHECK(f.library == "nccl");
  CHECK(f.algorithm == "ring");
  CHECK(f.busbw_GBps > 100.0);
  CHECK(f.busbw_GBps <= 200.0 * (1 + 1e-9));
}

TEST_CASE("RCCL, modelled within one node, refuses ranks that span nodes, NCCL ranks that split a node") {
  const wl::WorkloadKind* kind = wl::find_workload_kind("collective");
  REQUIRE(kind != nullptr);
  const auto rccl = tessera::test::read_run_config_text(
      "system: " + cluster(2, 4) + "\nworkload: {kind: collective, op: all_reduce, size: 1 MiB, library: rccl}\n");
  CHECK_THROWS_WITH_AS(kind->read(rccl.workload, rccl.system),
                       doctest::Contains("rccl is modelled within one node; 8 ranks span 2 nodes of 4 GPUs"),
                       std::exception);
  const auto split = tessera::test::read_run_config_text(
      "system: " + cluster(2, 4) +
      "\nworkload: {kind: collective, op: all_reduce, size: 1 MiB, library: nccl, ranks: 6}\n");
  CHECK_THROWS_WITH_AS(kind->read(split.workload, split.system),
                       doctest::Contains("NCCL's ranks across nodes fill whole nodes: 6 ranks on nodes of 4 GPUs"),
                       std::exception);
  // Within one node of the same system both run.
  const auto one_node = tessera::test::read_run_config_text(
      "system: " + cluster(2, 4) + "\nworkload: {kind: collective, op: all_reduce, size: 1 MiB, library: rccl, ranks: 4}\n");
  CHECK(kind->read(one_node.workload, one_node.system).run(one_node.system, wl::RunContext{}).result.complete);
}

TEST_CASE("a bulk-synchronous All-Gather + GEMM across two nodes runs NCCL's all-gather through the NICs") {
  // Two nodes of two H200s, A (1024 x 1024 fp16) gathered in shards of 512 KiB. NCCL's ring: each
  // of its two node crossings carries three of the four shards (every shard travels three hops),
  // counted once on the sending NIC's port and once on the receiving one: 2 x 2 x 3 x 512 KiB of
  // data, at most twice that on the wire (LL's flags).
  const auto parts = tessera::test::read_run_config_text(
      "system: " + cluster(2, 2) +
      "\nworkload: {kind: ag_gemm, m: 1024, n: 1024, k: 1024, variant: bsp, collective: nccl}\n");
  const wl::WorkloadKind* kind = wl::find_workload_kind("ag_gemm");
  REQUIRE(kind != nullptr);
  const wl::WorkloadResult r = kind->read(parts.workload, parts.system).run(parts.system, wl::RunContext{}).result;
  REQUIRE(r.complete);
  REQUIRE(r.traffic.has_value());
  const double data = 2.0 * 2 * 3 * (512 << 10);
  const auto nic = r.traffic->link_class_bytes.find("nic");
  REQUIRE(nic != r.traffic->link_class_bytes.end());
  CHECK(static_cast<double>(nic->second) >= data);
  CHECK(static_cast<double>(nic->second) <= 2 * data);
}

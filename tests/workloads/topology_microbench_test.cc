// Rings, tori and link lists run the microbenchmarks at the bandwidths a hand computation of
// their links gives, and a link list that spells out a shorthand's links predicts what the
// shorthand predicts.
#include <doctest/doctest.h>

#include <string>

#include "tests/support/run_config.h"
#include "workloads/microbench/read_microbench.h"
#include "workloads/microbench/run_microbench.h"

namespace mb = tessera::workloads::microbench;

namespace {

mb::MicrobenchResult run(const std::string& system_yaml, const std::string& workload) {
  const auto parts = tessera::test::read_run_config_text("system: " + system_yaml + "\nworkload: {kind: microbench, " +
                                                         workload + "}\n");
  return mb::run_microbench(parts.system, mb::read_microbench(parts.workload, parts.system));
}

// h200-4's link: 26.562 GB/s per direction, 18 per GPU: a ring of them gives each neighbour 9.
const std::string kH200Ring = "{base: h200-4, interconnect: {topology: ring}}";
// mi300x-8's link: 48.7 GB/s per direction; a ring of 4 of them gives each neighbour 3 of the 7.
const std::string kRing4 = "{base: mi300x-8, num_gpus: 4, interconnect: {topology: ring}}";
// 2 x 4 torus of 8 links per GPU: the two row neighbours are one GPU (4 links), columns 2 each.
const std::string kTorus = "{base: mi300x-8, interconnect: {topology: torus_2d, links_per_gpu: 8, torus_dims: [2, 4]}}";
constexpr double kLinkGBps = 48.7;

}  // namespace

TEST_CASE("a ring of four H200s: a neighbour and the GPU opposite both get one bundle of nine links") {
  const double bundle = 9 * 26.562;
  for (const std::string peer : {"1", "3", "2"}) {
    CAPTURE(peer);
    const auto r = run(kH200Ring, "op: remote_store, bytes: 64 MiB, peer: " + peer);
    REQUIRE(r.bandwidth_GBps);
    CHECK(*r.bandwidth_GBps <= bundle * (1 + 1e-9));
    CHECK(*r.bandwidth_GBps >= 0.9 * bundle);
  }
  // Two hops cost one more link latency each way, none of the bandwidth.
  const auto near = run(kH200Ring, "op: atomic_add, peer: 1, iterations: 10");
  const auto far = run(kH200Ring, "op: atomic_add, peer: 2, iterations: 10");
  REQUIRE(near.latency_ns);
  REQUIRE(far.latency_ns);
  CHECK(*far.latency_ns == doctest::Approx(*near.latency_ns + 2 * 100.897).epsilon(0.01));
}

TEST_CASE("a ring of four MI300Xs: the GPU opposite is reached both ways, by the dies nearest each way") {
  const double bundle = 3 * kLinkGBps;
  const auto neighbour = run(kRing4, "op: remote_store, bytes: 64 MiB, peer: 1");
  REQUIRE(neighbour.bandwidth_GBps);
  CHECK(*neighbour.bandwidth_GBps <= bundle * (1 + 1e-9));
  CHECK(*neighbour.bandwidth_GBps >= 0.9 * bundle);
  // The links to GPU 1 leave from IOD 1, those to GPU 3 from IOD 3: the two dies of IOD 3 go
  // through GPU 3, the six others (IODs 0 and 2 tie, and take the lower-numbered way) through
  // GPU 1. Every die streams alike, so the GPU 1 way carries 6/8 of the bytes at one bundle's rate.
  const auto opposite = run(kRing4, "op: remote_store, bytes: 64 MiB, peer: 2");
  REQUIRE(opposite.bandwidth_GBps);
  CHECK(*opposite.bandwidth_GBps <= bundle * 8 / 6 * (1 + 1e-9));
  CHECK(*opposite.bandwidth_GBps >= 0.9 * bundle * 8 / 6);
}

TEST_CASE("a 2 x 4 torus: the row neighbour's bundle is twice a column neighbour's") {
  const auto row = run(kTorus, "op: remote_store, bytes: 64 MiB, peer: 4");
  const auto column = run(kTorus, "op: remote_store, bytes: 64 MiB, peer: 1");
  REQUIRE(row.bandwidth_GBps);
  REQUIRE(column.bandwidth_GBps);
  CHECK(*row.bandwidth_GBps <= 4 * kLinkGBps * (1 + 1e-9));
  CHECK(*row.bandwidth_GBps >= 0.9 * 4 * kLinkGBps);
  CHECK(*column.bandwidth_GBps <= 2 * kLinkGBps * (1 + 1e-9));
  CHECK(*column.bandwidth_GBps >= 0.9 * 2 * kLinkGBps);
  // all_store to the seven others: every byte leaves over the GPU's 8 links, so it cannot beat them.
  const auto all = run(kTorus, "op: all_store, bytes: 16 MiB");
  REQUIRE(all.bandwidth_GBps);
  CHECK(*all.bandwidth_GBps <= 8 * kLinkGBps * (1 + 1e-9));
}

TEST_CASE("a link list that spells out a shorthand's links predicts the same, to the picosecond") {
  // h200-2's direct bundle of 18 NVLinks, and h200-4's switch with a port of 18 per GPU.
  const std::string direct = "{base: h200-2, interconnect: {topology: links, links: [{between: [gpu0, gpu1], count: 18}]}}";
  const std::string switched =
      "{base: h200-4, interconnect: {topology: links, switches: [{name: nvswitch}], links: ["
      "{between: [gpu0, nvswitch], count: 18}, {between: [gpu1, nvswitch], count: 18}, "
      "{between: [gpu2, nvswitch], count: 18}, {between: [gpu3, nvswitch], count: 18}]}}";
  for (const std::string op : {"remote_store", "remote_load", "p2p_copy", "all_store"}) {
    CAPTURE(op);
    const std::string w = "op: " + op + ", bytes: 16 MiB";
    CHECK(run(direct, w).makespan_ps == run("h200-2", w).makespan_ps);
    CHECK(run(switched, w).makespan_ps == run("h200-4", w).makespan_ps);
  }
}

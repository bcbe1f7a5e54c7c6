// nccl-tests' figures of a collective (workloads/collectives/collective_figures.h) against values
// worked out by hand from the definitions of nccl-tests' doc/PERFORMANCE.md.
#include <doctest/doctest.h>

#include "workloads/collectives/collective_figures.h"

namespace c = tessera::workloads::collectives;

TEST_CASE("the bus factor: 2(n-1)/n for all_reduce, (n-1)/n for all_gather and reduce_scatter") {
  CHECK(c::bus_bandwidth_factor(c::CollectiveOp::kAllReduce, 8) == doctest::Approx(1.75));
  CHECK(c::bus_bandwidth_factor(c::CollectiveOp::kAllGather, 8) == doctest::Approx(0.875));
  CHECK(c::bus_bandwidth_factor(c::CollectiveOp::kReduceScatter, 8) == doctest::Approx(0.875));
  CHECK(c::bus_bandwidth_factor(c::CollectiveOp::kAllReduce, 2) == doctest::Approx(1.0));
  CHECK(c::bus_bandwidth_factor(c::CollectiveOp::kAllGather, 2) == doctest::Approx(0.5));
  CHECK(c::bus_bandwidth_factor(c::CollectiveOp::kAllReduce, 1) == 0.0);  // nothing crosses a link
}

TEST_CASE("algbw is size over time in decimal GB/s") {
  // 1 GB in 1 s is 1 GB/s: 10^9 B in 10^6 us.
  CHECK(c::algorithm_bandwidth_GBps(1'000'000'000, 1e6) == doctest::Approx(1.0));
  // 256 MiB in 1000 us: 268435456 B / 1e-3 s = 268.435456 GB/s.
  CHECK(c::algorithm_bandwidth_GBps(256ULL << 20, 1000.0) == doctest::Approx(268.435456));
  CHECK(c::algorithm_bandwidth_GBps(1024, 0.0) == 0.0);
}

TEST_CASE("a run's figures: the time is the makespan per iteration, busbw algbw times the factor") {
  c::CollectiveParams p;
  p.op = c::CollectiveOp::kAllReduce;
  p.size_bytes = 256ULL << 20;
  p.dtype = tessera::models::compute::Dtype::kBf16;
  p.iterations = 4;
  // 4 ms for 4 iterations: 1000 us each.
  const tessera::workloads::CollectiveFigures f = c::figures_of(p, c::CollectivePlan{}, 8, 4'000'000'000);
  CHECK(f.library == "tessera");
  CHECK(f.algorithm == "ring");
  CHECK(f.protocol.empty());
  CHECK(f.op == "all_reduce");
  CHECK(f.dtype == "bf16");
  CHECK(f.size_bytes == 256ULL << 20);
  CHECK(f.count == (128ULL << 20));  // 2-byte elements
  CHECK(f.ranks == 8);
  CHECK(f.iterations == 4);
  CHECK(f.time_us == doctest::Approx(1000.0));
  CHECK(f.algbw_GBps == doctest::Approx(268.435456));
  CHECK(f.busbw_GBps == doctest::Approx(268.435456 * 1.75));

  p.op = c::CollectiveOp::kAllGather;
  p.dtype = tessera::models::compute::Dtype::kFp32;
  p.iterations = 1;
  const tessera::workloads::CollectiveFigures g = c::figures_of(p, c::CollectivePlan{}, 2, 1'000'000'000);
  CHECK(g.count == (64ULL << 20));
  CHECK(g.busbw_GBps == doctest::Approx(268.435456 * 0.5));

  // Broadcast and reduce: busbw = algbw (nccl-tests); all_to_all (n - 1) / n.
  CHECK(c::bus_bandwidth_factor(c::CollectiveOp::kBroadcast, 8) == doctest::Approx(1.0));
  CHECK(c::bus_bandwidth_factor(c::CollectiveOp::kReduce, 4) == doctest::Approx(1.0));
  CHECK(c::bus_bandwidth_factor(c::CollectiveOp::kAllToAll, 4) == doctest::Approx(0.75));
  CHECK(c::bus_bandwidth_factor(c::CollectiveOp::kBroadcast, 1) == 0.0);
}

// ag_gemm and gemm replayed on the hardware models: no variant beats an idealised machine
// (compute at peak, links and HBM at peak, nothing else in the way), and the bulk-synchronous
// variant pays each of its serial kernel launches.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "tests/support/test_systems.h"
#include "workloads/patterns/ag_gemm.h"
#include "workloads/patterns/gemm.h"
#include "workloads/replay/replay.h"

namespace patterns = tessera::workloads::patterns;
using tessera::models::SystemSpec;
using tessera::workloads::replay::replay_trace;

namespace {

// Small enough to replay in a fraction of a second: 2 m-tiles x 8 n-tiles x 16 k-steps.
patterns::AgGemmParams small(patterns::AgGemmVariant variant, std::uint32_t ranks) {
  patterns::AgGemmParams p;
  p.gemm.m = 512;
  p.gemm.n = 512;
  p.gemm.k = 1024 * ranks;
  p.ranks = ranks;
  p.workgroups = 16;
  p.variant = variant;
  return p;
}

double makespan_ns(const patterns::AgGemmParams& p, const SystemSpec& system) {
  return static_cast<double>(replay_trace(patterns::make_ag_gemm(p, system), system).makespan_ps) / 1e3;
}

// The idealised bound of one rank: its FLOPs at peak, the A columns it must receive from the
// others over all its links at once, and the bytes it must read at least once from HBM.
double ideal_ns(const patterns::AgGemmParams& p, const SystemSpec& system) {
  const double elem = 2.0;  // fp16
  const patterns::GemmShapeParams& g = p.gemm;
  const double flops = 2.0 * static_cast<double>(g.m * g.n * g.k);
  const double compute_ns = flops / tessera::models::peak_fp16_flops_per_s(system.gpu) * 1e9;
  const double remote_bytes = elem * static_cast<double>(g.m * g.k) * (p.ranks - 1) / p.ranks;
  const double links = system.interconnect.link_bandwidth_bytes_per_s * system.interconnect.links_per_gpu;
  const double link_ns = p.ranks > 1 ? remote_bytes / links * 1e9 : 0.0;
  const double hbm_bytes = elem * static_cast<double>(g.m * g.k / p.ranks + g.k * g.n + g.m * g.n);
  const double hbm_ns = hbm_bytes / system.gpu.memory.hbm_bandwidth_bytes_per_s * 1e9;
  return std::max({compute_ns, link_ns, hbm_ns});
}

}  // namespace

TEST_CASE("no ag_gemm variant beats the idealised machine, on 1, 2, 4 and 8 ranks") {
  for (std::uint32_t ranks : {1u, 2u, 4u, 8u}) {
    const SystemSpec system = tessera::test::mi300x(ranks);
    for (auto variant : {patterns::AgGemmVariant::kBsp, patterns::AgGemmVariant::kPull, patterns::AgGemmVariant::kPush}) {
      const auto p = small(variant, ranks);
      CAPTURE(ranks);
      CAPTURE(static_cast<int>(variant));
      const double t = makespan_ns(p, system);
      const double bound = ideal_ns(p, system);
      CHECK(t >= bound);
      CHECK(t < 1e3 * bound);  // and it does finish in a sane time: nothing serialised absurdly
    }
  }
}

TEST_CASE("bsp pays its three serial launches, push pays two, pull one") {
  SystemSpec system = tessera::test::mi300x(2);
  const std::int64_t launch_ps = 20'000'000;  // 20 us: far above anything else in these runs
  const auto with_launch = [&](patterns::AgGemmVariant v, std::int64_t latency_ps) {
    SystemSpec s = system;
    s.gpu.dispatch.kernel_launch_latency_ps = latency_ps;
    return makespan_ns(small(v, 2), s);
  };
  const double l_ns = static_cast<double>(launch_ps) / 1e3;
  // all_gather, concat, gemm on one stream; push_shards then gemm; one gemm.
  for (auto [variant, serial_launches] : {std::pair{patterns::AgGemmVariant::kBsp, 3}, std::pair{patterns::AgGemmVariant::kPush, 2},
                                          std::pair{patterns::AgGemmVariant::kPull, 1}}) {
    const int serial = serial_launches;  // CAPTURE takes a reference, which clang 14 cannot take to a structured binding
    CAPTURE(serial);
    const double delta = with_launch(variant, launch_ps) - with_launch(variant, 0);
    // Each serial launch adds its latency; overlap with the other rank's work can hide at most
    // a little of it (the ranks start together after the host barrier).
    CHECK(delta >= serial * l_ns * 0.95);
    CHECK(delta <= serial * l_ns * 1.05 + 1e3);
  }
}

TEST_CASE("a one-GPU gemm takes at least its FLOPs at peak and its compulsory HBM bytes") {
  const SystemSpec system = tessera::test::mi300x(1);
  patterns::GemmParams p;
  p.gemm.m = 1024;
  p.gemm.n = 1024;
  p.gemm.k = 1024;
  p.workgroups = 16;
  const auto r = replay_trace(patterns::make_gemm(p, system), system);
  const double flops = 2.0 * 1024 * 1024 * 1024;
  const double t_ns = static_cast<double>(r.makespan_ps) / 1e3;
  CHECK(t_ns >= flops / tessera::models::peak_fp16_flops_per_s(system.gpu) * 1e9);
  CHECK(t_ns >= 3.0 * 2 * 1024 * 1024 / system.gpu.memory.hbm_bandwidth_bytes_per_s * 1e9);
  // 16 workgroups of 64 tiles each: one CU per workgroup, so at most 16 CUs' worth of peak.
  const double cu_peak = tessera::models::peak_fp16_flops_per_s(system.gpu) /
                         (system.gpu.compute.num_dies * system.gpu.compute.compute_units_per_die);
  CHECK(t_ns >= flops / (16 * cu_peak) * 1e9);
}

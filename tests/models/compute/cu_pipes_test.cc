// The structural compute model's per-op bound (models/compute/cu_pipes.h): an op takes as long
// as the busiest of its CU's pipes needs, each pipe's cycles computed by hand.
#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

#include "models/compute/cu_pipes.h"

using namespace tessera::models;
using namespace tessera::models::compute;

namespace {

// An SM with round figures: 4096 fp16 FLOP/clk (warp-level instructions at the full rate), 1.83 GHz, 128
// shared-memory bytes, 16 transcendental and 128 fp32 lane-operations per clock, no latencies.
ComputeSpec hopper_sm() {
  ComputeSpec spec;
  spec.clock_hz = 1.83e9;
  spec.matrix_flops_per_clock_per_cu = {4096, 4096, 8192, 256};
  spec.pipes.lds_bytes_per_clock = 128;
  spec.pipes.sfu_ops_per_clock = 16;
  spec.pipes.vector_ops_per_clock = 128;
  return spec;
}

}  // namespace

TEST_CASE("each pipe can be the busiest: its cycles are its demand over its rate") {
  const ComputeSpec spec = hopper_sm();
  const double flops = 4096.0 * 100;  // 100 matrix cycles
  SUBCASE("matrix") {
    const PipeCycles c = pipe_cycles(flops, Dtype::kFp16, {128.0 * 50, 16.0 * 50, 128.0 * 50, 0}, spec);
    CHECK(c.matrix == 100.0);
    CHECK(c.lds == 50.0);
    CHECK(c.sfu == 50.0);
    CHECK(c.vector == 50.0);
    CHECK(c.busiest() == 100.0);
  }
  SUBCASE("shared memory") { CHECK(pipe_cycles(flops, Dtype::kFp16, {128.0 * 300, 0, 0, 0}, spec).busiest() == 300.0); }
  SUBCASE("transcendentals") { CHECK(pipe_cycles(flops, Dtype::kFp16, {0, 16.0 * 250, 0, 0}, spec).busiest() == 250.0); }
  SUBCASE("vector") { CHECK(pipe_cycles(flops, Dtype::kFp16, {0, 0, 128.0 * 120, 0}, spec).busiest() == 120.0); }
  SUBCASE("fp8 runs at its own matrix rate") { CHECK(pipe_cycles(flops, Dtype::kFp8, {}, spec).matrix == 50.0); }
}

TEST_CASE("a GEMM K-step of the suite's 128 x 128 x 32 tile is shared-memory bound at half the matrix rate") {
  // 2 x 128 x 128 x 32 = 1,048,576 FLOP = 256 matrix cycles; 64 KiB through shared memory (16 KiB staged, 48 KiB
  // read back as fragments by 2 x 4 waves) = 512 cycles: 512 / 1.83 GHz = 279.78... ns.
  const ComputeSpec spec = hopper_sm();
  const double ps = pipe_bound_exact_ps(1048576.0, Dtype::kFp16, {65536, 0, 0, 0}, spec, 1);
  CHECK(ps == doctest::Approx(512.0 / 1.83e9 * 1e12));
  CHECK(ps / compute_exact_ps(1048576.0, Dtype::kFp16, spec) == doctest::Approx(2.0));
}

TEST_CASE("the matrix pipe runs at warp_matrix_fraction, not matrix_efficiency, and a pipe without a rate is free") {
  ComputeSpec spec = hopper_sm();
  spec.matrix_efficiency.fp16 = 0.5;  // the fallback of ops without demands: not used here
  spec.pipes.warp_matrix_fraction = 0.5;
  CHECK(pipe_cycles(4096.0, Dtype::kFp16, {}, spec).matrix == 2.0);
  spec.pipes.lds_bytes_per_clock = 0;
  CHECK(pipe_cycles(4096.0, Dtype::kFp16, {1e9, 0, 0, 0}, spec).busiest() == 2.0);
  CHECK(has_pipes(spec));
  spec.pipes = {};
  CHECK_FALSE(has_pipes(spec));
  spec.pipes.barrier_latency_clocks = 1;  // a latency alone is a pipe figure too
  CHECK(has_pipes(spec));
}

TEST_CASE("phases expose lds + matrix + barrier latency once per workgroup, shared by the resident workgroups") {
  // The suite's 128 x 128 x 32 GEMM step on the H200 figures measured by sm_pipes (docs/validation.md): matrix
  // 1,048,576 / 2730 = 384.1 cycles, shared memory 65,536 / 125.4 = 522.6 cycles (the busiest), one phase of
  // 29.02 + 24.39 + 28.64 = 82.05 cycles.
  ComputeSpec spec = hopper_sm();
  spec.clock_hz = 1e12;  // 1 cycle = 1 ps
  spec.pipes.warp_matrix_fraction = 2730.0 / 4096;
  spec.pipes.lds_bytes_per_clock = 125.4;
  spec.pipes.lds_latency_clocks = 29.02;
  spec.pipes.matrix_latency_clocks = 24.39;
  spec.pipes.barrier_latency_clocks = 28.64;
  const PipeDemand step{65536, 0, 0, 1};
  const double p = 65536 / 125.4;
  CHECK(pipe_cycles(1048576.0, Dtype::kFp16, step, spec).matrix == doctest::Approx(384.0938).epsilon(1e-6));
  CHECK(pipe_bound_exact_ps(1048576.0, Dtype::kFp16, step, spec, 1) == doctest::Approx(p + 82.05));
  // Two resident: each asks for P + L / 2 of the CU; sharing it, each step takes 2 P + L.
  CHECK(pipe_bound_exact_ps(1048576.0, Dtype::kFp16, step, spec, 2) == doctest::Approx(p + 82.05 / 2));
  CHECK(pipe_bound_exact_ps(1048576.0, Dtype::kFp16, step, spec, 0) == doctest::Approx(p + 82.05));  // 0 counts as 1
}

TEST_CASE("an op with no matrix work takes its busiest pipe's time, and bad demands are refused") {
  const ComputeSpec spec = hopper_sm();
  CHECK(pipe_cycles(0, Dtype::kFp32, {0, 16.0 * 10, 0, 0}, spec).busiest() == 10.0);  // any dtype would do
  CHECK_THROWS_AS(pipe_cycles(-1, Dtype::kFp16, {}, spec), std::invalid_argument);
  CHECK_THROWS_AS(pipe_cycles(1, Dtype::kFp16, {-1, 0, 0, 0}, spec), std::invalid_argument);
  CHECK_THROWS_AS(pipe_cycles(1, Dtype::kFp16, {0, 0, 0, -1}, spec), std::invalid_argument);
  ComputeSpec no_fp32 = spec;
  no_fp32.matrix_flops_per_clock_per_cu.fp32 = 0;
  CHECK_THROWS_AS(pipe_cycles(1, Dtype::kFp32, {}, no_fp32), std::invalid_argument);
  CHECK(pipe_cycles(0, Dtype::kFp32, {128, 0, 0, 0}, no_fp32).busiest() == 1.0);  // no matrix work: no matrix rate needed
}

TEST_CASE("with the SM figures sm_pipes measured, the model predicts the suite's measured inner loops within 8%") {
  // The GEMM tile loop on shared-memory operands (matrix_rate: fragments read from shared memory, 16 x 16 x 16 warp
  // matrix instructions, one barrier per 32-deep step), measured on the H200 at 1, 2 (and 3) workgroups per SM:
  // configs/systems/h200-1-calibrated.yaml, gpu.compute.kernel_efficiency (gemm: 128 x 128 tiles of 2 x 4 waves;
  // gemm_all_scatter: 128 x 64 tiles of 2 x 2 waves). Fragment bytes per step: 32 x (128 x 4 + 128 x 2) x 2 = 48 KiB
  // and 32 x (128 x 2 + 64 x 2) x 2 = 24 KiB. Nothing here is fitted: the figures are the SM's
  // (validation/data/h200-1-sm-pipes/), the measured efficiencies only checked.
  ComputeSpec spec = hopper_sm();
  spec.pipes.warp_matrix_fraction = 2730.24 / 4096;
  spec.pipes.lds_bytes_per_clock = 125.4;
  spec.pipes.lds_latency_clocks = 29.02;
  spec.pipes.matrix_latency_clocks = 24.39;
  spec.pipes.barrier_latency_clocks = 28.64;
  struct Loop {
    double flops;
    double lds_bytes;
    std::vector<double> measured;  // efficiency at 1, 2, ... workgroups per SM
  };
  const Loop loops[] = {{2.0 * 128 * 128 * 32, 49152, {0.5045, 0.5857}}, {2.0 * 128 * 64 * 32, 24576, {0.449, 0.508, 0.5388}}};
  for (const Loop& loop : loops) {
    for (std::size_t i = 0; i < loop.measured.size(); ++i) {
      const auto n = static_cast<std::uint32_t>(i + 1);
      // Each of the n workgroups asks for P + L / n cycles of the CU: its throughput is flops per share.
      const double share_cycles = pipe_bound_exact_ps(loop.flops, Dtype::kFp16, {loop.lds_bytes, 0, 0, 1}, spec, n) *
                                  (spec.clock_hz / 1e12);
      const double efficiency = loop.flops / (share_cycles * 4096);
      CAPTURE(loop.flops);
      CAPTURE(n);
      CHECK(efficiency == doctest::Approx(loop.measured[i]).epsilon(0.08));
    }
  }
}

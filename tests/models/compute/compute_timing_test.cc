#include <doctest/doctest.h>

#include <stdexcept>

#include "models/compute/compute_timing.h"

using namespace tessera::models;
using namespace tessera::models::compute;

TEST_CASE("a 256x64x64 fp16 tile on one MI300X CU takes 2*256*64*64 / (2048 * 2.1 GHz), rounded up") {
  const ComputeSpec spec;  // MI300X defaults: 2048 FLOP/clk/CU fp16, 2.1 GHz, efficiency 1
  const double flops = 2.0 * 256 * 64 * 64;  // 2,097,152
  // Exact: 2097152 / (2048 * 2.1e9) s = 20971520000 / 43008 ps = 487619.05.. ps -> 487620 ps.
  const std::uint64_t expected = (20971520000ULL + 43008 - 1) / 43008;
  CHECK(expected == 487620);
  CHECK(compute_ps(flops, Dtype::kFp16, spec) == expected);
  CHECK(compute_exact_ps(flops, Dtype::kFp16, spec) == doctest::Approx(20971520000.0 / 43008.0));
}

TEST_CASE("efficiency and dtype scale the rate") {
  ComputeSpec spec;
  spec.clock_hz = 1e9;
  spec.matrix_flops_per_clock_per_cu = {1000, 500, 2000, 0};
  spec.matrix_efficiency = {0.5, 1, 1, 1};
  // fp16: 1000 FLOP/clk at 1 GHz at half efficiency = 0.5 FLOP/ps.
  CHECK(compute_ps(1e6, Dtype::kFp16, spec) == 2'000'000);
  CHECK(compute_ps(1e6, Dtype::kBf16, spec) == 2'000'000);
  CHECK(compute_ps(1e6, Dtype::kFp8, spec) == 500'000);
  CHECK(compute_ps(0, Dtype::kFp8, spec) == 0);
  CHECK_THROWS_AS(compute_ps(1, Dtype::kFp32, spec), std::invalid_argument);  // no fp32 rate
  CHECK_THROWS_AS(compute_ps(-1, Dtype::kFp16, spec), std::invalid_argument);
}

TEST_CASE("ceil_ps rounds up but not float residue") {
  CHECK(ceil_ps(2.0) == 2);
  CHECK(ceil_ps(2.0 + 1e-12) == 2);
  CHECK(ceil_ps(2.3) == 3);
  CHECK(ceil_ps(0.0) == 0);
  CHECK_THROWS(ceil_ps(-1.0));
}

TEST_CASE("dtype names parse and print") {
  CHECK(parse_dtype("bf16") == Dtype::kBf16);
  CHECK(dtype_name(parse_dtype("fp8")) == "fp8");
  CHECK_THROWS_AS(parse_dtype("int8"), std::invalid_argument);
}

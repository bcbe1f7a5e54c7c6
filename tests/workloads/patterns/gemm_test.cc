// The one-GPU GEMM trace: every C tile stored exactly once, FLOPs, bytes of A and B per tile,
// addresses in bounds, both addressings, persistent or not, parameters refused with their key.
#include <doctest/doctest.h>

#include <chrono>

#include <fmt/format.h>

#include "ledger.h"
#include "sim/config/yaml_reader.h"
#include "test_systems.h"
#include "untimed_run.h"
#include "workloads/patterns/gemm.h"

namespace p = tessera::workloads::patterns;
namespace pt = tessera::workloads::patterns::test;
namespace tr = tessera::workloads::trace;

namespace {

void check_gemm(const p::GemmParams& params, const tessera::models::SystemSpec& system) {
  const tr::Trace trace = p::make_gemm(params, system);
  const p::GemmTiling t = p::tiling_of(params);
  const auto e = static_cast<std::uint64_t>(t.elem_bytes);
  pt::Ledger ledger(trace);
  const pt::RunReport run = pt::run_untimed(trace, [&](const pt::ExecutedOp& op) { ledger.add(op); });
  CHECK(run.completed);
  CHECK_MESSAGE(!run.violation, run.violation.value_or(""));
  REQUIRE(trace.kernels.size() == 1);
  CHECK(trace.kernels[0].grid == p::gemm_grid(params, system));

  // C: the tiles partition the matrix; each stored once.
  const auto c_ranges = ledger.ranges(tr::OpKind::kStore, 0, 0, "C");
  CHECK(pt::disjoint(c_ranges));
  CHECK(ledger.bytes(tr::OpKind::kStore, 0, 0, "C") == t.m * t.n * e);
  if (params.addressing == p::TileAddressing::kRows) {
    CHECK(pt::partitions(c_ranges, 0, static_cast<std::int64_t>(t.m * t.n * e)));
  }
  // Issued FLOPs are whole tiles (masked edges compute the padded block).
  const double padded = 2.0 * static_cast<double>(t.tiles_m() * t.block_m) *
                        static_cast<double>(t.tiles_n() * t.block_n) * static_cast<double>(t.k);
  CHECK(ledger.flops(0) == doctest::Approx(padded));
  if (t.m % t.block_m == 0 && t.n % t.block_n == 0) {
    CHECK(ledger.flops(0) == doctest::Approx(2.0 * static_cast<double>(t.m) * static_cast<double>(t.n) * static_cast<double>(t.k)));
  }
  // Every tile reads its row-panel of A and its column-panel of B once.
  CHECK(ledger.bytes(tr::OpKind::kLoad, 0, 0, "A") == t.tiles_n() * t.m * t.k * e);
  CHECK(ledger.bytes(tr::OpKind::kLoad, 0, 0, "B") == t.tiles_m() * t.k * t.n * e);
  CHECK(pt::union_bytes(ledger.ranges(tr::OpKind::kLoad, 0, 0, "A")) == static_cast<std::int64_t>(t.m * t.k * e));
  CHECK(pt::union_bytes(ledger.ranges(tr::OpKind::kLoad, 0, 0, "B")) == static_cast<std::int64_t>(t.k * t.n * e));
}

}  // namespace

TEST_CASE("gemm: conservation over shapes, addressings, grids and remaps") {
  const auto mi300x = pt::mi300x_node(1);
  p::GemmParams base;
  base.gemm.m = 1024;
  base.gemm.n = 1024;
  base.gemm.k = 512;
  SUBCASE("full tiles, persistent, panels") { check_gemm(base, mi300x); }
  SUBCASE("full tiles, rows") {
    base.addressing = p::TileAddressing::kRows;
    check_gemm(base, mi300x);
  }
  SUBCASE("partial tiles in m and n, both addressings, swizzled") {
    base.gemm.m = 1000;
    base.gemm.n = 700;
    base.gemm.block_n = 64;
    base.gemm.group_m = 3;
    base.gemm.xcd_remap = p::XcdRemap::kChipletSwizzle;
    check_gemm(base, mi300x);
    base.addressing = p::TileAddressing::kRows;
    check_gemm(base, mi300x);
  }
  SUBCASE("partial tiles in m only, fp8") {
    base.gemm.m = 1;
    base.gemm.dtype = tessera::models::compute::Dtype::kFp8;
    check_gemm(base, mi300x);
  }
  SUBCASE("non-persistent, H200 grid") {
    base.persistent = false;
    base.gemm.xcd_remap = p::XcdRemap::kChipletSwizzle;  // 16 tiles on 2 dies
    check_gemm(base, pt::h200_node(1));
  }
  SUBCASE("a small persistent grid") {
    base.workgroups = 3;
    base.gemm.group_m = 1;
    check_gemm(base, mi300x);
  }
}

TEST_CASE("gemm: impossible parameters are refused with their key") {
  const auto mi300x = pt::mi300x_node(1);
  p::GemmParams params;
  params.gemm.k = 1000;
  CHECK_THROWS_WITH_AS(p::make_gemm(params, mi300x), doctest::Contains("gemm.k"), std::invalid_argument);
  params = {};
  params.workgroups = 300;
  params.gemm.xcd_remap = p::XcdRemap::kChipletSwizzle;
  CHECK_THROWS_WITH_AS(p::make_gemm(params, mi300x), doctest::Contains("gemm.workgroups"), std::invalid_argument);
  params.workgroups = 0;  // 304 CUs: a multiple of 8 dies
  CHECK_NOTHROW(p::check_against_system(params, mi300x));
  CHECK_FALSE(p::check_against_system(params, mi300x));
}

TEST_CASE("gemm: the schema reads every key with its default and checks k against block_k") {
  namespace cfg = tessera::sim::config;
  const p::GemmParams read = p::gemm_schema().read(cfg::parse_yaml(
      "{m: 4096, n: 2048, k: 1024, dtype: bf16, block_n: 128, xcd_remap: chiplet_swizzle, persistent: false, "
      "addressing: rows}",
      "test"));
  CHECK(read.gemm.m == 4096);
  CHECK(read.gemm.n == 2048);
  CHECK(read.gemm.dtype == tessera::models::compute::Dtype::kBf16);
  CHECK(read.gemm.block_n == 128);
  CHECK(read.gemm.block_m == 256);
  CHECK(read.gemm.xcd_remap == p::XcdRemap::kChipletSwizzle);
  CHECK_FALSE(read.persistent);
  CHECK(read.addressing == p::TileAddressing::kRows);
  CHECK(read.remap_dies == 0);   // the GPU's dies
  CHECK(read.remap_chunk == 1);  // the plain swizzle
  const p::GemmParams family = p::gemm_schema().read(cfg::parse_yaml("{remap_dies: 4, remap_chunk: 2}", "test"));
  CHECK(family.remap_dies == 4);
  CHECK(family.remap_chunk == 2);
  CHECK_THROWS(p::gemm_schema().read(cfg::parse_yaml("{remap_chunk: 0}", "test")));
  CHECK_THROWS_WITH(p::gemm_schema().read(cfg::parse_yaml("{k: 1000}", "test")), doctest::Contains("block_k"));
  CHECK_THROWS(p::gemm_schema().read(cfg::parse_yaml("{mm: 1}", "test")));
}

TEST_CASE("gemm: default size walks quickly") {
  const auto mi300x = pt::mi300x_node(1);
  const auto start = std::chrono::steady_clock::now();
  const tr::Trace trace = p::make_gemm(p::GemmParams{}, mi300x);
  const std::uint64_t ops = pt::walk_all(trace);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE(fmt::format("gemm 8192x4608x36864 (panels, 304 wgs): {} instructions, {} ops, built + walked in {:.3f} s",
                      tr::stats_of(trace).instructions, ops, seconds));
  // Per tile: 4 ops per K-step (two load_async, compute, wait_load; the first step's compute is the
  // last one, after the loop) and one C store.
  CHECK(ops == 576 * (576 * 4 + 1));
}

// The K-loop is the kernel's double-buffered one (kernels/patterns/gemm_tile.h accumulate_tile): step 0's A and B
// are fetched and waited for, then each step issues the next step's A and B before its matrix work and waits for
// them after it; the last step only computes. One tile, four K-steps, one workgroup.
TEST_CASE("gemm: the K-loop issues the next step's loads before the current step's matrix work") {
  const auto mi300x = pt::mi300x_node(1);
  p::GemmParams params;
  params.gemm.m = 256;
  params.gemm.n = 256;
  params.gemm.k = 256;
  params.gemm.block_m = 256;
  params.gemm.block_n = 256;
  params.gemm.block_k = 64;
  params.workgroups = 1;
  const tr::Trace trace = p::make_gemm(params, mi300x);
  std::vector<std::string> kinds;
  std::vector<std::int64_t> a_offsets;
  pt::walk_all(trace, [&](const pt::ExecutedOp& e) {
    if (e.op.kind == tr::OpKind::kSet) return;
    kinds.emplace_back(tr::op_name(e.op.kind));
    if (e.op.kind == tr::OpKind::kLoadAsync && trace.buffers[e.op.buffer].name == "A") a_offsets.push_back(e.op.b);
  });
  const std::vector<std::string> step{"load_async", "load_async", "compute", "wait_load"};
  std::vector<std::string> expected{"load_async", "load_async", "wait_load"};
  for (int i = 0; i < 3; ++i) expected.insert(expected.end(), step.begin(), step.end());
  expected.insert(expected.end(), {"compute", "store"});
  CHECK(kinds == expected);
  // A's blocks in K order: columns [64 s, 64 s + 64) of the 256 x 256 fp16 A, in panels (256 x 64 each).
  CHECK(a_offsets == std::vector<std::int64_t>{0, 256 * 64 * 2, 2 * 256 * 64 * 2, 3 * 256 * 64 * 2});
}

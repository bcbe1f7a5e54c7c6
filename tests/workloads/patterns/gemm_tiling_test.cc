// The shared GEMM tile machinery: the XCD remap is a permutation, the grouped order covers the
// grid once, and the trace form of the persistent loop visits exactly the tiles the Triton loop
// `for tile in range(pid, tiles, NUM_WGS)` visits, in the same order.
#include <doctest/doctest.h>

#include <set>
#include <vector>

#include "untimed_run.h"
#include "workloads/patterns/gemm_tiling.h"

namespace p = tessera::workloads::patterns;
namespace tr = tessera::workloads::trace;

namespace {

p::GemmTiling tiling(std::uint64_t m, std::uint64_t n, std::uint64_t k, std::uint32_t bm, std::uint32_t bn,
                     std::uint32_t group_m) {
  p::GemmTiling t;
  t.m = m;
  t.n = n;
  t.k = k;
  t.block_m = bm;
  t.block_n = bn;
  t.block_k = 64;
  t.group_m = group_m;
  return t;
}

// A probe program: the tile loop whose body stores one byte at offset pid_m * tiles_n + pid_n,
// so a walk reads back the tiles each workgroup visits, in order.
tr::Trace probe(const p::GemmTiling& t, std::uint64_t num_wgs, std::uint32_t dies, p::XcdRemap remap) {
  tr::TraceBuilder tb(1);
  const auto buf = tb.buffer("probe", t.tiles());
  tr::ProgramBuilder prog("probe");
  p::append_tile_loop(prog, t, num_wgs, [&](tr::ProgramBuilder& body) {
    body.store(buf, tr::rank(), tr::reg(p::kRegPidM) * static_cast<std::int64_t>(t.tiles_n()) + tr::reg(p::kRegPidN),
               1);
    // The body may clobber the scratch registers: make sure the loop does not depend on them.
    body.set(4, 12345).set(5, -7).set(6, 99).set(7, 3);
  });
  tr::Kernel k;
  k.name = "probe";
  k.grid = num_wgs;
  k.program = tb.program(std::move(prog));
  k.args = {p::remap_expr(num_wgs, dies, remap)};
  tb.launch(std::move(k));
  return std::move(tb).build();
}

}  // namespace

TEST_CASE("element sizes of the matrix types") {
  using tessera::models::compute::Dtype;
  CHECK(p::element_bytes(Dtype::kFp16) == 2);
  CHECK(p::element_bytes(Dtype::kBf16) == 2);
  CHECK(p::element_bytes(Dtype::kFp8) == 1);
  CHECK(p::element_bytes(Dtype::kFp32) == 4);
}

// The swizzle of `num_wgs` workgroups as family `f` is a permutation of 0 .. num_wgs-1, and its
// expression (the kernel argument) gives the same pid for every workgroup.
static void check_swizzle_permutation(std::uint64_t num_wgs, p::SwizzleFamily f) {
  CAPTURE(num_wgs);
  CAPTURE(f.dies);
  CAPTURE(f.chunk);
  REQUIRE_FALSE(p::remap_problem(num_wgs, f, p::XcdRemap::kChipletSwizzle));
  const tr::Expr e = p::remap_expr(num_wgs, f, p::XcdRemap::kChipletSwizzle);
  std::set<std::uint64_t> seen;
  for (std::uint64_t wg = 0; wg < num_wgs; ++wg) {
    const std::uint64_t pid = p::remap_workgroup(wg, num_wgs, f, p::XcdRemap::kChipletSwizzle);
    tr::VarValues vars{};
    vars[static_cast<int>(tr::Var::kWg)] = static_cast<std::int64_t>(wg);
    CHECK(e.eval(vars) == static_cast<std::int64_t>(pid));
    CHECK(pid < num_wgs);
    seen.insert(pid);
  }
  CHECK(seen.size() == num_wgs);
}

TEST_CASE("the chiplet swizzle is a permutation of the workgroup ids and matches its expression") {
  struct Case {
    std::uint64_t num_wgs;
    std::uint32_t dies;
  };
  for (const Case c : {Case{304, 8}, Case{132, 2}, Case{16, 8}, Case{8, 8}, Case{576, 8}, Case{7, 1}}) {
    check_swizzle_permutation(c.num_wgs, {c.dies, 1});
    // The GPU's dies: the same as the family's plain member, expression included.
    CHECK(p::remap_expr(c.num_wgs, c.dies, p::XcdRemap::kChipletSwizzle) ==
          p::remap_expr(c.num_wgs, p::SwizzleFamily{c.dies, 1}, p::XcdRemap::kChipletSwizzle));
    CHECK_FALSE(p::remap_problem(c.num_wgs, c.dies, p::XcdRemap::kChipletSwizzle));
  }
  // Consecutive pids land on one die: workgroups 0, 8, 16 (die 0) get pids 0, 1, 2 of 304.
  CHECK(p::remap_workgroup(0, 304, 8, p::XcdRemap::kChipletSwizzle) == 0);
  CHECK(p::remap_workgroup(8, 304, 8, p::XcdRemap::kChipletSwizzle) == 1);
  CHECK(p::remap_workgroup(1, 304, 8, p::XcdRemap::kChipletSwizzle) == 38);
  CHECK(p::remap_workgroup(5, 304, 8, p::XcdRemap::kNone) == 5);
  // Not a multiple of the dies: refused, with the reason.
  const auto problem = p::remap_problem(300, 8, p::XcdRemap::kChipletSwizzle);
  REQUIRE(problem);
  CHECK(problem->find("multiple") != std::string::npos);
  CHECK_FALSE(p::remap_problem(300, 8, p::XcdRemap::kNone));
}

TEST_CASE("the swizzle family: a permutation for every die count and run length that divide the grid") {
  for (const auto& [num_wgs, family] : std::vector<std::pair<std::uint64_t, p::SwizzleFamily>>{
           {304, {8, 2}}, {304, {4, 2}}, {304, {8, 19}}, {132, {2, 3}}, {96, {4, 4}}, {304, {8, 1}}}) {
    check_swizzle_permutation(num_wgs, family);
  }
  // Runs of 1 on the GPU's dies are the plain swizzle, expression included.
  CHECK(p::remap_expr(304, p::SwizzleFamily{8, 1}, p::XcdRemap::kChipletSwizzle) ==
        p::remap_expr(304, 8, p::XcdRemap::kChipletSwizzle));
  // 16 workgroups, 2 dies, runs of 2: workgroups 0 1 | 2 3 | 4 5 ... alternate between the dies in runs of two, and
  // each die's runs get consecutive pids: 0 1, 8 9, 2 3, ...
  const p::SwizzleFamily f{2, 2};
  CHECK(p::remap_workgroup(1, 16, f, p::XcdRemap::kChipletSwizzle) == 1);
  CHECK(p::remap_workgroup(2, 16, f, p::XcdRemap::kChipletSwizzle) == 8);
  CHECK(p::remap_workgroup(3, 16, f, p::XcdRemap::kChipletSwizzle) == 9);
  CHECK(p::remap_workgroup(4, 16, f, p::XcdRemap::kChipletSwizzle) == 2);
  CHECK(p::remap_workgroup(5, 16, f, p::XcdRemap::kNone) == 5);
  const auto problem = p::remap_problem(304, p::SwizzleFamily{8, 4}, p::XcdRemap::kChipletSwizzle);
  REQUIRE(problem);
  CHECK(problem->find("multiple of 8 x 4") != std::string::npos);
}

TEST_CASE("grouped order: Triton's example and a bijection onto the tile grid") {
  // 3 x 2 tiles, groups of 2 row-blocks: (0,0) (1,0) (0,1) (1,1), then the last group of one row.
  const p::GemmTiling small = tiling(3 * 16, 2 * 16, 64, 16, 16, 2);
  const std::vector<p::TileCoord> expected{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {2, 0}, {2, 1}};
  for (std::uint64_t t = 0; t < small.tiles(); ++t) CHECK(p::tile_coord(small, t) == expected[t]);

  for (const p::GemmTiling& t : {tiling(1024, 3584, 8192, 256, 64, 6), tiling(8192, 4608, 64, 256, 256, 6),
                                 tiling(1000, 700, 64, 256, 64, 3), tiling(1, 3584, 64, 256, 64, 8)}) {
    std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
    for (std::uint64_t tile = 0; tile < t.tiles(); ++tile) {
      const p::TileCoord c = p::tile_coord(t, tile);
      CHECK(c.pid_m < t.tiles_m());
      CHECK(c.pid_n < t.tiles_n());
      seen.insert({c.pid_m, c.pid_n});
    }
    CHECK(seen.size() == t.tiles());
  }
}

TEST_CASE("edge tiles: rows and columns of the last blocks, as expressions") {
  const p::GemmTiling t = tiling(1000, 700, 64, 256, 64, 3);
  const tr::Expr rows = p::rows_expr(t);
  const tr::Expr cols = p::cols_expr(t);
  for (std::uint64_t pm = 0; pm < t.tiles_m(); ++pm) {
    for (std::uint64_t pn = 0; pn < t.tiles_n(); ++pn) {
      tr::VarValues v{};
      v[static_cast<int>(tr::Var::kReg0) + p::kRegPidM] = static_cast<std::int64_t>(pm);
      v[static_cast<int>(tr::Var::kReg0) + p::kRegPidN] = static_cast<std::int64_t>(pn);
      CHECK(rows.eval(v) == static_cast<std::int64_t>(t.rows_of(pm)));
      CHECK(cols.eval(v) == static_cast<std::int64_t>(t.cols_of(pn)));
    }
  }
  CHECK(t.rows_of(3) == 1000 - 768);
  CHECK(t.cols_of(10) == 700 - 640);
  CHECK(p::rows_expr(tiling(1, 64, 64, 256, 64, 1)).constant == 1);
}

TEST_CASE("the persistent tile loop visits the tiles of range(pid, tiles, NUM_WGS) in order") {
  struct Case {
    p::GemmTiling t;
    std::uint64_t num_wgs;
    std::uint32_t dies;
    p::XcdRemap remap;
  };
  const std::vector<Case> cases{
      {tiling(1024, 3584, 8192, 256, 64, 6), 304, 8, p::XcdRemap::kNone},  // 224 tiles < 304: idle workgroups
      {tiling(1024, 3584, 8192, 256, 64, 6), 304, 8, p::XcdRemap::kChipletSwizzle},
      {tiling(8192, 4608, 64, 256, 256, 6), 304, 8, p::XcdRemap::kChipletSwizzle},  // 576 tiles: 2 rounds
      {tiling(1000, 700, 64, 256, 64, 3), 16, 8, p::XcdRemap::kChipletSwizzle},    // partial tiles and last group
      {tiling(1000, 700, 64, 256, 64, 8), 5, 1, p::XcdRemap::kNone},                // group_m > tiles_m
      {tiling(1000, 700, 64, 256, 64, 2), 44, 2, p::XcdRemap::kChipletSwizzle},     // non-persistent: grid = tiles
      {tiling(64 * 7, 64 * 5, 64, 64, 64, 3), 3, 1, p::XcdRemap::kNone},
  };
  for (const Case& c : cases) {
    CAPTURE(c.t.m);
    CAPTURE(c.t.group_m);
    CAPTURE(c.num_wgs);
    const tr::Trace trace = probe(c.t, c.num_wgs, c.dies, c.remap);
    std::vector<std::vector<std::int64_t>> visited(c.num_wgs);
    tessera::workloads::patterns::test::walk_all(trace, [&](const tessera::workloads::patterns::test::ExecutedOp& e) {
      visited[e.wg].push_back(e.op.b);
    });
    std::vector<int> count(c.t.tiles(), 0);
    for (std::uint64_t wg = 0; wg < c.num_wgs; ++wg) {
      const std::uint64_t pid = p::remap_workgroup(wg, c.num_wgs, c.dies, c.remap);
      std::vector<std::int64_t> expected;
      for (std::uint64_t tile = pid; tile < c.t.tiles(); tile += c.num_wgs) {
        const p::TileCoord tc = p::tile_coord(c.t, tile);
        expected.push_back(static_cast<std::int64_t>(tc.pid_m * c.t.tiles_n() + tc.pid_n));
      }
      CHECK(visited[wg] == expected);
      CHECK(visited[wg].size() == p::tiles_of_pid(c.t, c.num_wgs, pid));
      for (std::int64_t v : visited[wg]) ++count[static_cast<std::size_t>(v)];
    }
    for (int n : count) CHECK(n == 1);
  }
}

TEST_CASE("tiling problems name the key") {
  p::GemmTiling t = tiling(1024, 1024, 1000, 256, 256, 6);
  auto problem = p::tiling_problem(t);
  REQUIRE(problem);
  CHECK(problem->key == "k");
  CHECK(problem->message.find("block_k") != std::string::npos);
  t.k = 1024;
  CHECK_FALSE(p::tiling_problem(t));
  t.group_m = 0;
  REQUIRE(p::tiling_problem(t));
  CHECK(p::tiling_problem(t)->key == "group_m");
}

TEST_CASE("a K-step's shared-memory bytes: the staged blocks once, then A per wave column and B per wave row") {
  p::GemmTiling t = tiling(4096, 4096, 4096, 128, 128, 6);
  t.block_k = 32;
  // 2 x 4 waves: 16 KiB staged, A's 8 KiB at two bank cycles per 128 bytes (64-byte rows 80 bytes apart: vectors 0
  // and 7 of each eight share a bank slot), then 48 KiB of fragments (each wave reads (64 / 16 + 32 / 16) fragments
  // of 512 bytes per 16 of k, 8 waves x 2 x 6 x 512).
  const p::KStepWork big = p::k_step_work(t);
  CHECK(big.waves_m == 2);
  CHECK(big.waves_n == 4);
  CHECK(big.flops == 2LL * 128 * 128 * 32);
  CHECK(big.lds_bytes == 2 * 8192 + 8192 + 8 * 2 * 6 * 512);
  // The stores (the demand less the fragments) in 128-byte bank cycles, as Nsight Compute counts them on an H200 (validation/data/h200-1-ncu/
  // gemm-wg0.txt: 205,520,896 shared-store wavefronts over 1,048,576 K-steps; the epilogue adds 4 per step).
  CHECK((big.lds_bytes - 8 * 2 * 6 * 512) / 128 + 4 == 205520896 / 1048576);
  t.block_n = 64;  // 2 x 2 waves of 64 x 32: 12 KiB staged (A's 8 KiB twice) + 4 waves x 2 x (4 + 2) x 512
  CHECK(p::k_step_work(t).lds_bytes == 2 * 8192 + 4096 + 4 * 2 * 6 * 512);
  t.block_m = 64;  // 2 x 2 waves of 32 x 32: 8 KiB staged (A's 4 KiB twice) + 4 waves x 2 x (2 + 2) x 512
  CHECK(p::k_step_work(t).lds_bytes == 2 * 4096 + 4096 + 4 * 2 * 4 * 512);
  t.block_k = 64;  // A's rows of 128 bytes, 144 apart: eight vectors of one row, one cycle
  CHECK(p::k_step_work(t).lds_bytes == 2 * (4096 + 4096 + 4 * 2 * 4 * 512));
}

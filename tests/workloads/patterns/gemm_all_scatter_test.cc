// GEMM + All-Scatter, the four variants: every rank computes exactly its columns of C (each tile
// once, its FLOPs), every rank ends up holding every other rank's columns (each byte delivered
// exactly once by a push variant, whole slots by the bsp all-gather), no one reads a tile before
// its lock, the kernels and streams are those of the pattern, and a real replay on an MI300X
// node neither beats an idealised bound nor skips the BSP's serial launches.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "ledger.h"
#include "sim/config/yaml_reader.h"
#include "host_launches.h"
#include "choice_name.h"
#include "test_systems.h"
#include "tests/support/test_systems.h"
#include "untimed_run.h"
#include "workloads/patterns/gemm_all_scatter.h"
#include "workloads/patterns/scatter_programs.h"
#include "workloads/patterns/scatter_tile_loop.h"
#include "workloads/replay/replay.h"

namespace p = tessera::workloads::patterns;
namespace pt = tessera::workloads::patterns::test;
namespace tr = tessera::workloads::trace;
namespace rp = tessera::workloads::replay;
using V = p::GemmAllScatterVariant;

namespace {

constexpr V kVariants[] = {V::kBsp, V::kProducerConsumer, V::kFusedSequential, V::kWgSpecialized};

std::string_view variant_name(V v) { return pt::choice_name(p::gemm_all_scatter_variant_choices(), v); }

void check_scatter(const p::GemmAllScatterParams& params, const tessera::models::SystemSpec& system) {
  CAPTURE(variant_name(params.variant));
  CAPTURE(params.ranks);
  CAPTURE(params.gemm.m);
  CAPTURE(params.gemm.n);
  const tr::Trace trace = p::make_gemm_all_scatter(params, system);
  const std::uint32_t ranks = p::ranks_of(params, system);
  const p::GemmTiling t = p::local_tiling_of(params, ranks);
  const std::uint64_t e = t.elem_bytes;
  const std::uint64_t cols_bytes = t.m * t.n * e;  // one rank's columns of C
  REQUIRE(trace.ranks == ranks);
  REQUIRE(trace.find_buffer("C"));
  // C: one compact slot of m x n_local per rank, slot q holding rank q's columns.
  const std::uint64_t slot = cols_bytes;
  REQUIRE(trace.buffers[*trace.find_buffer("C")].bytes == ranks * slot);
  const auto lo = [&](std::uint32_t q) { return static_cast<std::int64_t>(q * slot); };

  pt::Ledger ledger(trace);
  const pt::RunReport run = pt::run_untimed(trace, [&](const pt::ExecutedOp& op) { ledger.add(op); });
  CHECK(run.completed);
  CHECK_MESSAGE(!run.violation, run.violation.value_or(""));
  CHECK(ledger.waits_released());

  const double padded = 2.0 * static_cast<double>(t.tiles_m() * t.block_m) *
                        static_cast<double>(t.tiles_n() * t.block_n) * static_cast<double>(t.k);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    CAPTURE(r);
    // Compute: this rank's m x n_local x k, padded tiles, once.
    CHECK(ledger.flops(r) == doctest::Approx(padded));
    if (t.m % t.block_m == 0 && t.n % t.block_n == 0) {
      CHECK(ledger.flops(r) == doctest::Approx(2.0 * static_cast<double>(t.m * t.n) * static_cast<double>(t.k)));
    }
    // A once per column-block, B once per row-block, all local.
    CHECK(ledger.bytes(tr::OpKind::kLoad, r, r, "A") == t.tiles_n() * t.m * t.k * e);
    CHECK(ledger.bytes(tr::OpKind::kLoad, r, r, "B") == t.tiles_m() * t.k * t.n * e);
    CHECK(ledger.remote_bytes_by(tr::OpKind::kLoad, r, "A") == 0);
    CHECK(ledger.remote_bytes_by(tr::OpKind::kLoad, r, "B") == 0);
    CHECK(ledger.remote_bytes_by(tr::OpKind::kLoad, r, "C") == 0);  // scatter pushes, never pulls

    // This rank's own tiles: one store each into its own slot, together exactly the slot.
    const auto own = ledger.ranges(tr::OpKind::kStore, r, r, "C");
    CHECK(own.size() == t.tiles());
    CHECK(pt::partitions(own, lo(r), lo(r + 1)));
    // ... and they are the documented compact panels (ScatterLayout::c_tile_range).
    const p::ScatterLayout layout = p::scatter_layout(t, params.gemm.dtype, ranks);
    std::set<pt::Range> documented;
    for (std::uint64_t pm = 0; pm < t.tiles_m(); ++pm) {
      for (std::uint64_t pn = 0; pn < t.tiles_n(); ++pn) {
        const auto [offset, bytes] = layout.c_tile_range(pm, pn);
        documented.insert({lo(r) + static_cast<std::int64_t>(offset), lo(r) + static_cast<std::int64_t>(offset + bytes)});
      }
    }
    CHECK(std::set<pt::Range>(own.begin(), own.end()) == documented);

    // Every peer's columns arrive in this rank's C, each byte once.
    CHECK(ledger.remote_bytes_into(tr::OpKind::kStore, r, "C") == (ranks - 1) * slot);
    for (std::uint32_t q = 0; q < ranks; ++q) {
      if (q == r) continue;
      if (params.variant == V::kBsp) {
        // The collective's pieces of slot q, from whichever peer forwards them.
        std::vector<pt::Range> in_slot;
        for (std::uint32_t from = 0; from < ranks; ++from) {
          if (from == r) continue;
          for (const auto& x : ledger.ranges(tr::OpKind::kStore, from, r, "C")) {
            if (x.first >= lo(q) && x.second <= lo(q + 1)) in_slot.push_back(x);
          }
        }
        CHECK(pt::partitions(in_slot, lo(q), lo(q + 1)));
      } else {
        // Pushes: source q stores into rank r exactly the tile ranges it stored locally.
        auto got = ledger.ranges(tr::OpKind::kStore, q, r, "C");
        auto expected = ledger.ranges(tr::OpKind::kStore, q, q, "C");
        std::sort(got.begin(), got.end());
        std::sort(expected.begin(), expected.end());
        CHECK(got == expected);
      }
    }
    if (params.variant != V::kBsp) {
      CHECK(ledger.remote_bytes_by(tr::OpKind::kStore, r, "C") == (ranks - 1) * slot);
    }
    // What the local C re-reads cost: none when fused, one read of the own columns when a
    // communication kernel or workgroup pushes them.
    switch (params.variant) {
      case V::kFusedSequential: CHECK(ledger.bytes(tr::OpKind::kLoad, r, r, "C") == 0); break;
      case V::kProducerConsumer:
      case V::kWgSpecialized: CHECK(ledger.bytes(tr::OpKind::kLoad, r, r, "C") == cols_bytes); break;
      case V::kBsp:
        // The ring loads its own slot once and every forwarded slot once (ranks - 2 of them).
        if (params.collective == p::BspCollective::kRing) {
          CHECK(ledger.bytes(tr::OpKind::kLoad, r, r, "C") == (ranks > 1 ? (ranks - 1) * slot : slot));
        }
        break;
    }
  }
}

}  // namespace

TEST_CASE("gemm_all_scatter: conservation for every variant on 1, 2, 4, 8 ranks") {
  const auto node = pt::mi300x_node(8);
  for (const V variant : kVariants) {
    for (std::uint32_t ranks : {1u, 2u, 4u, 8u}) {
      p::GemmAllScatterParams params;
      params.variant = variant;
      params.ranks = ranks;
      params.gemm.m = 512;
      params.gemm.n = 256 * ranks;
      params.gemm.k = 256;
      params.gemm_wgs = variant == V::kProducerConsumer || variant == V::kWgSpecialized ? 16 : 24;
      params.comm_wgs = 8;
      check_scatter(params, node);
    }
  }
}

TEST_CASE("gemm_all_scatter: partial tiles, a narrower last group, fine K-steps, one-shot bsp") {
  const auto node = pt::mi300x_node(4);
  // (m, n_local): partial in both directions, only in rows, only in columns.
  for (const auto& [m, n_local] : {std::pair{300u, 100u}, std::pair{300u, 128u}, std::pair{256u, 100u}}) {
    for (const V variant : kVariants) {
      p::GemmAllScatterParams params;
      params.variant = variant;
      params.gemm.m = m;              // block_m 64: 5 row-blocks, the last 44 rows; groups of 4 and of 1
      params.gemm.n = 4 * n_local;    // n_local 100: column-blocks of 64 and 36
      params.gemm.k = 320;            // 5 K-steps: k_steps_per_op falls back to 1
      params.gemm.block_m = 64;
      params.gemm.group_m = 4;
      params.gemm_wgs = 8;
      params.comm_wgs = 8;
      params.gemm.xcd_remap = p::XcdRemap::kNone;
      check_scatter(params, node);
      params.gemm.xcd_remap = p::XcdRemap::kChipletSwizzle;
      params.ranks = 3;  // a rank count that is no power of two
      params.gemm.n = 3 * n_local;
      check_scatter(params, node);
    }
  }
  p::GemmAllScatterParams params;
  params.gemm.m = 512;
  params.gemm.n = 4 * 128;
  params.gemm.k = 512;
  params.collective = p::BspCollective::kOneShot;
  params.comm_wgs = 3;
  check_scatter(params, node);
}

TEST_CASE("gemm_all_scatter: k_steps_per_op coarsens ops, never bytes or FLOPs") {
  const auto node = pt::mi300x_node(2);
  p::GemmAllScatterParams params;
  params.variant = V::kFusedSequential;
  params.gemm.m = 512;
  params.gemm.n = 256;
  params.gemm.k = 64 * 12;  // 12 K-steps
  params.gemm_wgs = 8;
  std::map<std::uint32_t, std::uint64_t> ops;
  std::map<std::uint32_t, std::map<std::string, std::uint64_t>> bytes;
  std::map<std::uint32_t, double> flops;
  for (std::uint32_t g : {1u, 4u, 5u, 12u, 100u}) {
    params.k_steps_per_op = g;
    const tr::Trace trace = p::make_gemm_all_scatter(params, node);
    pt::Ledger ledger(trace);
    ops[g] = pt::walk_all(trace, [&](const pt::ExecutedOp& op) { ledger.add(op); });
    for (const char* b : {"A", "B", "C"}) {
      bytes[g][b] = ledger.bytes(tr::OpKind::kLoad, 0, 0, b) + ledger.bytes(tr::OpKind::kStore, 0, 0, b) +
                    ledger.bytes(tr::OpKind::kStore, 0, 1, b);
    }
    flops[g] = ledger.flops(0) + ledger.flops(1);
  }
  CHECK(p::k_steps_per_op_of(params) == 12);
  params.k_steps_per_op = 5;
  CHECK(p::k_steps_per_op_of(params) == 4);  // the largest divisor of 12 up to 5
  params.k_steps_per_op = 100;
  CHECK(p::k_steps_per_op_of(params) == 12);
  CHECK(p::trace_tiling_of(params, 2).block_k == 64 * 12);
  CHECK(p::trace_tiling_of(params, 2).k_steps() == 1);
  for (std::uint32_t g : {4u, 5u, 12u, 100u}) {
    CAPTURE(g);
    CHECK(bytes[g] == bytes[1]);
    CHECK(flops[g] == doctest::Approx(flops[1]));
    CHECK(ops[g] < ops[1]);
  }
  CHECK(ops[5] == ops[4]);
  CHECK(ops[100] == ops[12]);
  // Per tile: 4 ops per trace K-step (two load_async, compute, wait_load) plus the tile's sets and
  // stores, so 12 -> 4 -> 1 steps.
  CHECK(ops[1] - ops[4] == 4 * (12 - 3) * 2 * p::local_tiling_of(params, 2).tiles());
}

// The workgroup-specialised kernel's tile loop sits one loop deeper than gemm_tiling's; both must
// visit the same tiles in the same order for every pid.
TEST_CASE("gemm_all_scatter: the tile loop at depth 1 visits what append_tile_loop visits") {
  for (const auto& [tiles_m, group_m, grid] : {std::tuple{5u, 4u, 3u}, std::tuple{12u, 6u, 7u}, std::tuple{4u, 8u, 16u},
                                               std::tuple{7u, 1u, 2u}}) {
    p::GemmTiling t;
    t.m = tiles_m * t.block_m - 10;
    t.n = 3 * t.block_n;
    t.k = t.block_k;
    t.group_m = group_m;
    // Record (tile, pid_m, pid_n) through a compute op's FLOPs: tile * 2^20 + pid_m * 2^10 + pid_n.
    const auto record = [](tr::ProgramBuilder& body) {
      body.set(6, tr::reg(p::kRegTile) * (1 << 20) + tr::reg(p::kRegPidM) * (1 << 10) + tr::reg(p::kRegPidN));
      body.compute(tr::reg(6) + 1);
    };
    tr::ProgramBuilder flat("flat");
    p::append_tile_loop(flat, t, grid, record);
    tr::ProgramBuilder deep("deep");
    // Workgroup ids offset by 5, as a communication workgroup's pid - gemm_wgs.
    deep.loop(1);
    p::append_tile_loop_at(deep, t, grid, tr::reg(p::kRegPid) - tr::Expr(5), 1, record);
    deep.end_loop();
    tr::TraceBuilder tb(1);
    const auto flat_program = tb.program(std::move(flat));
    const auto deep_program = tb.program(std::move(deep));
    tb.launch({"flat", 0, 0, grid, flat_program, {tr::wg()}});
    tb.launch({"deep", 0, 1, grid, deep_program, {tr::wg() + tr::Expr(5)}});
    const tr::Trace trace = std::move(tb).build();
    std::map<std::pair<std::uint32_t, std::uint64_t>, std::vector<std::int64_t>> seen;
    pt::walk_all(trace, [&](const pt::ExecutedOp& e) { seen[{e.kernel, e.wg}].push_back(e.op.a - 1); });
    std::set<std::int64_t> all;
    for (std::uint64_t w = 0; w < grid; ++w) {
      CAPTURE(w);
      CHECK(seen[{0, w}] == seen[{1, w}]);
      for (std::int64_t x : seen[{0, w}]) {
        const auto tile = static_cast<std::uint64_t>(x >> 20);
        const p::TileCoord c = p::tile_coord(t, tile);
        CHECK(static_cast<std::uint64_t>((x >> 10) & 1023) == c.pid_m);
        CHECK(static_cast<std::uint64_t>(x & 1023) == c.pid_n);
        CHECK(tile % grid == w);
        all.insert(x);
      }
    }
    CHECK(all.size() == t.tiles());
  }
  tr::ProgramBuilder bad("bad");
  CHECK_THROWS_AS(p::append_tile_loop_at(bad, p::GemmTiling{1, 1, 1}, 1, tr::reg(0) + tr::wg(), 0, [](auto&) {}),
                  std::invalid_argument);
  CHECK_THROWS_AS(p::append_tile_loop_at(bad, p::GemmTiling{1, 1, 1}, 1, tr::reg(0), 3, [](auto&) {}),
                  std::invalid_argument);
}

// Ordering beyond the untimed run's dataflow check: a tile is pushed only after a wait on its
// own lock that acquires exactly the tile, and each lock is released once, after its tile's store.
TEST_CASE("gemm_all_scatter: locks order every push after its tile's store") {
  const auto node = pt::mi300x_node(4);
  for (const V variant : {V::kProducerConsumer, V::kWgSpecialized}) {
    CAPTURE(variant_name(variant));
    p::GemmAllScatterParams params;
    params.variant = variant;
    params.gemm.m = 600;
    params.gemm.n = 4 * 192;
    params.gemm.k = 256;
    params.gemm_wgs = 16;
    params.comm_wgs = 8;
    const tr::Trace trace = p::make_gemm_all_scatter(params, node);
    const p::GemmTiling t = p::local_tiling_of(params, 4);
    const std::uint32_t c = *trace.find_buffer("C");
    std::map<std::pair<std::uint32_t, std::uint64_t>, tr::Op> last;  // per (kernel, wg): the previous op
    std::map<std::pair<std::uint32_t, std::uint64_t>, pt::Range> acquired;
    std::map<std::pair<std::uint32_t, std::int64_t>, int> releases;  // (rank, lock) -> count
    std::uint64_t pushes = 0;
    std::uint64_t lock_waits = 0;
    bool ok = true;
    pt::walk_all(trace, [&](const pt::ExecutedOp& e) {
      const auto key = std::make_pair(e.kernel, e.wg);
      const tr::Op& op = e.op;
      if (op.kind == tr::OpKind::kRelease && op.b < static_cast<std::int64_t>(t.tiles())) {
        // A lock: on the own rank, right after the tile's local store.
        ++releases[{e.rank, op.b}];
        const auto it = last.find(key);
        const auto me = static_cast<std::int64_t>(e.rank);
        if (op.a != me || it == last.end() || it->second.kind != tr::OpKind::kStore || it->second.buffer != c ||
            it->second.a != me) {
          ok = false;
        }
      }
      if (op.kind == tr::OpKind::kWait && op.buffer == c) {
        ++lock_waits;
        acquired[key] = {op.d, op.d + op.e};
      }
      if (op.kind == tr::OpKind::kLoad && op.buffer == c) {
        ++pushes;
        const auto it = acquired.find(key);
        if (it == acquired.end() || it->second != pt::Range{op.b, op.b + op.c}) ok = false;
      }
      last[key] = op;
    });
    CHECK(ok);
    CHECK(pushes == 4 * t.tiles());
    CHECK(lock_waits == 4 * t.tiles());
    CHECK(releases.size() == 4 * t.tiles());
    CHECK(std::all_of(releases.begin(), releases.end(), [](const auto& kv) { return kv.second == 1; }));
  }
}

TEST_CASE("gemm_all_scatter wg_specialized: GEMM workgroups compute, the others only push") {
  const auto node = pt::mi300x_node(2);
  p::GemmAllScatterParams params;
  params.variant = V::kWgSpecialized;
  params.gemm.m = 1024;
  params.gemm.n = 2 * 512;  // 4 x 8 = 32 tiles per rank
  params.gemm.k = 256;
  params.gemm_wgs = 24;
  params.comm_wgs = 8;
  const tr::Trace trace = p::make_gemm_all_scatter(params, node);
  REQUIRE(trace.kernels.size() == 2);
  const std::uint64_t grid = 32;
  CHECK(trace.kernels[0].grid == grid);
  std::set<std::uint64_t> computing;
  std::set<std::uint64_t> pushing;
  std::set<std::uint64_t> signalling;
  pt::walk_all(trace, [&](const pt::ExecutedOp& e) {
    if (e.rank != 0) return;
    const std::uint64_t pid = p::remap_workgroup(e.wg, grid, 8, p::XcdRemap::kChipletSwizzle);
    if (e.op.kind == tr::OpKind::kCompute) computing.insert(pid);
    if (e.op.kind == tr::OpKind::kStore && e.op.a != 0) pushing.insert(pid);
    if (e.op.kind == tr::OpKind::kRelease && e.op.a != 0) signalling.insert(pid);
  });
  CHECK(computing.size() == 24);
  CHECK(*computing.rbegin() == 23);
  CHECK(pushing.size() == 8);
  CHECK(*pushing.begin() == 24);
  CHECK(signalling == pushing);  // every communication workgroup tells the peer it is done
}

TEST_CASE("gemm_all_scatter: kernels, streams, CU partitions and host commands of each variant") {
  const auto node = pt::mi300x_node(8);
  struct Expected {
    std::vector<std::string> names;
    std::vector<std::uint32_t> streams;
    std::vector<std::uint64_t> grids;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> cus;  // (first, count) per die
  };
  const std::map<V, Expected> expected{
      {V::kBsp, {{"gemm_all_scatter_gemm", "all_gather"}, {0, 0}, {304, 16}, {{0, 0}, {0, 0}}}},
      {V::kProducerConsumer, {{"gemm_all_scatter_gemm", "all_scatter"}, {0, 1}, {256, 48}, {{0, 32}, {32, 6}}}},
      {V::kFusedSequential, {{"gemm_all_scatter"}, {0}, {304}, {{0, 0}}}},
      {V::kWgSpecialized, {{"gemm_all_scatter_wgs"}, {0}, {304}, {{0, 0}}}}};
  for (const auto& entry : expected) {
    // Named copies, not a structured binding: clang 14 cannot capture one (CAPTURE and the lambda below).
    const V variant = entry.first;
    const Expected& want = entry.second;
    CAPTURE(variant_name(variant));
    p::GemmAllScatterParams params;
    params.variant = variant;
    const tr::Trace trace = p::make_gemm_all_scatter(params, node);
    CHECK(trace.ranks == 8);
    const p::GemmTiling t = p::local_tiling_of(params, 8);
    CHECK(t.n == 576);
    CHECK(t.tiles() == 32 * 9);
    CHECK(trace.buffers[*trace.find_buffer("A")].bytes == 8192ULL * 36864 * 2);
    CHECK(trace.buffers[*trace.find_buffer("B")].bytes == 36864ULL * 576 * 2);
    CHECK(trace.buffers[*trace.find_buffer("C")].bytes == 8192ULL * 4608 * 2);
    pt::check_host_launches(trace, want.names, [&want](const tr::Kernel& k, std::size_t i) {
      CHECK(k.stream == want.streams[i]);
      CHECK(k.grid == want.grids[i]);
      CHECK(k.cu_first == want.cus[i].first);
      CHECK(k.cu_count == want.cus[i].second);
    });
  }
}

TEST_CASE("gemm_all_scatter: default workgroup counts follow Iris's split") {
  using W = p::ScatterWorkgroups;
  const auto mi300x = pt::mi300x_node(8);
  const auto h200 = pt::h200_node(2);
  const auto counts = [](V variant, const tessera::models::SystemSpec& s, std::uint32_t gemm = 0,
                         std::uint32_t comm = 0) {
    p::GemmAllScatterParams params;
    params.variant = variant;
    params.gemm_wgs = gemm;
    params.comm_wgs = comm;
    const W w = p::workgroups_of(params, s);
    return std::pair{w.gemm, w.comm};
  };
  CHECK(counts(V::kBsp, mi300x) == std::pair<std::uint64_t, std::uint64_t>{304, 16});
  CHECK(counts(V::kFusedSequential, mi300x) == std::pair<std::uint64_t, std::uint64_t>{304, 0});
  CHECK(counts(V::kProducerConsumer, mi300x) == std::pair<std::uint64_t, std::uint64_t>{256, 48});
  CHECK(counts(V::kWgSpecialized, mi300x) == std::pair<std::uint64_t, std::uint64_t>{256, 48});
  CHECK(counts(V::kWgSpecialized, h200) == std::pair<std::uint64_t, std::uint64_t>{128, 4});
  CHECK(counts(V::kWgSpecialized, mi300x, 0, 24) == std::pair<std::uint64_t, std::uint64_t>{280, 24});
  CHECK(counts(V::kProducerConsumer, mi300x, 128) == std::pair<std::uint64_t, std::uint64_t>{128, 48});
  auto pow2 = pt::mi300x_node(8);
  pow2.gpu.compute.compute_units_per_die = 32;  // 256 CUs: no leftover, an eighth for communication
  CHECK(counts(V::kWgSpecialized, pow2) == std::pair<std::uint64_t, std::uint64_t>{224, 32});
  for (const V variant : kVariants) {
    p::GemmAllScatterParams params;
    params.variant = variant;
    CHECK_FALSE(p::check_against_system(params, mi300x));
    CHECK_FALSE(p::check_against_system(params, h200));
  }
}

TEST_CASE("gemm_all_scatter: impossible parameters are refused with their key") {
  const auto node = pt::mi300x_node(8);
  const auto refused = [&](p::GemmAllScatterParams params, const char* key,
                           const tessera::models::SystemSpec* system = nullptr) {
    CAPTURE(key);
    CHECK_THROWS_WITH_AS(p::make_gemm_all_scatter(params, system ? *system : node),
                         doctest::Contains((std::string("gemm_all_scatter.") + key).c_str()), std::invalid_argument);
  };
  p::GemmAllScatterParams params;
  params.ranks = 9;
  refused(params, "ranks");
  params.ranks = 0;
  params.gemm.n = 4608 + 4;  // not a multiple of 8 ranks
  refused(params, "n");
  params.gemm.n = 4608;
  params.gemm.k = 36864 + 32;  // not a multiple of block_k
  refused(params, "k");
  params.gemm.k = 36864;
  params.gemm_wgs = 300;  // the swizzle needs a multiple of the 8 dies
  refused(params, "gemm_wgs");
  params.gemm_wgs = 0;
  params.variant = V::kProducerConsumer;
  params.gemm_wgs = 256;
  params.comm_wgs = 12;  // not a multiple of the dies: no even CU partition
  refused(params, "comm_wgs");
  params.comm_wgs = 48;
  params.gemm_wgs = 264;  // 33 + 6 CUs per die > 38
  refused(params, "comm_wgs");
  params.gemm_wgs = 0;
  params.comm_wgs = 304;  // nothing left for the GEMM
  refused(params, "gemm_wgs");
  params.variant = V::kWgSpecialized;
  params.comm_wgs = 48;
  params.gemm_wgs = 300;  // a grid of 348, not a multiple of 8 dies under the swizzle
  refused(params, "gemm_wgs");
  params.gemm_wgs = 304 * 8;  // more than the workgroup slots with the communication workgroups
  params.gemm.xcd_remap = p::XcdRemap::kNone;
  refused(params, "comm_wgs");
  params.gemm_wgs = 0;
  params.variant = V::kBsp;
  const auto three = pt::mi300x_node(3);
  params.gemm.n = 4607;  // all 3 GPUs of this node: not a multiple of 3
  refused(params, "n", &three);
  params.gemm.n = 4608;
  CHECK_FALSE(p::check_against_system(params, three));
}

TEST_CASE("gemm_all_scatter: the schema reads the keys") {
  namespace cfg = tessera::sim::config;
  const p::GemmAllScatterParams defaults = p::gemm_all_scatter_schema().read(cfg::parse_yaml("{}", "test"));
  CHECK(defaults.gemm.m == 8192);
  CHECK(defaults.gemm.n == 4608);
  CHECK(defaults.gemm.k == 36864);
  CHECK(defaults.gemm.block_m == 256);
  CHECK(defaults.gemm.block_n == 64);
  CHECK(defaults.gemm.block_k == 64);
  CHECK(defaults.gemm.group_m == 6);
  CHECK(defaults.variant == V::kBsp);
  CHECK(defaults.gemm.xcd_remap == p::XcdRemap::kChipletSwizzle);
  CHECK(defaults.k_steps_per_op == 1);  // exact by default: coarsening is a speed setting
  const p::GemmAllScatterParams read = p::gemm_all_scatter_schema().read(cfg::parse_yaml(
      "{m: 1024, n: 3584, k: 14336, dtype: bf16, variant: wg_specialized, gemm_wgs: 256, comm_wgs: 48, ranks: 4, "
      "xcd_remap: none, k_steps_per_op: 4, collective: one_shot, collective_chunk: 64 KiB}",
      "test"));
  CHECK(read.gemm.m == 1024);
  CHECK(read.gemm.n == 3584);
  CHECK(read.gemm.k == 14336);
  CHECK(read.gemm.dtype == tessera::models::compute::Dtype::kBf16);
  CHECK(read.variant == V::kWgSpecialized);
  CHECK(read.gemm_wgs == 256);
  CHECK(read.comm_wgs == 48);
  CHECK(read.ranks == 4);
  CHECK(read.gemm.xcd_remap == p::XcdRemap::kNone);
  CHECK(read.k_steps_per_op == 4);
  CHECK(read.collective == p::BspCollective::kOneShot);
  CHECK(read.collective_chunk_bytes == 64 << 10);
  CHECK_THROWS_WITH(p::gemm_all_scatter_schema().read(cfg::parse_yaml("{variant: fused}", "test")),
                    doctest::Contains("fused_sequential"));
  CHECK_THROWS(p::gemm_all_scatter_schema().read(cfg::parse_yaml("{k: 100}", "test")));  // not a multiple of block_k
}

// A real replay on the MI300X test node: no variant beats what the hardware allows at its peaks
// (matrix FLOP/s, the links into a GPU, HBM for the cold A and B), and BSP's two kernels run one
// after the other, each paying its launch; producer-consumer's two kernels overlap.
TEST_CASE("gemm_all_scatter: replay sanity on an MI300X node") {
  constexpr tessera::sim::Tick kLaunchPs = 4'000'000;  // 4 us
  for (std::uint32_t ranks : {2u, 4u}) {
    auto node = tessera::test::mi300x(ranks);
    node.gpu.dispatch.kernel_launch_latency_ps = kLaunchPs;
    for (const V variant : kVariants) {
      CAPTURE(variant_name(variant));
      CAPTURE(ranks);
      p::GemmAllScatterParams params;
      params.variant = variant;
      params.gemm.m = 1024;
      params.gemm.n = ranks * 256;
      params.gemm.k = 1024;
      params.gemm_wgs = variant == V::kProducerConsumer || variant == V::kWgSpecialized ? 256 : 0;
      params.comm_wgs = variant == V::kBsp ? 16 : 48;
      const tr::Trace trace = p::make_gemm_all_scatter(params, node);
      const rp::ReplayResult r = rp::replay_trace(trace, node);
      REQUIRE(r.complete);
      for (const auto& k : r.kernels) CHECK(k.completed);

      const p::GemmTiling t = p::local_tiling_of(params, ranks);
      const double e = t.elem_bytes;
      const double flops = 2.0 * static_cast<double>(t.tiles_m() * t.block_m * t.tiles_n() * t.block_n * t.k);
      const double compute_s = flops / tessera::models::peak_fp16_flops_per_s(node.gpu);
      const double received = (ranks - 1) * static_cast<double>(t.m * t.n) * e;
      const double links_s =
          received / (node.interconnect.links_per_gpu * node.interconnect.link_bandwidth_bytes_per_s);
      const double cold_s = static_cast<double>(t.m * t.k + t.k * t.n) * e / node.gpu.memory.hbm_bandwidth_bytes_per_s;
      const double makespan_s = static_cast<double>(r.makespan_ps) * 1e-12;
      MESSAGE(fmt::format("{} ranks {}: makespan {:.2f} us (compute bound {:.2f} us, links {:.2f} us, launch {:.0f} us)",
                          variant_name(variant), ranks, makespan_s * 1e6, compute_s * 1e6, links_s * 1e6,
                          static_cast<double>(kLaunchPs) * 1e-6));
      const double launch_s = static_cast<double>(kLaunchPs) * 1e-12;
      CHECK(makespan_s >= compute_s + launch_s);
      CHECK(makespan_s >= links_s + launch_s);
      CHECK(makespan_s >= cold_s + launch_s);
      CHECK(r.link_class_bytes.at("xgmi") >= static_cast<std::uint64_t>(ranks * received));

      std::map<std::pair<std::uint32_t, std::string>, tessera::workloads::KernelTiming> by;
      for (const auto& k : r.kernels) by[{k.rank, k.name}] = k;
      for (std::uint32_t rank = 0; rank < ranks; ++rank) {
        if (variant == V::kBsp) {
          const auto& gemm = by.at({rank, "gemm_all_scatter_gemm"});
          const auto& ag = by.at({rank, "all_gather"});
          CHECK(ag.start_ps >= gemm.end_ps);             // stream order is the barrier
          CHECK(ag.start_ps >= gemm.end_ps + kLaunchPs);  // and the second launch is paid after it
          CHECK(r.makespan_ps >= 2 * kLaunchPs);
        }
        if (variant == V::kProducerConsumer) {
          const auto& gemm = by.at({rank, "gemm_all_scatter_gemm"});
          const auto& scatter = by.at({rank, "all_scatter"});
          CHECK(scatter.start_ps < gemm.end_ps);  // the two kernels run at once
          CHECK(scatter.end_ps >= gemm.end_ps);   // and the last push follows the last tile
        }
      }
    }
  }
}

TEST_CASE("gemm_all_scatter: default size, ops per rank and a replay (slow: run with --no-skip)" * doctest::skip()) {
  const auto node = tessera::test::mi300x(8);
  for (const V variant : kVariants) {
    p::GemmAllScatterParams params;
    params.variant = variant;
    const tr::Trace trace = p::make_gemm_all_scatter(params, node);
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t ops = pt::walk_all(trace);
    const double walk_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::clock_t cpu0 = std::clock();
    const rp::ReplayResult r = rp::replay_trace(trace, node);
    const double cpu_s = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
    MESSAGE(fmt::format("gemm_all_scatter {}: {} ops over 8 ranks ({} per rank), walk {:.2f} s; replay {:.2f} s wall "
                        "({:.2f} s CPU), {} events, makespan {:.3f} ms",
                        variant_name(variant), ops, ops / 8, walk_s, r.wall_s, cpu_s, r.events,
                        static_cast<double>(r.makespan_ps) / 1e9));
  }
}

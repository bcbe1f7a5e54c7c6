// GEMM + all-reduce, the three variants: every rank ends with every rank's partial product in
// each byte of C exactly once (followed symbolically, see all_reduce_test.cc), computes its K
// slice's FLOPs, moves the bytes its variant must, waits before it reads a peer's tile; replayed,
// no variant beats an idealised machine and the BSP one pays both its launches.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "ledger.h"
#include "sim/config/yaml_reader.h"
#include "host_launches.h"
#include "choice_name.h"
#include "test_systems.h"
#include "tests/support/test_systems.h"
#include "untimed_run.h"
#include "workloads/patterns/gemm_all_reduce.h"
#include "workloads/patterns/reduce_scatter.h"
#include "workloads/replay/replay.h"

namespace p = tessera::workloads::patterns;
namespace pt = tessera::workloads::patterns::test;
namespace tr = tessera::workloads::trace;
using tessera::models::SystemSpec;

namespace tessera::workloads::patterns::test {
// Defined in all_reduce_test.cc (the same test program).
struct ReductionCheck {
  std::optional<std::string> problem;
  std::vector<std::int64_t> summed_bytes;
};
ReductionCheck check_reduction(const tr::Trace& trace, const std::set<std::string>& operands, const std::string& result,
                               const Observer& also);
}  // namespace tessera::workloads::patterns::test

namespace {

using V = p::GemmAllReduceVariant;

std::string_view variant_name(V v) { return pt::choice_name(p::gemm_all_reduce_variant_choices(), v); }

void check_gemm_all_reduce(const p::GemmAllReduceParams& params, const SystemSpec& system) {
  CAPTURE(variant_name(params.variant));
  CAPTURE(static_cast<int>(params.collective));
  CAPTURE(params.gemm.m);
  CAPTURE(params.gemm.n);
  CAPTURE(params.ranks);
  CAPTURE(static_cast<int>(params.addressing));
  const tr::Trace trace = p::make_gemm_all_reduce(params, system);
  const std::uint32_t ranks = p::ranks_of(params, system);
  const p::GemmTiling t = p::tiling_of(params, ranks);
  const std::uint64_t e = t.elem_bytes;
  const std::uint64_t c_bytes = t.m * t.n * e;  // the real bytes of C
  REQUIRE(trace.ranks == ranks);
  // Version 8: the K-loop's compute ops give their shared-memory demand (it also has load_async, version 3, and the
  // BSP variant a collective kernel, version 4).
  CHECK(trace.version == tr::kComputeDemandVersion);

  pt::Ledger ledger(trace);
  const pt::ReductionCheck check =
      pt::check_reduction(trace, {"A_shard", "B_shard"}, "C", [&](const pt::ExecutedOp& op) { ledger.add(op); });
  CHECK_MESSAGE(!check.problem, check.problem.value_or(""));
  CHECK(ledger.waits_released());

  const double gemm_flops = 2.0 * static_cast<double>(t.tiles_m() * t.block_m) *
                            static_cast<double>(t.tiles_n() * t.block_n) * static_cast<double>(t.k);
  double reduce_flops = 0;
  switch (params.variant) {
    case V::kBsp: {
      const double share = params.collective == p::BspCollective::kRing ? 1.0 / ranks : 1.0;
      reduce_flops = p::kFlopsPerAdd * (ranks - 1) * share * static_cast<double>(c_bytes / e);
      break;
    }
    case V::kOneShot:
      reduce_flops = p::kFlopsPerAdd * (ranks - 1) * static_cast<double>(t.tiles() * t.block_m * t.block_n);
      break;
    case V::kAtomics: break;  // the adds happen at the memory side
  }
  for (std::uint32_t r = 0; r < ranks; ++r) {
    CAPTURE(r);
    CHECK(check.summed_bytes[r] == static_cast<std::int64_t>(c_bytes));
    CHECK(ledger.flops(r) == doctest::Approx(gemm_flops + reduce_flops));
    // The operands: this rank's shards, read locally, A once per column of tiles, B once per row.
    CHECK(ledger.bytes(tr::OpKind::kLoad, r, r, "A_shard") == t.tiles_n() * t.m * t.k * e);
    CHECK(ledger.bytes(tr::OpKind::kLoad, r, r, "B_shard") == t.tiles_m() * t.k * t.n * e);
    CHECK(ledger.remote_bytes_by(tr::OpKind::kLoad, r, "A_shard") + ledger.remote_bytes_by(tr::OpKind::kLoad, r, "B_shard") == 0);
    const std::vector<pt::Range> own_c = ledger.ranges(tr::OpKind::kStore, r, r, "C");
    switch (params.variant) {
      case V::kBsp: {
        CHECK(pt::disjoint(ledger.ranges(tr::OpKind::kStore, r, r, "C_partial")));
        CHECK(ledger.bytes(tr::OpKind::kStore, r, r, "C_partial") == c_bytes);
        if (params.collective == p::BspCollective::kRing) {
          // 2 (R - 1) / R of C through the ring: half into the receive buffer, half into C.
          CHECK(ledger.remote_bytes_into(tr::OpKind::kStore, r, "C_scratch") == (ranks - 1) * c_bytes / ranks);
          CHECK(ledger.remote_bytes_into(tr::OpKind::kStore, r, "C") == (ranks - 1) * c_bytes / ranks);
          CHECK(ledger.remote_bytes_by(tr::OpKind::kLoad, r, "C_partial") == 0);
        } else {
          for (std::uint32_t q = 0; q < ranks; ++q) {
            CHECK(pt::partitions(ledger.ranges(tr::OpKind::kLoad, r, q, "C_partial"), 0, static_cast<std::int64_t>(c_bytes)));
          }
          CHECK(pt::partitions(own_c, 0, static_cast<std::int64_t>(c_bytes)));
        }
        break;
      }
      case V::kOneShot:
        CHECK(pt::disjoint(ledger.ranges(tr::OpKind::kStore, r, r, "C_partial")));
        CHECK(ledger.bytes(tr::OpKind::kStore, r, r, "C_partial") == c_bytes);
        for (std::uint32_t q = 0; q < ranks; ++q) {
          CHECK(ledger.bytes(tr::OpKind::kLoad, r, q, "C_partial") == c_bytes);  // every tile of every rank
          CHECK(pt::disjoint(ledger.ranges(tr::OpKind::kLoad, r, q, "C_partial")));
        }
        CHECK(pt::disjoint(own_c));
        CHECK(ledger.bytes(tr::OpKind::kStore, r, r, "C") == c_bytes);
        CHECK(ledger.remote_bytes_by(tr::OpKind::kStore, r, "C") + ledger.remote_bytes_by(tr::OpKind::kStore, r, "C_partial") == 0);
        break;
      case V::kAtomics:
        // (check_reduction's run executes the atomics as stores, so the ledger sees them so.)
        for (std::uint32_t q = 0; q < ranks; ++q) {
          CHECK(ledger.bytes(tr::OpKind::kStore, r, q, "C") == c_bytes);
          CHECK(pt::disjoint(ledger.ranges(tr::OpKind::kStore, r, q, "C")));
        }
        CHECK(ledger.bytes(tr::OpKind::kLoad, r, r, "C") == 0);
        CHECK_FALSE(trace.find_buffer("C_partial"));
        break;
    }
  }
  if (params.variant == V::kOneShot) CHECK(ledger.num_waits() == std::size_t{ranks} * (ranks - 1) * t.tiles());
  if (params.variant == V::kAtomics) CHECK(ledger.num_waits() == 0);
}

p::GemmAllReduceParams small(V variant, std::uint32_t ranks) {
  p::GemmAllReduceParams params;
  params.variant = variant;
  params.ranks = ranks;
  params.gemm.m = 256;
  params.gemm.n = 512;
  params.gemm.k = 512 * ranks;
  params.workgroups = 16;
  return params;
}

double makespan_ns(const p::GemmAllReduceParams& params, const SystemSpec& system) {
  return static_cast<double>(tessera::workloads::replay::replay_trace(p::make_gemm_all_reduce(params, system), system)
                                 .makespan_ps) /
         1e3;
}

}  // namespace

TEST_CASE("gemm_all_reduce: every rank holds the full C, each partial once, every variant on 1, 2, 4, 8 ranks") {
  const auto node = pt::mi300x_node(8);
  for (const V variant : {V::kBsp, V::kOneShot, V::kAtomics}) {
    for (std::uint32_t ranks : {1u, 2u, 4u, 8u}) {
      p::GemmAllReduceParams params = small(variant, ranks);
      check_gemm_all_reduce(params, node);
      if (variant == V::kBsp) {
        params.collective = p::BspCollective::kOneShot;
        check_gemm_all_reduce(params, node);
      }
      params.gemm.m = 100;  // one partial row-block, no remap
      params.gemm.xcd_remap = p::XcdRemap::kNone;
      check_gemm_all_reduce(params, node);
      params.gemm.m = 1;
      params.gemm.n = 200;  // partial column panel: bsp reduces C as rows
      params.addressing = p::TileAddressing::kRows;
      check_gemm_all_reduce(params, node);
      if (variant != V::kBsp) {
        params.gemm.m = 300;  // corner tile partial both ways: stored row by row in its panel
        params.addressing = p::TileAddressing::kPanels;
        check_gemm_all_reduce(params, node);
      }
    }
  }
}

TEST_CASE("gemm_all_reduce: several row groups, the last one narrower, on an H200-like pair") {
  const auto node = pt::h200_node(2);
  for (const V variant : {V::kBsp, V::kOneShot, V::kAtomics}) {
    p::GemmAllReduceParams params;
    params.variant = variant;
    params.gemm.m = 640;
    params.gemm.n = 384;
    params.gemm.k = 1024;
    params.gemm.block_m = 64;
    params.gemm.group_m = 4;  // 10 row-blocks: groups of 4, 4 and 2
    params.workgroups = 6;
    check_gemm_all_reduce(params, node);
  }
}

TEST_CASE("gemm_all_reduce one_shot: a workgroup reads a peer's tile only after that peer's flag for it") {
  const auto node = pt::mi300x_node(4);
  p::GemmAllReduceParams params = small(V::kOneShot, 4);
  params.gemm.m = 512;
  const tr::Trace trace = p::make_gemm_all_reduce(params, node);
  const p::GemmTiling t = p::tiling_of(params, 4);
  const auto tiles = static_cast<std::int64_t>(t.tiles());
  const std::uint32_t partial = *trace.find_buffer("C_partial");
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::set<std::int64_t>> waited;  // peers whose flag the tile has
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::int64_t> tile_of;           // the tile being reduced
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::int64_t> published;         // its C_partial offset
  std::set<std::pair<std::int64_t, std::int64_t>> released;
  std::uint64_t remote_loads = 0;
  bool ok = true;
  pt::walk_all(trace, [&](const pt::ExecutedOp& e) {
    const auto key = std::make_pair(e.kernel, e.wg);
    if (e.op.kind == tr::OpKind::kStore && e.op.buffer == partial) {
      waited[key].clear();
      published[key] = e.op.b;
      tile_of[key] = -1;
    }
    if (e.op.kind == tr::OpKind::kRelease) released.insert({e.op.a, e.op.b});
    if (e.op.kind == tr::OpKind::kWait) {
      const std::int64_t source = e.op.b / tiles;
      const std::int64_t tile = e.op.b % tiles;
      ok = ok && e.op.a == e.rank && (tile_of[key] == -1 || tile_of[key] == tile);
      tile_of[key] = tile;
      waited[key].insert(source);
    }
    if (e.op.kind == tr::OpKind::kLoad && e.op.buffer == partial && e.op.a != e.rank) {
      ++remote_loads;
      // The peer has published this tile (the one this workgroup just stored) for it.
      ok = ok && waited[key].count(e.op.a) == 1 && e.op.b == published[key];
    }
  });
  CHECK(ok);
  CHECK(remote_loads == 4 * 3 * t.tiles());
  std::set<std::pair<std::int64_t, std::int64_t>> expected;
  for (std::int64_t dest = 0; dest < 4; ++dest) {
    for (std::int64_t src = 0; src < 4; ++src) {
      for (std::int64_t tile = 0; src != dest && tile < tiles; ++tile) expected.insert({dest, src * tiles + tile});
    }
  }
  CHECK(released == expected);
}

TEST_CASE("gemm_all_reduce: kernels, streams and host commands of each variant") {
  const auto node = pt::mi300x_node(8);
  const std::map<V, std::vector<std::string>> expected{
      {V::kBsp, {"gemm", "all_reduce"}}, {V::kOneShot, {"gemm_all_reduce"}}, {V::kAtomics, {"gemm_all_reduce"}}};
  for (const auto& [variant, names] : expected) {
    p::GemmAllReduceParams params;
    params.variant = variant;
    const tr::Trace trace = p::make_gemm_all_reduce(params, node);
    CHECK(trace.ranks == 8);
    pt::check_host_launches(trace, names, [](const tr::Kernel& k, std::size_t) {
      CHECK(k.stream == 0);
      CHECK(k.grid == (k.name == "all_reduce" ? 16u : 304u));
    });
  }
}

TEST_CASE("gemm_all_reduce: impossible parameters are refused with their key") {
  const auto node = pt::mi300x_node(8);
  p::GemmAllReduceParams params;
  params.ranks = 9;
  CHECK_THROWS_WITH_AS(p::make_gemm_all_reduce(params, node), doctest::Contains("gemm_all_reduce.ranks"),
                       std::invalid_argument);
  params.ranks = 0;
  params.gemm.k = 36864 + 64;
  CHECK_THROWS_WITH_AS(p::make_gemm_all_reduce(params, node), doctest::Contains("gemm_all_reduce.k"),
                       std::invalid_argument);
  params.gemm.k = 36864;
  params.workgroups = 300;
  CHECK_THROWS_WITH_AS(p::make_gemm_all_reduce(params, node), doctest::Contains("gemm_all_reduce.workgroups"),
                       std::invalid_argument);
  params.workgroups = 0;
  params.gemm.n = 4600;  // a partial column panel: C is not one m x n tensor in its buffer
  CHECK_THROWS_WITH_AS(p::make_gemm_all_reduce(params, node), doctest::Contains("gemm_all_reduce.n"),
                       std::invalid_argument);
  params.variant = V::kOneShot;
  CHECK_FALSE(p::check_against_system(params, node));  // the fused variants reduce tiles, not the buffer
  params.variant = V::kBsp;
  params.addressing = p::TileAddressing::kRows;
  CHECK_FALSE(p::check_against_system(params, node));
  params.gemm.m = 7;
  params.gemm.n = 128;
  params.gemm.k = 3 * 64;
  const auto three = pt::mi300x_node(3);
  CHECK_THROWS_WITH_AS(p::make_gemm_all_reduce(params, three), doctest::Contains("gemm_all_reduce.collective"),
                       std::invalid_argument);  // 7 x 128 elements in 3 ring chunks
  params.collective = p::BspCollective::kOneShot;
  CHECK_FALSE(p::check_against_system(params, three));
}

TEST_CASE("gemm_all_reduce: the schema reads the keys") {
  namespace cfg = tessera::sim::config;
  const p::GemmAllReduceParams read = p::gemm_all_reduce_schema().read(cfg::parse_yaml(
      "{m: 64, variant: atomics, collective: one_shot, collective_chunk: 64 KiB, collective_workgroups: 8, ranks: 4, "
      "xcd_remap: none}",
      "test"));
  CHECK(read.gemm.m == 64);
  CHECK(read.gemm.n == 4608);
  CHECK(read.gemm.k == 36864);
  CHECK(read.gemm.block_n == 128);
  CHECK(read.variant == V::kAtomics);
  CHECK(read.collective == p::BspCollective::kOneShot);
  CHECK(read.collective_chunk_bytes == 64 << 10);
  CHECK(read.collective_workgroups == 8);
  CHECK(read.ranks == 4);
  CHECK(read.gemm.xcd_remap == p::XcdRemap::kNone);
  CHECK(p::GemmAllReduceParams{}.gemm.xcd_remap == p::XcdRemap::kChipletSwizzle);
  CHECK_THROWS_WITH(p::gemm_all_reduce_schema().read(cfg::parse_yaml("{variant: fused}", "test")),
                    doctest::Contains("atomics"));
}

TEST_CASE("gemm_all_reduce replayed: no variant beats the idealised machine, on 1, 2, 4 and 8 ranks") {
  for (std::uint32_t ranks : {1u, 2u, 4u, 8u}) {
    const SystemSpec system = tessera::test::mi300x(ranks);
    for (const V variant : {V::kBsp, V::kOneShot, V::kAtomics}) {
      CAPTURE(ranks);
      CAPTURE(variant_name(variant));
      const p::GemmAllReduceParams params = small(variant, ranks);
      const double e = 2.0;
      const double m = static_cast<double>(params.gemm.m);
      const double n = static_cast<double>(params.gemm.n);
      const double k_s = static_cast<double>(params.gemm.k / ranks);
      // One rank: its K slice's FLOPs at peak; the others' contributions to its share of C
      // ((R - 1) / R of C, the least any all-reduce receives) over all its links at once; its
      // shards and C through HBM once.
      const double compute_ns = 2 * m * n * k_s / tessera::models::peak_fp16_flops_per_s(system.gpu) * 1e9;
      const double links = system.interconnect.link_bandwidth_bytes_per_s * system.interconnect.links_per_gpu;
      const double link_ns = ranks > 1 ? e * m * n * (ranks - 1) / ranks / links * 1e9 : 0.0;
      const double hbm_ns = e * (m * k_s + k_s * n + m * n) / system.gpu.memory.hbm_bandwidth_bytes_per_s * 1e9;
      const double bound = std::max({compute_ns, link_ns, hbm_ns});
      const double t = makespan_ns(params, system);
      CHECK(t >= bound);
      CHECK(t < 1e3 * bound);
    }
  }
}

TEST_CASE("gemm_all_reduce replayed: bsp pays its two serial launches, the fused variants one") {
  const std::int64_t launch_ps = 20'000'000;  // 20 us: far above anything else in these runs
  const auto with_launch = [&](const p::GemmAllReduceParams& params, std::int64_t latency_ps) {
    SystemSpec s = tessera::test::mi300x(2);
    s.gpu.dispatch.kernel_launch_latency_ps = latency_ps;
    return makespan_ns(params, s);
  };
  const double l_ns = static_cast<double>(launch_ps) / 1e3;
  p::GemmAllReduceParams one_shot_collective = small(V::kBsp, 2);
  one_shot_collective.collective = p::BspCollective::kOneShot;
  for (const auto& [case_params, serial] : {std::pair{small(V::kBsp, 2), 2}, std::pair{one_shot_collective, 2},
                                            std::pair{small(V::kOneShot, 2), 1}, std::pair{small(V::kAtomics, 2), 1}}) {
    const p::GemmAllReduceParams& params = case_params;  // CAPTURE cannot take a structured binding in clang 14
    CAPTURE(variant_name(params.variant));
    const double with = with_launch(params, launch_ps);
    const double without = with_launch(params, 0);
    CHECK(with >= serial * l_ns);
    CHECK(with - without >= serial * l_ns * 0.95);
    CHECK(with - without <= serial * l_ns * 1.05 + 1e3);
  }
}

// The speed target: the default size on 8 MI300X replays in a few seconds. K_STEPS (environment,
// default 8) sets k_steps_per_op, to compare the coarsening.
TEST_CASE("gemm_all_reduce: default size (8192 x 4608 x 36864, 8 ranks) replay time (run with --no-skip)" *
          doctest::skip()) {
  const SystemSpec system = tessera::test::mi300x(8);
  const char* env = std::getenv("K_STEPS");
  const std::uint32_t k_steps = env != nullptr ? static_cast<std::uint32_t>(std::atoi(env)) : 8;
  for (const V variant : {V::kBsp, V::kOneShot, V::kAtomics}) {
    for (const auto collective : {p::BspCollective::kRing, p::BspCollective::kOneShot}) {
      if (variant != V::kBsp && collective == p::BspCollective::kOneShot) continue;
      p::GemmAllReduceParams params;
      params.variant = variant;
      params.collective = collective;
      params.k_steps_per_op = k_steps;
      const auto start = std::chrono::steady_clock::now();
      const tr::Trace trace = p::make_gemm_all_reduce(params, system);
      const std::uint64_t ops = pt::walk_all(trace);
      const double walk_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const auto r = tessera::workloads::replay::replay_trace(trace, system);
      MESSAGE(fmt::format("gemm_all_reduce {}{} (k_steps_per_op {}): {} ops per rank (walk {:.2f} s); replay {:.2f} s wall, {} events "
                          "({:.2f} M events/s), makespan {:.1f} us",
                          variant_name(variant),
                          variant == V::kBsp ? (collective == p::BspCollective::kRing ? " ring" : " one_shot") : "",
                          k_steps, ops / 8, walk_s, r.wall_s, r.events, static_cast<double>(r.events) / r.wall_s / 1e6,
                          static_cast<double>(r.makespan_ps) / 1e6));
    }
  }
}

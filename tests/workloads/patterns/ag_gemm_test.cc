// All-Gather + GEMM, the three variants: every rank receives exactly (ranks - 1) / ranks of A
// (by the ring, by remote loads, or by remote stores), stores every C tile once, issues the
// GEMM's FLOPs, keeps its addresses in bounds, and (push) waits for each block before reading
// it; the whole trace runs to completion without reading anything before it arrived.
#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <set>

#include <fmt/format.h>

#include "ledger.h"
#include "sim/config/yaml_reader.h"
#include "host_launches.h"
#include "choice_name.h"
#include "test_systems.h"
#include "untimed_run.h"
#include "workloads/patterns/ag_gemm.h"

namespace p = tessera::workloads::patterns;
namespace pt = tessera::workloads::patterns::test;
namespace tr = tessera::workloads::trace;

namespace {

std::string_view variant_name(p::AgGemmVariant v) { return pt::choice_name(p::ag_gemm_variant_choices(), v); }

void check_ag_gemm(const p::AgGemmParams& params, const tessera::models::SystemSpec& system) {
  CAPTURE(variant_name(params.variant));
  CAPTURE(params.gemm.m);
  CAPTURE(params.ranks);
  CAPTURE(static_cast<int>(params.addressing));
  const tr::Trace trace = p::make_ag_gemm(params, system);
  const std::uint32_t ranks = p::ranks_of(params, system);
  const p::GemmTiling t = p::tiling_of(params);
  const std::uint64_t e = t.elem_bytes;
  const std::uint64_t shard = t.m * (t.k / ranks) * e;
  REQUIRE(trace.ranks == ranks);

  pt::Ledger ledger(trace);
  const pt::RunReport run = pt::run_untimed(trace, [&](const pt::ExecutedOp& op) { ledger.add(op); });
  CHECK(run.completed);
  CHECK_MESSAGE(!run.violation, run.violation.value_or(""));
  CHECK(ledger.waits_released());

  const double padded = 2.0 * static_cast<double>(t.tiles_m() * t.block_m) *
                        static_cast<double>(t.tiles_n() * t.block_n) * static_cast<double>(t.k);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    CAPTURE(r);
    // C: each tile once, on this rank.
    CHECK(pt::disjoint(ledger.ranges(tr::OpKind::kStore, r, r, "C")));
    CHECK(ledger.bytes(tr::OpKind::kStore, r, r, "C") == t.m * t.n * e);
    for (std::uint32_t q = 0; q < ranks; ++q) {
      if (q != r) CHECK(ledger.bytes(tr::OpKind::kStore, r, q, "C") == 0);
    }
    CHECK(ledger.flops(r) == doctest::Approx(padded));
    if (t.m % t.block_m == 0) {
      CHECK(ledger.flops(r) == doctest::Approx(2.0 * static_cast<double>(t.m) * static_cast<double>(t.n) *
                                               static_cast<double>(t.k)));
    }
    // B: every tile reads its column panel once, locally.
    CHECK(ledger.bytes(tr::OpKind::kLoad, r, r, "B") == t.tiles_m() * t.k * t.n * e);

    // A: (ranks - 1) / ranks of it arrives from the peers, each peer's shard exactly once.
    switch (params.variant) {
      case p::AgGemmVariant::kBsp:
      case p::AgGemmVariant::kPush: {
        const std::string inbox = params.variant == p::AgGemmVariant::kBsp ? "A_gathered" : "A_inbox";
        CHECK(ledger.remote_bytes_into(tr::OpKind::kStore, r, inbox) == (ranks - 1) * shard);
        for (std::uint32_t q = 0; q < ranks; ++q) {
          if (params.variant == p::AgGemmVariant::kPush || q == r) {
            // Push: source q writes slot q itself. BSP: the own slot is a local copy; the others
            // come round the ring (checked in all_gather_test), so check their union here.
            const auto slot = ledger.ranges(tr::OpKind::kStore, q, r, inbox);
            CHECK(pt::partitions(slot, static_cast<std::int64_t>(q * shard), static_cast<std::int64_t>((q + 1) * shard)));
          }
        }
        if (params.variant == p::AgGemmVariant::kBsp && params.concat) {
          CHECK(ledger.bytes(tr::OpKind::kStore, r, r, "A") == ranks * shard);
          CHECK(ledger.bytes(tr::OpKind::kLoad, r, r, "A") == t.tiles_n() * ranks * shard);
        } else {
          CHECK(ledger.bytes(tr::OpKind::kLoad, r, r, inbox) == t.tiles_n() * ranks * shard);
        }
        CHECK(ledger.remote_bytes_by(tr::OpKind::kLoad, r, "A_shard") == 0);
        break;
      }
      case p::AgGemmVariant::kPull:
        CHECK(ledger.remote_bytes_by(tr::OpKind::kLoad, r, "A_shard") == t.tiles_n() * (ranks - 1) * shard);
        CHECK(ledger.bytes(tr::OpKind::kLoad, r, r, "A_shard") == t.tiles_n() * shard);
        for (std::uint32_t q = 0; q < ranks; ++q) {
          CHECK(pt::union_bytes(ledger.ranges(tr::OpKind::kLoad, r, q, "A_shard")) ==
                static_cast<std::int64_t>(shard));
        }
        CHECK(ledger.num_waits() == 0);
        break;
    }
  }
}

// Push: in every consumer workgroup, each load of the inbox lies inside the range acquired by
// the wait just before it (the wait precedes its loads).
void check_push_waits_precede_loads(const tr::Trace& trace) {
  const std::uint32_t inbox = *trace.find_buffer("A_inbox");
  std::map<std::pair<std::uint32_t, std::uint64_t>, pt::Range> last_acquire;
  std::uint64_t loads = 0;
  bool ok = true;
  pt::walk_all(trace, [&](const pt::ExecutedOp& e) {
    const auto key = std::make_pair(e.kernel, e.wg);
    if (e.op.kind == tr::OpKind::kWait && e.op.buffer == inbox) last_acquire[key] = {e.op.d, e.op.d + e.op.e};
    if (tr::is_load(e.op.kind) && e.op.buffer == inbox) {
      ++loads;
      auto it = last_acquire.find(key);
      if (it == last_acquire.end() || e.op.b < it->second.first || e.op.b + e.op.c > it->second.second) ok = false;
    }
  });
  CHECK(loads > 0);
  CHECK(ok);
}

}  // namespace

TEST_CASE("ag_gemm: conservation for every variant on 1, 2, 4, 8 ranks") {
  const auto node = pt::mi300x_node(8);
  for (const p::AgGemmVariant variant : {p::AgGemmVariant::kBsp, p::AgGemmVariant::kPull, p::AgGemmVariant::kPush}) {
    for (std::uint32_t ranks : {1u, 2u, 4u, 8u}) {
      p::AgGemmParams params;
      params.variant = variant;
      params.ranks = ranks;
      params.gemm.m = 256;
      params.gemm.n = 512;
      params.gemm.k = 1024;
      params.workgroups = 16;
      check_ag_gemm(params, node);
      params.gemm.m = 100;  // one partial row-block (the public benchmarks take M from 1 up)
      params.peer_order = p::PeerOrder::kStaggered;
      params.gemm.xcd_remap = p::XcdRemap::kChipletSwizzle;
      check_ag_gemm(params, node);
      params.gemm.m = 1;
      params.addressing = p::TileAddressing::kRows;
      check_ag_gemm(params, node);
    }
  }
}

TEST_CASE("ag_gemm: rows addressing, several row-blocks, last group narrower") {
  const auto node = pt::mi300x_node(4);
  for (const p::AgGemmVariant variant : {p::AgGemmVariant::kBsp, p::AgGemmVariant::kPull, p::AgGemmVariant::kPush}) {
    p::AgGemmParams params;
    params.variant = variant;
    params.gemm.m = 300;
    params.gemm.n = 192;
    params.gemm.k = 512;
    params.gemm.block_m = 64;
    params.gemm.group_m = 4;  // 5 row-blocks: a group of 4 and one of 1
    params.workgroups = 8;
    params.addressing = p::TileAddressing::kRows;
    check_ag_gemm(params, node);
    params.addressing = p::TileAddressing::kPanels;
    check_ag_gemm(params, node);
  }
}

TEST_CASE("ag_gemm bsp: one-shot collective, no concat") {
  const auto node = pt::h200_node(2);
  p::AgGemmParams params;
  params.gemm.m = 512;
  params.gemm.n = 256;
  params.gemm.k = 1024;
  params.collective = p::BspCollective::kOneShot;
  params.concat = false;
  check_ag_gemm(params, node);
  const tr::Trace trace = p::make_ag_gemm(params, node);
  CHECK_FALSE(trace.find_buffer("A"));
  CHECK(trace.kernels.size() == 2 * 2);  // all_gather + gemm per rank
}

TEST_CASE("ag_gemm push: waits precede the loads of their inbox range") {
  const auto node = pt::mi300x_node(8);
  p::AgGemmParams params;
  params.variant = p::AgGemmVariant::kPush;
  params.gemm.m = 512;
  params.gemm.n = 512;
  params.gemm.k = 2048;
  check_push_waits_precede_loads(p::make_ag_gemm(params, node));
  params.addressing = p::TileAddressing::kRows;
  params.gemm.m = 40;
  check_push_waits_precede_loads(p::make_ag_gemm(params, node));
}

TEST_CASE("ag_gemm push: the producer releases exactly block_flag(source, m-tile, k-tile) on every rank") {
  const auto node = pt::mi300x_node(4);
  p::AgGemmParams params;
  params.variant = p::AgGemmVariant::kPush;
  params.gemm.m = 600;
  params.gemm.k = 2048;
  params.peer_order = p::PeerOrder::kStaggered;
  const tr::Trace trace = p::make_ag_gemm(params, node);
  const p::GemmTiling t = p::tiling_of(params);
  const std::uint32_t steps = static_cast<std::uint32_t>(t.k / 4 / t.block_k);
  std::set<std::pair<std::int64_t, std::int64_t>> released;
  std::uint64_t releases = 0;
  pt::walk_all(trace, [&](const pt::ExecutedOp& e) {
    if (e.op.kind != tr::OpKind::kRelease) return;
    ++releases;
    CHECK(e.op.c == 1);
    released.insert({e.op.a, e.op.b});
  });
  std::set<std::pair<std::int64_t, std::int64_t>> expected;
  for (std::uint32_t dest = 0; dest < 4; ++dest) {
    for (std::uint32_t src = 0; src < 4; ++src) {
      for (std::uint64_t pm = 0; pm < t.tiles_m(); ++pm) {
        for (std::uint64_t kk = 0; kk < steps; ++kk) {
          expected.insert({dest, static_cast<std::int64_t>(p::block_flag(0, t, steps, src, pm, kk))});
        }
      }
    }
  }
  CHECK(released == expected);
  CHECK(releases == expected.size());  // each once
}

TEST_CASE("ag_gemm: kernels, streams and host commands of each variant") {
  const auto node = pt::mi300x_node(8);
  p::AgGemmParams params;
  std::map<p::AgGemmVariant, std::vector<std::string>> expected{
      {p::AgGemmVariant::kBsp, {"all_gather", "concat", "gemm"}},
      {p::AgGemmVariant::kPull, {"gemm"}},
      {p::AgGemmVariant::kPush, {"push_shards", "gemm"}}};
  for (const auto& [variant, names] : expected) {
    params.variant = variant;
    const tr::Trace trace = p::make_ag_gemm(params, node);
    CHECK(trace.ranks == 8);
    pt::check_host_launches(trace, names, [](const tr::Kernel& k, std::size_t) {
      CHECK(k.stream == 0);
      if (k.name == "gemm") CHECK(k.grid == 304);
      if (k.name == "push_shards") CHECK(k.grid == 4 * 16);  // tiles_m x (k / ranks / block_k)
    });
  }
}

TEST_CASE("ag_gemm: impossible parameters are refused with their key") {
  const auto node = pt::mi300x_node(8);
  p::AgGemmParams params;
  params.ranks = 9;
  CHECK_THROWS_WITH_AS(p::make_ag_gemm(params, node), doctest::Contains("ag_gemm.ranks"), std::invalid_argument);
  params.ranks = 0;
  params.gemm.k = 8192 + 64;  // a multiple of block_k, not of ranks x block_k
  CHECK_THROWS_WITH_AS(p::make_ag_gemm(params, node), doctest::Contains("ag_gemm.k"), std::invalid_argument);
  params.gemm.k = 8192;
  params.workgroups = 300;
  params.gemm.xcd_remap = p::XcdRemap::kChipletSwizzle;
  CHECK_THROWS_WITH_AS(p::make_ag_gemm(params, node), doctest::Contains("ag_gemm.workgroups"),
                       std::invalid_argument);
  params.workgroups = 0;
  CHECK_FALSE(p::check_against_system(params, node));
  CHECK_THROWS_WITH_AS(p::make_ag_gemm(params, pt::mi300x_node(3)), doctest::Contains("ag_gemm.k"),
                       std::invalid_argument);  // 8192 / 3 ranks
}

TEST_CASE("ag_gemm: the schema reads the keys") {
  namespace cfg = tessera::sim::config;
  const p::AgGemmParams read = p::ag_gemm_schema().read(cfg::parse_yaml(
      "{m: 64, variant: push, peer_order: staggered, collective: one_shot, collective_chunk: 64 KiB, concat: false, "
      "ranks: 4}",
      "test"));
  CHECK(read.gemm.m == 64);
  CHECK(read.gemm.n == 3584);
  CHECK(read.gemm.k == 8192);
  CHECK(read.gemm.block_n == 64);
  CHECK(read.variant == p::AgGemmVariant::kPush);
  CHECK(read.peer_order == p::PeerOrder::kStaggered);
  CHECK(read.collective == p::BspCollective::kOneShot);
  CHECK(read.collective_chunk_bytes == 64 << 10);
  CHECK_FALSE(read.concat);
  CHECK(read.ranks == 4);
  CHECK_THROWS_WITH(p::ag_gemm_schema().read(cfg::parse_yaml("{variant: fused}", "test")), doctest::Contains("push"));
}

TEST_CASE("ag_gemm: default size (1024 x 3584 x 8192, 8 ranks) walks well under a second") {
  const auto node = pt::mi300x_node(8);
  for (const p::AgGemmVariant variant : {p::AgGemmVariant::kBsp, p::AgGemmVariant::kPull, p::AgGemmVariant::kPush}) {
    p::AgGemmParams params;
    params.variant = variant;
    const auto start = std::chrono::steady_clock::now();
    const tr::Trace trace = p::make_ag_gemm(params, node);
    const auto built = std::chrono::steady_clock::now();
    const std::uint64_t ops = pt::walk_all(trace);
    const auto walked = std::chrono::steady_clock::now();
    const double build_s = std::chrono::duration<double>(built - start).count();
    const double walk_s = std::chrono::duration<double>(walked - built).count();
    MESSAGE(fmt::format("ag_gemm {} (panels): {} instructions, {} ops over 8 ranks ({} per rank), build {:.4f} s, "
                        "walk {:.3f} s",
                        variant_name(variant), tr::stats_of(trace).instructions, ops, ops / 8, build_s, walk_s));
    CHECK(walk_s < 1.0);
  }
}

TEST_CASE("ag_gemm: default size with rows addressing (slow: run with --no-skip)" * doctest::skip()) {
  const auto node = pt::mi300x_node(8);
  for (const p::AgGemmVariant variant : {p::AgGemmVariant::kBsp, p::AgGemmVariant::kPull, p::AgGemmVariant::kPush}) {
    p::AgGemmParams params;
    params.variant = variant;
    params.addressing = p::TileAddressing::kRows;
    const tr::Trace trace = p::make_ag_gemm(params, node);
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t ops = pt::walk_all(trace);
    const double walk_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    MESSAGE(fmt::format("ag_gemm {} (rows): {} ops over 8 ranks, walk {:.2f} s", variant_name(variant), ops, walk_s));
  }
}

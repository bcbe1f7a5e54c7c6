// Distributed flash decode, the three variants: every rank streams exactly its own KV shard
// from local HBM, issues the split-KV FLOPs, writes every partial once, receives every peer's
// combined partials exactly once (by the ring or by pushes), reads each after its flag, writes
// the output once; the flags are the ones the variant promises; and a replay on a test system
// neither beats the hardware's bounds nor skips a kernel launch.
#include <doctest/doctest.h>

#include <sys/resource.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "ledger.h"
#include "sim/config/yaml_reader.h"
#include "tests/support/test_systems.h"
#include "host_launches.h"
#include "choice_name.h"
#include "test_systems.h"
#include "untimed_run.h"
#include "workloads/patterns/flash_decode.h"
#include "workloads/patterns/flash_decode_kernels.h"
#include "workloads/replay/replay.h"

namespace p = tessera::workloads::patterns;
namespace pt = tessera::workloads::patterns::test;
namespace tr = tessera::workloads::trace;
namespace topo = tessera::test;

namespace {

constexpr p::FlashDecodeVariant kVariants[] = {p::FlashDecodeVariant::kBsp, p::FlashDecodeVariant::kFusedCoarse,
                                               p::FlashDecodeVariant::kFused};

std::string_view variant_name(p::FlashDecodeVariant v) { return pt::choice_name(p::flash_decode_variant_choices(), v); }

// A small problem: 2 sequences, 16 query heads on 2 KV heads (group 8), 8 splits of 8 blocks,
// 3 blocks per op (two full ops and a shorter one).
p::FlashDecodeParams small(p::FlashDecodeVariant variant, std::uint32_t ranks) {
  p::FlashDecodeParams params;
  params.variant = variant;
  params.ranks = ranks;
  params.batch = 2;
  params.q_heads = 16;
  params.kv_heads = 2;
  params.head_dim = 64;
  params.kv_len_per_rank = 4096;
  params.kv_splits = 8;
  params.block_n = 64;
  params.blocks_per_op = 3;
  return params;
}

// One ledger per kernel name, so that each kernel's traffic is checked on its own.
struct Ledgers {
  explicit Ledgers(const tr::Trace& t) : trace(t), all(t) {}
  void add(const pt::ExecutedOp& op) {
    all.add(op);
    by_kernel.try_emplace(trace.kernels[op.kernel].name, trace).first->second.add(op);
  }
  const pt::Ledger& of(const std::string& kernel) {
    return by_kernel.try_emplace(kernel, trace).first->second;
  }
  const tr::Trace& trace;
  pt::Ledger all;
  std::map<std::string, pt::Ledger> by_kernel;
};

void check_flash_decode(const p::FlashDecodeParams& params, const tessera::models::SystemSpec& system) {
  CAPTURE(variant_name(params.variant));
  CAPTURE(params.ranks);
  CAPTURE(params.batch);
  CAPTURE(params.shared_kv);
  const tr::Trace trace = p::make_flash_decode(params, system);
  const std::uint32_t ranks = p::ranks_of(params, system);
  const p::FlashDecodeLayout l = p::layout_of(params, ranks);
  REQUIRE(trace.ranks == ranks);
  const bool bsp = params.variant == p::FlashDecodeVariant::kBsp;
  const bool coarse = params.variant == p::FlashDecodeVariant::kFusedCoarse;
  const std::uint64_t e = p::element_bytes(params.dtype);
  const std::uint64_t row = std::uint64_t{params.head_dim} * e;
  const std::uint64_t record = row + e;
  const std::uint64_t tiles = std::uint64_t{params.batch} * params.q_heads;
  const std::uint64_t shard = tiles * record;
  const std::uint64_t group = params.q_heads / params.kv_heads;
  const std::uint64_t heads_per_wg = std::min<std::uint64_t>(group, params.block_h);
  const std::uint64_t kv_unique = (params.shared_kv ? 1 : params.batch) * params.kv_heads * params.kv_len_per_rank * row;

  Ledgers ledgers(trace);
  std::uint64_t seq = 0;
  // Coarse: when each source's last push into each destination and its pair-flag release ran.
  std::map<std::pair<std::uint32_t, std::int64_t>, std::uint64_t> last_push;
  std::map<std::pair<std::uint32_t, std::int64_t>, std::uint64_t> pair_release;
  std::map<std::tuple<std::int64_t, std::int64_t>, std::int64_t> counter_adds;
  std::multiset<std::tuple<std::int64_t, std::int64_t, std::int64_t>> counter_waits;
  // Fused: each (source, destination, tile) push and its flag's release.
  std::map<std::tuple<std::uint32_t, std::int64_t, std::int64_t>, std::uint64_t> tile_push;
  std::map<std::tuple<std::uint32_t, std::int64_t, std::int64_t>, std::uint64_t> tile_release;
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::uint64_t> last_wg_push;
  bool late_count = false;
  const std::uint32_t gathered = *trace.find_buffer("gathered");
  pt::Ledger flag_ledger(trace);
  const pt::RunReport run = pt::run_untimed(trace, [&](const pt::ExecutedOp& op) {
    ledgers.add(op);
    ++seq;
    const std::string& kernel = trace.kernels[op.kernel].name;
    if (!(kernel == "combine_push" && op.op.kind == tr::OpKind::kWait)) flag_ledger.add(op);
    if (kernel != "combine_push") return;
    if (op.op.kind == tr::OpKind::kStore && op.op.buffer == gathered) {
      last_push[{op.rank, op.op.a}] = seq;
      last_wg_push[{op.rank, op.wg}] = seq;
      tile_push[{op.rank, op.op.a, (op.op.b - static_cast<std::int64_t>(op.rank * shard)) / static_cast<std::int64_t>(record)}] = seq;
    }
    if (op.op.kind == tr::OpKind::kRelease) {
      pair_release[{op.rank, op.op.a}] = seq;
      tile_release[{op.rank, op.op.a, op.op.b - static_cast<std::int64_t>(op.rank * tiles)}] = seq;
    }
    if (op.op.kind == tr::OpKind::kAtomicAdd) {
      counter_adds[{op.op.a, op.op.b}] += op.op.c;
      // A workgroup counts itself only after its own pushes.
      if (last_wg_push[{op.rank, op.wg}] == 0 || last_wg_push[{op.rank, op.wg}] > seq) late_count = true;
    }
    if (op.op.kind == tr::OpKind::kWait) counter_waits.insert({op.op.a, op.op.b, op.op.c});
  });
  CHECK(run.completed);
  CHECK_MESSAGE(!run.violation, run.violation.value_or(""));
  // Every wait has its release (the coarse arrival counter, reached by atomic adds, apart).
  CHECK(flag_ledger.waits_released());

  const pt::Ledger& split = ledgers.of("split_kv");
  const pt::Ledger& combine = ledgers.of(bsp ? "combine" : "combine_push");
  const pt::Ledger& reduce = ledgers.of("global_reduce");
  const std::uint64_t expected_flops = std::uint64_t{params.batch} * (params.q_heads / heads_per_wg) *
                                       params.kv_len_per_rank * 4 * params.block_h * params.head_dim;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    CAPTURE(r);
    // Split-KV: the own shard, locally; each (sequence, KV head) token run once per workgroup
    // column of its group; the padded matrix FLOPs.
    for (const char* kv : {"K", "V"}) {
      CAPTURE(kv);
      CHECK(split.bytes(tr::OpKind::kLoad, r, r, kv) ==
            std::uint64_t{params.batch} * (params.q_heads / heads_per_wg) * params.kv_len_per_rank * row);
      CHECK(pt::union_bytes(split.ranges(tr::OpKind::kLoad, r, r, kv)) == static_cast<std::int64_t>(kv_unique));
      CHECK(ledgers.all.remote_bytes_by(tr::OpKind::kLoad, r, kv) == 0);
    }
    CHECK(split.bytes(tr::OpKind::kLoad, r, r, "Q") == tiles * params.kv_splits * row);
    CHECK(ledgers.all.flops(r) == doctest::Approx(static_cast<double>(expected_flops)));
    CHECK(ledgers.all.flops(r) == doctest::Approx(l.issued_flops_per_rank()));
    if (heads_per_wg == params.block_h) CHECK(ledgers.all.flops(r) == doctest::Approx(l.useful_flops_per_rank()));
    // Partials: every record written once, read once by the combine.
    CHECK(pt::partitions(split.ranges(tr::OpKind::kStore, r, r, "partials"), 0,
                         static_cast<std::int64_t>(tiles * params.kv_splits * record)));
    CHECK(pt::partitions(combine.ranges(tr::OpKind::kLoad, r, r, "partials"), 0,
                         static_cast<std::int64_t>(tiles * params.kv_splits * record)));
    // The exchange: the own slot locally, every peer's slot exactly once from that peer.
    if (bsp) {
      CHECK(pt::partitions(combine.ranges(tr::OpKind::kStore, r, r, "combined"), 0, static_cast<std::int64_t>(shard)));
      const pt::Ledger& ag = ledgers.of("all_gather");
      CHECK(ag.remote_bytes_into(tr::OpKind::kStore, r, "gathered") == (ranks - 1) * shard);
      CHECK(ag.remote_bytes_by(tr::OpKind::kStore, r, "gathered") == (ranks - 1) * shard);
      CHECK(pt::partitions(ag.ranges(tr::OpKind::kStore, r, r, "gathered"), static_cast<std::int64_t>(r * shard),
                           static_cast<std::int64_t>((r + 1) * shard)));
    } else {
      CHECK(combine.remote_bytes_into(tr::OpKind::kStore, r, "gathered") == (ranks - 1) * shard);
      CHECK(combine.remote_bytes_by(tr::OpKind::kStore, r, "gathered") == (ranks - 1) * shard);
      for (std::uint32_t q = 0; q < ranks; ++q) {
        CHECK(pt::partitions(combine.ranges(tr::OpKind::kStore, q, r, "gathered"), static_cast<std::int64_t>(q * shard),
                             static_cast<std::int64_t>((q + 1) * shard)));
      }
    }
    // The reduce reads every slot's records once, locally, and writes the output once.
    CHECK(pt::partitions(reduce.ranges(tr::OpKind::kLoad, r, r, "gathered"), 0,
                         static_cast<std::int64_t>(ranks * shard)));
    CHECK(reduce.remote_bytes_by(tr::OpKind::kLoad, r, "gathered") == 0);
    CHECK(pt::partitions(reduce.ranges(tr::OpKind::kStore, r, r, "O"), 0, static_cast<std::int64_t>(tiles * row)));
  }
  if (coarse) {
    // The arrival counter of every rank counts the whole grid, and the last workgroup waits for
    // exactly that; each pair flag is released after the source's last push into that rank.
    for (std::uint32_t r = 0; r < ranks; ++r) {
      const auto counter = static_cast<std::int64_t>(p::arrival_counter(l, 0));
      CHECK(counter_adds[{r, counter}] == static_cast<std::int64_t>(tiles));
      CHECK(counter_waits.count({r, counter, static_cast<std::int64_t>(tiles)}) == 1);
      for (std::uint32_t d = 0; d < ranks; ++d) {
        CAPTURE(d);
        REQUIRE(pair_release.count({r, d}) == 1);
        CHECK(pair_release[{r, d}] > last_push[{r, d}]);
      }
    }
    CHECK(counter_waits.size() == ranks);
    CHECK_FALSE(late_count);
  }
  if (params.variant == p::FlashDecodeVariant::kFused) {
    // Every tile's flag on every destination is released once, after that tile's push there.
    CHECK(tile_release.size() == ranks * ranks * tiles);
    CHECK(tile_push.size() == tile_release.size());
    bool ordered = true;
    for (const auto& [key, at] : tile_release) ordered = ordered && tile_push.count(key) && tile_push[key] < at;
    CHECK(ordered);
  }
}

// The flags each variant releases: (home rank, id) pairs, each exactly once.
void check_flags(const p::FlashDecodeParams& params, const tessera::models::SystemSpec& system) {
  CAPTURE(variant_name(params.variant));
  const tr::Trace trace = p::make_flash_decode(params, system);
  const std::uint32_t ranks = p::ranks_of(params, system);
  const p::FlashDecodeLayout l = p::layout_of(params, ranks);
  std::multiset<std::pair<std::int64_t, std::int64_t>> released;
  std::multiset<std::pair<std::int64_t, std::int64_t>> waited;
  pt::walk_all(trace, [&](const pt::ExecutedOp& e) {
    if (trace.kernels[e.kernel].name == "all_gather") return;
    if (e.op.kind == tr::OpKind::kRelease) {
      CHECK(e.op.c == 1);
      released.insert({e.op.a, e.op.b});
    }
    if (e.op.kind == tr::OpKind::kWait && trace.kernels[e.kernel].name == "global_reduce") {
      CHECK(e.op.a == e.rank);
      waited.insert({e.op.a, e.op.b});
    }
  });
  std::multiset<std::pair<std::int64_t, std::int64_t>> expected;
  std::multiset<std::pair<std::int64_t, std::int64_t>> expected_waits;
  for (std::uint32_t d = 0; d < ranks; ++d) {
    for (std::uint32_t s = 0; s < ranks; ++s) {
      switch (params.variant) {
        case p::FlashDecodeVariant::kBsp: break;
        case p::FlashDecodeVariant::kFusedCoarse:
          expected.insert({d, static_cast<std::int64_t>(p::pair_flag(0, s))});
          // Every reduce workgroup waits once per source.
          for (std::uint64_t t = 0; t < l.tiles(); ++t) expected_waits.insert({d, static_cast<std::int64_t>(p::pair_flag(0, s))});
          break;
        case p::FlashDecodeVariant::kFused:
          for (std::uint32_t b = 0; b < params.batch; ++b) {
            for (std::uint32_t h = 0; h < params.q_heads; ++h) {
              const auto flag = static_cast<std::int64_t>(p::tile_flag(l, 0, s, b, h));
              expected.insert({d, flag});
              expected_waits.insert({d, flag});
            }
          }
          break;
      }
    }
  }
  CHECK(released == expected);
  CHECK(waited == expected_waits);
}

// Push variants: in every reduce workgroup, each load of `gathered` lies inside the range the
// wait just before it acquired.
void check_waits_precede_loads(const tr::Trace& trace) {
  const std::uint32_t gathered = *trace.find_buffer("gathered");
  std::map<std::pair<std::uint32_t, std::uint64_t>, pt::Range> last_acquire;
  std::uint64_t loads = 0;
  bool ok = true;
  pt::walk_all(trace, [&](const pt::ExecutedOp& e) {
    if (trace.kernels[e.kernel].name != "global_reduce") return;
    const auto key = std::make_pair(e.kernel, e.wg);
    if (e.op.kind == tr::OpKind::kWait) {
      CHECK(e.op.buffer == gathered);
      last_acquire[key] = {e.op.d, e.op.d + e.op.e};
    }
    if (e.op.kind == tr::OpKind::kLoad && e.op.buffer == gathered) {
      ++loads;
      auto it = last_acquire.find(key);
      if (it == last_acquire.end() || e.op.b < it->second.first || e.op.b + e.op.c > it->second.second) ok = false;
      last_acquire.erase(key);  // one wait per load
    }
  });
  CHECK(loads > 0);
  CHECK(ok);
}

std::uint64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // kilobytes on Linux
}

}  // namespace

TEST_CASE("flash_decode: conservation and ordering for every variant on 1, 2, 4, 8 ranks") {
  const auto node = pt::mi300x_node(8);
  for (const p::FlashDecodeVariant variant : kVariants) {
    for (std::uint32_t ranks : {1u, 2u, 4u, 8u}) {
      p::FlashDecodeParams params = small(variant, ranks);
      check_flash_decode(params, node);
      // One sequence; one op per KV block; the Iris benchmark's shared cache; staggered peers.
      params.batch = 1;
      params.blocks_per_op = 1;
      params.shared_kv = true;
      params.peer_order = p::PeerOrder::kStaggered;
      check_flash_decode(params, node);
      // A GQA group wider than block_h (two workgroups per KV head), 3 sequences, fp32.
      params = small(variant, ranks);
      params.batch = 3;
      params.q_heads = 64;
      params.kv_heads = 2;
      params.block_h = 16;
      params.dtype = tessera::models::compute::Dtype::kFp32;
      params.blocks_per_op = 100;  // more than a split has: one op per split
      check_flash_decode(params, node);
    }
  }
}

TEST_CASE("flash_decode: each variant releases and waits on exactly its flags") {
  const auto node = pt::mi300x_node(4);
  for (const p::FlashDecodeVariant variant : kVariants) {
    p::FlashDecodeParams params = small(variant, 0);
    check_flags(params, node);
    params.peer_order = p::PeerOrder::kStaggered;
    params.batch = 3;
    check_flags(params, node);
    if (variant != p::FlashDecodeVariant::kBsp) check_waits_precede_loads(p::make_flash_decode(params, node));
  }
}

TEST_CASE("flash_decode: kernels, streams, grids and host commands of each variant") {
  const auto node = pt::mi300x_node(8);
  std::map<p::FlashDecodeVariant, std::vector<std::string>> expected{
      {p::FlashDecodeVariant::kBsp, {"split_kv", "combine", "all_gather", "global_reduce"}},
      {p::FlashDecodeVariant::kFusedCoarse, {"split_kv", "combine_push", "global_reduce"}},
      {p::FlashDecodeVariant::kFused, {"split_kv", "combine_push", "global_reduce"}}};
  for (const auto& [variant, names] : expected) {
    p::FlashDecodeParams params;  // the defaults: batch 1, 96 / 12 heads, 32 splits
    params.variant = variant;
    const tr::Trace trace = p::make_flash_decode(params, node);
    CHECK(trace.ranks == 8);
    CHECK(trace.find_buffer("combined").has_value() == (variant == p::FlashDecodeVariant::kBsp));
    pt::check_host_launches(trace, names, [](const tr::Kernel& k, std::size_t) {
      CHECK(k.stream == 0);
      if (k.name == "split_kv") CHECK(k.grid == 1 * 12 * 32);  // (batch, kv heads, splits): Iris's grid
      if (k.name == "combine" || k.name == "combine_push" || k.name == "global_reduce") CHECK(k.grid == 96);
    });
  }
}

TEST_CASE("flash_decode: a replay neither beats the hardware nor skips a launch") {
  // 4 MI300X, 2 sequences x 16 heads x 8K tokens per rank: 16 MiB of KV per rank.
  auto system = topo::mi300x(4);
  system.gpu.dispatch.kernel_launch_latency_ps = 3'000'000;  // 3 us, large against the work
  std::map<p::FlashDecodeVariant, double> makespan_ps;
  for (const p::FlashDecodeVariant variant : kVariants) {
    CAPTURE(variant_name(variant));
    p::FlashDecodeParams params = small(variant, 0);
    params.head_dim = 128;
    params.kv_len_per_rank = 8192;
    params.blocks_per_op = 4;
    const p::FlashDecodeLayout l = p::layout_of(params, 4);
    const tr::Trace trace = p::make_flash_decode(params, system);
    const auto result = tessera::workloads::replay::replay_trace(trace, system);
    REQUIRE(result.complete);
    for (const auto& k : result.kernels) CHECK(k.completed);
    const double t = static_cast<double>(result.makespan_ps);
    makespan_ps[variant] = t;
    // Compute at peak, K and V from HBM at peak (each byte once: nothing is cached before).
    const double compute_ps = l.issued_flops_per_rank() / tessera::models::peak_fp16_flops_per_s(system.gpu) * 1e12;
    const double hbm_ps = 2.0 * static_cast<double>(l.kv_bytes()) / system.gpu.memory.hbm_bandwidth_bytes_per_s * 1e12;
    // The peers' partials over all of a GPU's links at peak.
    const double link_ps = 3.0 * static_cast<double>(l.combined_bytes()) /
                           (system.interconnect.links_per_gpu * system.interconnect.link_bandwidth_bytes_per_s) * 1e12;
    CHECK(t >= compute_ps);
    CHECK(t >= hbm_ps);
    CHECK(t >= link_ps);
    // One stream: every kernel's launch latency is paid in turn.
    const std::size_t launches = variant == p::FlashDecodeVariant::kBsp ? 4 : 3;
    CHECK(t >= static_cast<double>(launches * system.gpu.dispatch.kernel_launch_latency_ps));
    CHECK(t >= static_cast<double>(launches * system.gpu.dispatch.kernel_launch_latency_ps) + hbm_ps);
    MESSAGE(fmt::format("flash_decode {} on 4 x MI300X: {:.2f} us (HBM bound {:.2f} us), {} events",
                        variant_name(variant), t / 1e6, hbm_ps / 1e6, result.events));
  }
  // With a launch as long as the work, BSP's extra collective kernel costs more than the flags.
  CHECK(makespan_ps[p::FlashDecodeVariant::kBsp] > makespan_ps[p::FlashDecodeVariant::kFused]);
  CHECK(makespan_ps[p::FlashDecodeVariant::kBsp] > makespan_ps[p::FlashDecodeVariant::kFusedCoarse]);
}

TEST_CASE("flash_decode: impossible parameters are refused with their key") {
  const auto node = pt::mi300x_node(8);
  p::FlashDecodeParams params;
  params.ranks = 9;
  CHECK_THROWS_WITH_AS(p::make_flash_decode(params, node), doctest::Contains("flash_decode.ranks"),
                       std::invalid_argument);
  params.ranks = 0;
  CHECK_FALSE(p::check_against_system(params, node));
  params.kv_len_per_rank = 32768 + 64;  // a multiple of block_n, not of kv_splits x block_n
  CHECK_THROWS_WITH_AS(p::make_flash_decode(params, node), doctest::Contains("flash_decode.kv_len_per_rank"),
                       std::invalid_argument);
  params.kv_len_per_rank = 32768;
  params.kv_heads = 7;
  CHECK_THROWS_WITH_AS(p::make_flash_decode(params, node), doctest::Contains("flash_decode.q_heads"),
                       std::invalid_argument);
  params.kv_heads = 2;  // a group of 48 heads: three workgroups of block_h = 16 per KV head
  CHECK_FALSE(p::check_against_system(params, node));
  params.kv_heads = 4;  // a group of 24 heads cannot be cut into workgroups of 16
  CHECK_THROWS_WITH_AS(p::make_flash_decode(params, node), doctest::Contains("flash_decode.block_h"),
                       std::invalid_argument);
}

TEST_CASE("flash_decode: the schema reads the keys") {
  namespace cfg = tessera::sim::config;
  const p::FlashDecodeParams read = p::flash_decode_schema().read(cfg::parse_yaml(
      "{batch: 16, kv_len_per_rank: 262144, variant: fused_coarse, peer_order: staggered, blocks_per_op: 4, "
      "shared_kv: true, collective: one_shot, collective_chunk: 64 KiB, ranks: 4}",
      "test"));
  CHECK(read.batch == 16);
  CHECK(read.kv_len_per_rank == 262144);
  CHECK(read.q_heads == 96);
  CHECK(read.kv_heads == 12);
  CHECK(read.head_dim == 128);
  CHECK(read.kv_splits == 32);
  CHECK(read.block_n == 64);
  CHECK(read.block_h == 16);
  CHECK(read.blocks_per_op == 4);
  CHECK(read.shared_kv);
  CHECK(read.variant == p::FlashDecodeVariant::kFusedCoarse);
  CHECK(read.peer_order == p::PeerOrder::kStaggered);
  CHECK(read.collective == p::BspCollective::kOneShot);
  CHECK(read.collective_chunk_bytes == 64 << 10);
  CHECK(read.ranks == 4);
  CHECK_THROWS_WITH(p::flash_decode_schema().read(cfg::parse_yaml("{variant: push}", "test")),
                    doctest::Contains("fused_coarse"));
  CHECK_THROWS_WITH(p::flash_decode_schema().read(cfg::parse_yaml("{kv_len_per_rank: 1000}", "test")),
                    doctest::Contains("kv_len_per_rank"));
}

// The speed target: 8 MI300X, 256K tokens per rank, batch 16; and the default size, for
// comparison (run with --no-skip). The replay's time goes almost all into the cache model
// (25.8 GB of K and V per rank pass the L2 and MALL in 4 KiB chunks), not into the op count.
TEST_CASE("flash_decode: replay at the target size (slow: run with --no-skip)" * doctest::skip()) {
  const auto system = topo::mi300x(8);
  for (const bool target : {false, true}) {
    for (const p::FlashDecodeVariant variant : kVariants) {
      p::FlashDecodeParams params;
      params.variant = variant;
      if (target) {
        params.batch = 16;
        params.kv_len_per_rank = 262144;
      }
      const auto start = std::chrono::steady_clock::now();
      const tr::Trace trace = p::make_flash_decode(params, system);
      const std::uint64_t ops = pt::walk_all(trace);
      const double build_walk_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const auto result = tessera::workloads::replay::replay_trace(trace, system);
      MESSAGE(fmt::format("flash_decode {} (8 ranks, batch {}, {} tokens/rank, blocks_per_op {}): {} ops per rank, "
                          "makespan {:.1f} us, replay {:.2f} s, {} events, build+walk {:.2f} s, peak RSS {:.0f} MiB",
                          variant_name(variant), params.batch, params.kv_len_per_rank, params.blocks_per_op, ops / 8,
                          static_cast<double>(result.makespan_ps) / 1e6, result.wall_s, result.events, build_walk_s,
                          static_cast<double>(peak_rss_bytes()) / (1 << 20)));
    }
  }
}

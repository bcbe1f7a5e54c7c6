// Flash-Attention-2 forward: every mapping is a permutation of the (batch, head, Q block) work
// and puts it on the dies it claims to; every workgroup loads its Q block once, streams exactly
// its KV head's rows (all, or up to the diagonal when causal) in K/compute/V/compute order and
// stores its O block once, with exact bytes and FLOPs whatever the coarsening; the replay on an
// MI300X never beats compute, HBM or L2 at peak. Skipped cases measure the speed target, the
// effect of coarsening and the four mappings (run with --no-skip).
#include <doctest/doctest.h>

#include <cmath>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "ledger.h"
#include "sim/config/yaml_reader.h"
#include "choice_name.h"
#include "test_systems.h"
#include "tests/support/test_systems.h"
#include "untimed_run.h"
#include "workloads/patterns/attention.h"
#include "workloads/replay/replay.h"

namespace p = tessera::workloads::patterns;
namespace pt = tessera::workloads::patterns::test;
namespace tr = tessera::workloads::trace;
namespace rp = tessera::workloads::replay;
using tessera::models::SystemSpec;

namespace {

constexpr std::uint32_t kDies = 8;

std::string_view mapping_name(p::AttentionMapping m) { return pt::choice_name(p::attention_mapping_choices(), m); }

std::vector<p::AttentionMapping> all_mappings() {
  std::vector<p::AttentionMapping> out;
  for (const auto& [name, value] : p::attention_mapping_choices()) out.push_back(value);
  return out;
}

p::AttentionParams small(p::AttentionMapping mapping) {
  p::AttentionParams a;
  a.batch = 2;
  a.q_heads = 8;
  a.seq_len = 1024;  // 8 Q blocks, 16 KV blocks
  a.mapping = mapping;
  a.kv_blocks_per_op = 3;  // 16 = 5 x 3 + 1: whole groups and a remainder
  return a;
}

// Per workgroup, in program order: what it loaded and stored, and the FLOPs between.
struct WgLog {
  std::vector<tr::Op> ops;
};

// Checks one trace against the parameters: bytes, ranges, FLOPs and op order per workgroup.
void check_attention(const p::AttentionParams& params, const SystemSpec& system) {
  CAPTURE(mapping_name(params.mapping));
  CAPTURE(params.causal);
  CAPTURE(params.kv_blocks_per_op);
  CAPTURE(params.q_heads);
  CAPTURE(params.kv_heads);
  const tr::Trace trace = p::make_attention(params, system);
  const std::uint32_t ranks = p::ranks_of(params, system);
  const p::AttentionShape s = p::shape_of(params);
  REQUIRE(trace.ranks == ranks);
  REQUIRE(trace.kernels.size() == ranks);

  pt::Ledger ledger(trace);
  std::map<std::pair<std::uint32_t, std::uint64_t>, WgLog> logs;
  const pt::RunReport run = pt::run_untimed(trace, [&](const pt::ExecutedOp& e) {
    ledger.add(e);
    logs[{e.rank, e.wg}].ops.push_back(e.op);
  });
  CHECK(run.completed);
  CHECK_MESSAGE(!run.violation, run.violation.value_or(""));
  CHECK(ledger.num_waits() == 0);

  const auto q_bytes = static_cast<std::int64_t>(s.q_bytes());
  const auto kv_bytes = static_cast<std::int64_t>(s.kv_bytes());
  std::uint64_t kv_streamed = 0;
  double flops = 0;
  for (std::uint64_t wg = 0; wg < s.grid.workgroups(); ++wg) {
    const std::uint64_t blocks = p::kv_blocks_of(params, p::attention_coord(s.grid, kDies, params.mapping, wg).q_block);
    kv_streamed += blocks * s.kv_block_bytes;
    flops += static_cast<double>(blocks) * s.flops_per_kv_block;
  }
  if (!params.causal) CHECK(flops == doctest::Approx(4.0 * params.batch * params.q_heads * static_cast<double>(params.seq_len) *
                                                     static_cast<double>(params.seq_len) * params.head_dim));

  for (std::uint32_t r = 0; r < ranks; ++r) {
    CAPTURE(r);
    // Q read once, O written once, each block by one workgroup.
    CHECK(pt::partitions(ledger.ranges(tr::OpKind::kLoad, r, r, "Q"), 0, q_bytes));
    CHECK(pt::partitions(ledger.ranges(tr::OpKind::kStore, r, r, "O"), 0, q_bytes));
    // K and V: exactly the streamed bytes, covering every KV head (all of it unless causal).
    for (const char* buffer : {"K", "V"}) {
      CHECK(ledger.bytes(tr::OpKind::kLoad, r, r, buffer) == kv_streamed);
      const std::int64_t covered = pt::union_bytes(ledger.ranges(tr::OpKind::kLoad, r, r, buffer));
      if (params.causal) {
        CHECK(covered <= kv_bytes);
      } else {
        CHECK(covered == kv_bytes);
      }
    }
    CHECK(ledger.flops(r) == doctest::Approx(flops));
    // Nothing crosses GPUs, nothing else is touched.
    for (const char* buffer : {"Q", "K", "V", "O"}) {
      CHECK(ledger.remote_bytes_by(tr::OpKind::kLoad, r, buffer) == 0);
      CHECK(ledger.remote_bytes_by(tr::OpKind::kStore, r, buffer) == 0);
    }
    CHECK(ledger.bytes(tr::OpKind::kStore, r, r, "Q") == 0);
    CHECK(ledger.bytes(tr::OpKind::kLoad, r, r, "O") == 0);
  }

  // Per workgroup: the Q load, the KV groups in order, the O store. Blocking loads (prefetch
  // off): per group of c blocks (the remainder last) K load, compute, V load, compute. Prefetch
  // (one KV block ahead): K and V of block 0 requested after Q; H = (n - 1) / c full groups and
  // a last group of P = n - H c blocks; per group: wait for K, request K of the group's blocks
  // shifted by one (c blocks, the last group's P - 1, none when that is 0), compute, the same
  // for V; then, when c > 1, wait for both before the store. K and V loads are the same rows of
  // the workgroup's KV head, in order from row 0 without gaps, and each compute is 2 x block_m x
  // block_n x head_dim per KV block of its group.
  const std::uint32_t q_buf = *trace.find_buffer("Q");
  const std::uint32_t k_buf = *trace.find_buffer("K");
  const std::uint32_t v_buf = *trace.find_buffer("V");
  const std::uint32_t o_buf = *trace.find_buffer("O");
  const tr::OpKind kv_load = params.prefetch ? tr::OpKind::kLoadAsync : tr::OpKind::kLoad;
  const std::uint64_t c = p::kv_blocks_per_op_of(params, system);
  bool order_ok = true;
  bool place_ok = true;
  for (const auto& [key, log] : logs) {
    const p::AttentionCoord coord = p::attention_coord(s.grid, kDies, params.mapping, key.second);
    const std::uint64_t bh = coord.batch * params.q_heads + coord.head;
    const auto q_first = static_cast<std::int64_t>(bh * s.head_bytes + coord.q_block * s.q_block_bytes);
    const auto kv_first = static_cast<std::int64_t>(bh / s.group * s.head_bytes);
    const std::uint64_t blocks = p::kv_blocks_of(params, coord.q_block);
    // Blocks per product and per K (or V) load, and the expected sequence of op kinds (K or V
    // loads told apart below).
    std::vector<std::uint64_t> group_blocks, load_blocks;
    std::vector<tr::OpKind> expected = {tr::OpKind::kLoad};
    if (params.prefetch) {
      const std::uint64_t full = (blocks - 1) / c;
      const std::uint64_t last = blocks - full * c;
      expected.insert(expected.end(), {kv_load, kv_load});
      load_blocks.push_back(1);
      for (std::uint64_t g = 0; g <= full; ++g) {
        const std::uint64_t next = g < full ? c : last - 1;
        group_blocks.push_back(g < full ? c : last);
        if (next != 0) load_blocks.push_back(next);
        for (int product = 0; product < 2; ++product) {
          expected.push_back(tr::OpKind::kWaitLoad);
          if (next != 0) expected.push_back(kv_load);
          expected.push_back(tr::OpKind::kCompute);
        }
      }
      if (c > 1) expected.insert(expected.end(), {tr::OpKind::kWaitLoad, tr::OpKind::kWaitLoad});
    } else {
      for (std::uint64_t first = 0; first < blocks; first += c) {
        group_blocks.push_back(std::min(c, blocks - first));
        load_blocks.push_back(group_blocks.back());
        expected.insert(expected.end(), {kv_load, tr::OpKind::kCompute, kv_load, tr::OpKind::kCompute});
      }
    }
    expected.push_back(tr::OpKind::kStore);
    const auto& ops = log.ops;
    std::vector<tr::OpKind> kinds;
    std::vector<const tr::Op*> k_loads, v_loads, products;
    for (const tr::Op& op : ops) {
      kinds.push_back(op.kind);
      if (op.kind == kv_load && op.buffer == k_buf) k_loads.push_back(&op);
      if (op.kind == kv_load && op.buffer == v_buf) v_loads.push_back(&op);
      if (op.kind == tr::OpKind::kCompute) products.push_back(&op);
    }
    if (kinds != expected || k_loads.size() != load_blocks.size() || v_loads.size() != load_blocks.size() ||
        products.size() != 2 * group_blocks.size()) {
      order_ok = false;
      continue;
    }
    place_ok &= ops.front().buffer == q_buf && ops.front().b == q_first &&
                ops.front().c == static_cast<std::int64_t>(s.q_block_bytes);
    place_ok &= ops.back().buffer == o_buf && ops.back().b == q_first &&
                ops.back().c == static_cast<std::int64_t>(s.q_block_bytes);
    std::int64_t next = kv_first;
    for (std::size_t i = 0; i < load_blocks.size(); ++i) {
      const tr::Op& k = *k_loads[i];
      const tr::Op& v = *v_loads[i];
      place_ok &= k.b == next && v.b == next && k.c == v.c &&
                  k.c == static_cast<std::int64_t>(load_blocks[i] * s.kv_block_bytes);
      if (params.prefetch) place_ok &= k.slot == 0 && v.slot == 1;
      next += k.c;
    }
    place_ok &= next == kv_first + static_cast<std::int64_t>(blocks * s.kv_block_bytes);
    for (std::size_t g = 0; g < group_blocks.size(); ++g) {
      const tr::Op& qk = *products[2 * g];
      const tr::Op& pv = *products[2 * g + 1];
      place_ok &= qk.a == pv.a &&
                  static_cast<double>(qk.a) == static_cast<double>(group_blocks[g]) * s.flops_per_kv_block / 2;
    }
  }
  CHECK(order_ok);
  CHECK(place_ok);
}

// The die each launched workgroup runs on (round robin, chunk 1) and what it computes.
struct Placed {
  std::uint32_t die = 0;
  std::uint64_t order = 0;  // its position in its die's dispatch order
  p::AttentionCoord coord;
};

std::vector<Placed> placement(const p::AttentionGrid& grid, p::AttentionMapping mapping) {
  std::vector<Placed> out;
  for (std::uint64_t wg = 0; wg < grid.workgroups(); ++wg) {
    out.push_back({static_cast<std::uint32_t>(wg % kDies), wg / kDies, p::attention_coord(grid, kDies, mapping, wg)});
  }
  return out;
}

double peak_bound_s(const p::AttentionParams& params, const SystemSpec& system) {
  const p::AttentionShape s = p::shape_of(params);
  double flops = 0;
  double loaded = 0;
  for (std::uint64_t m = 0; m < s.grid.q_blocks; ++m) {
    const auto blocks = static_cast<double>(p::kv_blocks_of(params, m));
    flops += blocks * s.flops_per_kv_block;
    loaded += 2 * blocks * static_cast<double>(s.kv_block_bytes) + static_cast<double>(s.q_block_bytes);
  }
  const auto per_qblock_heads = static_cast<double>(params.batch * params.q_heads);
  flops *= per_qblock_heads;
  loaded *= per_qblock_heads;
  const auto& gpu = system.gpu;
  const double compute_s = flops / tessera::models::peak_fp16_flops_per_s(gpu);
  // Every input byte comes from HBM at least once (the caches start cold).
  const double hbm_s = static_cast<double>(s.q_bytes() + 2 * s.kv_bytes()) / gpu.memory.hbm_bandwidth_bytes_per_s;
  // Every loaded byte passes an L2 (hit or fill) and a CU port.
  const double l2_s = loaded / (gpu.memory.l2.bandwidth_bytes_per_s * gpu.compute.num_dies);
  const double port_s = loaded / (gpu.fabric.cu_port_bytes_per_clock * gpu.compute.clock_hz *
                                  tessera::models::total_compute_units(gpu));
  return std::max({compute_s, hbm_s, l2_s, port_s});
}

}  // namespace

TEST_CASE("attention: every mapping is a permutation of (batch, head, Q block)") {
  for (const p::AttentionGrid grid : {p::AttentionGrid{2, 16, 8}, p::AttentionGrid{1, 4, 6}, p::AttentionGrid{3, 8, 1},
                                   p::AttentionGrid{1, 5, 3}}) {
    for (const p::AttentionMapping m : all_mappings()) {
      CAPTURE(mapping_name(m));
      CAPTURE(grid.q_heads);
      if (p::attention_mapping_problem(grid, kDies, m)) {
        // Only a swizzle of a grid that is no multiple of the dies is refused.
        CHECK(grid.workgroups() % kDies != 0);
        CHECK((m == p::AttentionMapping::kSwizzledBlockFirst || m == p::AttentionMapping::kSwizzledHeadFirst));
        continue;
      }
      std::set<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>> seen;
      for (std::uint64_t wg = 0; wg < grid.workgroups(); ++wg) {
        const p::AttentionCoord c = p::attention_coord(grid, kDies, m, wg);
        CHECK(c.batch < grid.batch);
        CHECK(c.head < grid.q_heads);
        CHECK(c.q_block < grid.q_blocks);
        seen.insert({c.batch, c.head, c.q_block});
      }
      CHECK(seen.size() == grid.workgroups());
    }
  }
  CHECK(p::attention_mapping_problem({1, 5, 3}, kDies, p::AttentionMapping::kSwizzledHeadFirst));
  CHECK_FALSE(p::attention_mapping_problem({1, 5, 3}, kDies, p::AttentionMapping::kNaiveHeadFirst));
}

TEST_CASE("attention: what each mapping puts on the dies (16 heads x 16 Q blocks, 8 dies)") {
  const p::AttentionGrid grid{1, 16, 16};
  const auto dies_of_head = [&](const std::vector<Placed>& placed) {
    std::map<std::uint64_t, std::set<std::uint32_t>> dies;
    for (const Placed& w : placed) dies[w.coord.head].insert(w.die);
    return dies;
  };
  // How many times a die's dispatch order switches from one head to another.
  const auto head_switches = [&](const std::vector<Placed>& placed, std::uint32_t die) {
    std::vector<const Placed*> order;
    for (const Placed& w : placed) {
      if (w.die == die) order.push_back(&w);
    }
    std::sort(order.begin(), order.end(), [](const Placed* a, const Placed* b) { return a->order < b->order; });
    int switches = 0;
    for (std::size_t i = 1; i < order.size(); ++i) switches += order[i]->coord.head != order[i - 1]->coord.head;
    return switches;
  };

  SUBCASE("swizzled_head_first: every block of a head on one die, one head at a time") {
    const auto placed = placement(grid, p::AttentionMapping::kSwizzledHeadFirst);
    for (const auto& [head, dies] : dies_of_head(placed)) {
      CHECK(dies.size() == 1);
      CHECK(*dies.begin() == head / 2);  // heads [2d, 2d + 2) on die d
    }
    for (std::uint32_t d = 0; d < kDies; ++d) CHECK(head_switches(placed, d) == 1);  // 2 heads, one after the other
  }
  SUBCASE("naive_block_first: every block of a head on one die, the die's heads interleaved") {
    const auto placed = placement(grid, p::AttentionMapping::kNaiveBlockFirst);
    for (const auto& [head, dies] : dies_of_head(placed)) {
      CHECK(dies.size() == 1);
      CHECK(*dies.begin() == head % kDies);
    }
    for (std::uint32_t d = 0; d < kDies; ++d) CHECK(head_switches(placed, d) == 31);  // alternates every workgroup
  }
  SUBCASE("naive_head_first: every head on every die, all dies on the same head") {
    const auto placed = placement(grid, p::AttentionMapping::kNaiveHeadFirst);
    for (const auto& [head, dies] : dies_of_head(placed)) CHECK(dies.size() == kDies);
    for (const Placed& w : placed) {
      CHECK(w.coord.head == w.order / 2);  // the k-th workgroup of every die: head k / 2
      CHECK(w.coord.q_block % kDies == w.die);
    }
  }
  SUBCASE("swizzled_block_first: die d takes Q blocks [2d, 2d + 2) of every head") {
    const auto placed = placement(grid, p::AttentionMapping::kSwizzledBlockFirst);
    for (const auto& [head, dies] : dies_of_head(placed)) CHECK(dies.size() == kDies);
    for (const Placed& w : placed) CHECK(w.coord.q_block / 2 == w.die);
  }
}

TEST_CASE("attention GQA: swizzled_head_first keeps each KV head's group on one die") {
  const SystemSpec node = pt::mi300x_node(1);
  p::AttentionParams params;
  params.q_heads = 128;
  params.kv_heads = 8;
  params.seq_len = 512;
  params.kv_blocks_per_op = 8;
  params.mapping = p::AttentionMapping::kSwizzledHeadFirst;
  const tr::Trace trace = p::make_attention(params, node);
  const p::AttentionShape s = p::shape_of(params);
  CHECK(s.group == 16);
  const std::uint32_t k_buf = *trace.find_buffer("K");
  std::map<std::uint32_t, std::set<std::int64_t>> kv_heads_of_die;
  pt::walk_all(trace, [&](const pt::ExecutedOp& e) {
    if (tr::is_load(e.op.kind) && e.op.buffer == k_buf) {
      kv_heads_of_die[static_cast<std::uint32_t>(e.wg % kDies)].insert(e.op.b / static_cast<std::int64_t>(s.head_bytes));
    }
  });
  REQUIRE(kv_heads_of_die.size() == kDies);
  for (const auto& [die, heads] : kv_heads_of_die) CHECK(heads == std::set<std::int64_t>{die});
  CHECK(s.kv_bytes() * 16 == s.q_bytes());
}

TEST_CASE("attention: conservation for every mapping on 1, 2, 4, 8 ranks, causal or not, any coarsening") {
  const SystemSpec node = pt::mi300x_node(8);
  for (const p::AttentionMapping m : all_mappings()) {
    for (const std::uint32_t ranks : {1u, 2u, 4u, 8u}) {
      p::AttentionParams params = small(m);
      params.ranks = ranks;
      check_attention(params, node);
      params.causal = true;
      check_attention(params, node);
      params.kv_blocks_per_op = 1;
      params.kv_heads = 2;  // GQA, groups of 4
      check_attention(params, node);
      params.causal = false;
      params.kv_blocks_per_op = 64;  // more than a workgroup streams: one group each
      params.block_n = 128;          // block_m = block_n
      check_attention(params, node);
      params.prefetch = false;       // blocking loads
      check_attention(params, node);
      params.causal = true;
      params.kv_blocks_per_op = 3;
      check_attention(params, node);
    }
  }
  // ranks 0: every GPU of the system.
  p::AttentionParams params = small(p::AttentionMapping::kSwizzledHeadFirst);
  params.ranks = 0;
  CHECK(p::make_attention(params, pt::mi300x_node(4)).ranks == 4);
  // Causal with block_n > block_m: the diagonal block is shared by two Q blocks.
  params.ranks = 1;
  params.causal = true;
  params.block_m = 64;
  params.block_n = 128;
  check_attention(params, node);
}

TEST_CASE("attention: one kernel per rank on stream 0, then a sync, the grid is batch x heads x Q blocks") {
  p::AttentionParams params = small(p::AttentionMapping::kNaiveHeadFirst);
  params.ranks = 2;
  const tr::Trace trace = p::make_attention(params, pt::mi300x_node(2));
  REQUIRE(trace.kernels.size() == 2);
  for (std::uint32_t r = 0; r < 2; ++r) {
    const tr::Kernel& k = trace.kernels[trace.host[r].front().kernel];
    CHECK(k.rank == r);
    CHECK(k.stream == 0);
    CHECK(k.grid == 2 * 8 * 8);
    CHECK(trace.host[r].size() == 2);
    CHECK(trace.host[r].back().op == tr::HostOp::kSync);
  }
  CHECK(trace.find_buffer("K"));
  CHECK(trace.buffers[*trace.find_buffer("Q")].bytes == 2ULL * 8 * 1024 * 128 * 2);
}

TEST_CASE("attention: replay on an MI300X never beats compute, HBM, L2 or the CU ports at peak") {
  const SystemSpec mi300x = tessera::test::mi300x(1);
  for (const p::AttentionMapping m : all_mappings()) {
    for (const bool causal : {false, true}) {
      CAPTURE(mapping_name(m));
      CAPTURE(causal);
      p::AttentionParams params;
      params.q_heads = 16;
      params.seq_len = 2048;  // 256 workgroups of 32 KV blocks
      params.kv_blocks_per_op = 8;
      params.mapping = m;
      params.causal = causal;
      const rp::ReplayResult r = rp::replay_trace(p::make_attention(params, mi300x), mi300x);
      REQUIRE(r.complete);
      REQUIRE(r.kernels.size() == 1);
      CHECK(r.kernels[0].completed);
      CHECK(r.l2_hit_rate >= 0.0);
      CHECK(r.l2_hit_rate <= 1.0);
      const double bound_s = peak_bound_s(params, mi300x);
      CHECK(static_cast<double>(r.makespan_ps) * 1e-12 >= bound_s);
    }
  }
}

TEST_CASE("attention: impossible parameters are refused with their key") {
  const SystemSpec node = pt::mi300x_node(1);
  p::AttentionParams params = small(p::AttentionMapping::kNaiveHeadFirst);
  params.kv_heads = 3;
  CHECK_THROWS_WITH_AS(p::make_attention(params, node), doctest::Contains("attention.kv_heads"), std::invalid_argument);
  params.kv_heads = 0;
  params.seq_len = 1000;
  CHECK_THROWS_WITH_AS(p::make_attention(params, node), doctest::Contains("attention.seq_len"), std::invalid_argument);
  params.seq_len = 3 * 128;
  params.batch = 1;
  params.q_heads = 1;  // 3 workgroups: no swizzle over 8 dies
  params.mapping = p::AttentionMapping::kSwizzledHeadFirst;
  CHECK_THROWS_WITH_AS(p::make_attention(params, node), doctest::Contains("attention.mapping"), std::invalid_argument);
  params.mapping = p::AttentionMapping::kNaiveBlockFirst;
  CHECK_FALSE(p::check_against_system(params, node));
  params.ranks = 2;
  CHECK_THROWS_WITH_AS(p::make_attention(params, node), doctest::Contains("attention.ranks"), std::invalid_argument);
}

TEST_CASE("attention: the schema reads the keys") {
  namespace cfg = tessera::sim::config;
  const p::AttentionParams read = p::attention_schema().read(cfg::parse_yaml(
      "{q_heads: 64, kv_heads: 8, seq_len: 8192, causal: true, mapping: swizzled_head_first, kv_blocks_per_op: 4, "
      "batch: 2}",
      "test"));
  CHECK(read.q_heads == 64);
  CHECK(read.kv_heads == 8);
  CHECK(read.seq_len == 8192);
  CHECK(read.causal);
  CHECK(read.mapping == p::AttentionMapping::kSwizzledHeadFirst);
  CHECK(read.kv_blocks_per_op == 4);
  CHECK(read.batch == 2);
  CHECK(read.head_dim == 128);
  CHECK(read.block_m == 128);
  CHECK(read.block_n == 64);
  CHECK(read.ranks == 1);
  const p::AttentionParams defaults = p::attention_schema().read(cfg::parse_yaml("{}", "test"));
  CHECK(defaults.q_heads == 128);
  CHECK(defaults.seq_len == 131072);
  CHECK(defaults.mapping == p::AttentionMapping::kNaiveHeadFirst);
  CHECK_FALSE(defaults.causal);
  CHECK_THROWS_WITH(p::attention_schema().read(cfg::parse_yaml("{mapping: head_first}", "test")),
                    doctest::Contains("swizzled_head_first"));
  CHECK_THROWS_WITH(p::attention_schema().read(cfg::parse_yaml("{q_heads: 12, kv_heads: 8}", "test")),
                    doctest::Contains("kv_heads"));
}

// ---- Measurements (run with --no-skip; they print, they assert nothing about time). ----

namespace {

void report_replay(const std::string& label, const p::AttentionParams& params, const SystemSpec& system) {
  const auto t0 = std::chrono::steady_clock::now();
  const tr::Trace trace = p::make_attention(params, system);
  const std::uint64_t ops = pt::walk_all(trace);
  const double walk_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const rp::ReplayResult r = rp::replay_trace(trace, system);
  MESSAGE(fmt::format("{}: {} ops (walk {:.2f} s), replay wall {:.2f} s, {} events ({:.2f} M/s), makespan {:.3f} ms, "
                      "L2 hit rate {:.4f}, MALL hit rate {:.4f}",
                      label, ops, walk_s, r.wall_s, r.events, static_cast<double>(r.events) / r.wall_s / 1e6,
                      static_cast<double>(r.makespan_ps) * 1e-9, r.l2_hit_rate, r.mall_hit_rate));
}

}  // namespace

// The coarsening's fidelity (attention.h): with the K/V prefetch one block ahead, the automatic
// kv_blocks_per_op (4 at 8K tokens, 8 at 16K) stays within 1.5% of the uncoarsened makespan
// and 0.01 of its L2 hit rate at 32 heads x 8K (head-first and swizzled block-first) and 16
// heads x 16K; blocking loads drift further, because coarse ops expose the load latency once
// per 4 blocks. (The measurements at larger sizes are in docs/performance.md, round 5; this
// replays in a few seconds.)
TEST_CASE("attention: with prefetch, the automatic kv_blocks_per_op keeps the makespan and L2 hit rate of 1") {
  const SystemSpec mi300x = tessera::test::mi300x(1);
  struct Case {
    std::uint32_t heads;
    std::uint64_t seq_len;
    p::AttentionMapping mapping;
    std::uint32_t c;  // what kv_blocks_per_op 0 resolves to
  };
  for (const Case& k : {Case{32, 8192, p::AttentionMapping::kNaiveHeadFirst, 4},
                        Case{32, 8192, p::AttentionMapping::kSwizzledBlockFirst, 4},
                        Case{16, 16384, p::AttentionMapping::kNaiveHeadFirst, 8}}) {
    CAPTURE(mapping_name(k.mapping));
    CAPTURE(k.seq_len);
    const auto params_of = [&](bool prefetch, std::uint32_t c) {
      p::AttentionParams params;
      params.q_heads = k.heads;
      params.seq_len = k.seq_len;
      params.mapping = k.mapping;
      params.prefetch = prefetch;
      params.kv_blocks_per_op = c;
      return params;
    };
    const auto run = [&](bool prefetch, std::uint32_t c) {
      return rp::replay_trace(p::make_attention(params_of(prefetch, c), mi300x), mi300x);
    };
    CHECK(p::kv_blocks_per_op_of(params_of(true, 0), mi300x) == k.c);
    const rp::ReplayResult fine = run(true, 1);
    const rp::ReplayResult coarse = run(true, 0);
    const double drift = static_cast<double>(coarse.makespan_ps) / static_cast<double>(fine.makespan_ps) - 1;
    CHECK(std::fabs(drift) < 0.015);
    CHECK(std::fabs(coarse.l2_hit_rate - fine.l2_hit_rate) < 0.01);
    CHECK(coarse.events * 2 < fine.events);
    if (k.mapping != p::AttentionMapping::kNaiveHeadFirst || k.seq_len != 8192) continue;
    const rp::ReplayResult blocking_fine = run(false, 1);
    const rp::ReplayResult blocking_coarse = run(false, 4);
    const double blocking_drift =
        static_cast<double>(blocking_coarse.makespan_ps) / static_cast<double>(blocking_fine.makespan_ps) - 1;
    CHECK(std::fabs(blocking_drift) > 2 * std::fabs(drift));
    // The prefetch hides load latency: faster than the blocking kernel at the same coarsening.
    CHECK(fine.makespan_ps < blocking_fine.makespan_ps);
  }
}

// The automatic coarsening on one MI300X (38 CUs x 8 slots per XCD, 4 MiB of L2 each): S
// resident KV heads per XCD hold S (c + 1) blocks of 16 KiB of K and of V, within 6 MiB.
TEST_CASE("attention: the automatic kv_blocks_per_op keeps the K/V footprint within 1.5 L2s of a die") {
  const SystemSpec mi300x = tessera::test::mi300x(1);
  struct Case {
    std::uint32_t heads;
    std::uint32_t kv_heads;
    std::uint64_t seq_len;
    p::AttentionMapping mapping;
    bool causal;
    std::uint64_t resident;  // S
    std::uint32_t c;
  };
  using M = p::AttentionMapping;
  for (const Case& k : {
           Case{128, 0, 131072, M::kNaiveHeadFirst, false, 4, 16},  // the speed target
           Case{128, 0, 8192, M::kNaiveHeadFirst, false, 39, 2},    // 39 x 3 blocks fit, 39 x 5 do not
           Case{16, 0, 16384, M::kNaiveHeadFirst, false, 16, 8},
           Case{32, 0, 8192, M::kSwizzledBlockFirst, false, 32, 4},  // every head on every die
           Case{128, 0, 8192, M::kSwizzledBlockFirst, false, 128, 1},
           Case{32, 0, 8192, M::kNaiveBlockFirst, false, 4, 16},  // heads d, d + 8, ... on die d
           Case{64, 8, 16384, M::kNaiveHeadFirst, false, 4, 16},  // GQA: 8 q heads share a KV head
           Case{32, 0, 16384, M::kNaiveHeadFirst, true, 32, 4},   // causal: short workgroups turn over fast
       }) {
    CAPTURE(k.heads);
    CAPTURE(k.seq_len);
    CAPTURE(mapping_name(k.mapping));
    p::AttentionParams params;
    params.q_heads = k.heads;
    params.kv_heads = k.kv_heads;
    params.seq_len = k.seq_len;
    params.mapping = k.mapping;
    params.causal = k.causal;
    CHECK(p::resident_kv_heads(params, mi300x) == k.resident);
    CHECK(p::kv_blocks_per_op_of(params, mi300x) == k.c);
    params.kv_blocks_per_op = 3;  // set: as given
    CHECK(p::kv_blocks_per_op_of(params, mi300x) == 3);
  }
}

TEST_CASE("attention: speed target, 128 heads x 128K tokens on one MI300X (slow: --no-skip)" * doctest::skip()) {
  const SystemSpec mi300x = tessera::test::mi300x(1);
  report_replay("attention default (128 heads, 131072 tokens, naive_head_first)", p::AttentionParams{}, mi300x);
}

TEST_CASE("attention: coarsening at 16 and 128 heads x 16K tokens (slow: --no-skip, minutes)" * doctest::skip()) {
  const SystemSpec mi300x = tessera::test::mi300x(1);
  for (const std::uint32_t heads : {16u, 128u}) {
    for (const p::AttentionMapping m : {p::AttentionMapping::kNaiveHeadFirst, p::AttentionMapping::kSwizzledHeadFirst}) {
      for (const std::uint32_t c : {1u, 2u, 4u, 8u, 16u, 32u, 64u}) {
        p::AttentionParams params;
        params.q_heads = heads;
        params.seq_len = 16384;
        params.mapping = m;
        params.kv_blocks_per_op = c;
        report_replay(fmt::format("{} heads x 16K, {}, kv_blocks_per_op {}", heads, mapping_name(m), c), params,
                      mi300x);
      }
    }
  }
}

TEST_CASE("attention: the four mappings (slow: --no-skip)" * doctest::skip()) {
  const SystemSpec mi300x = tessera::test::mi300x(1);
  for (const auto& [heads, kv_heads, seq] : {std::tuple{32u, 0u, 16384ULL}, std::tuple{128u, 0u, 8192ULL},
                                            std::tuple{128u, 8u, 8192ULL}}) {
    for (const p::AttentionMapping m : all_mappings()) {
      p::AttentionParams params;
      params.q_heads = heads;
      params.kv_heads = kv_heads;
      params.seq_len = seq;
      params.mapping = m;  // kv_blocks_per_op: the default
      report_replay(fmt::format("{} heads (kv {}) x {} tokens, {}", heads, kv_heads == 0 ? heads : kv_heads, seq,
                                mapping_name(m)),
                    params, mi300x);
    }
  }
}

TEST_CASE("a KV block's pipe demands, counted by hand for the suite's 128 x 64 tiles at head_dim 128") {
  p::AttentionParams a;
  a.block_m = 128;
  a.block_n = 64;
  a.head_dim = 128;
  const p::KvBlockDemand d = p::kv_block_demand(a);
  // 8 waves; a K or V block is 64 x 128 x 2 = 16 KiB, stored once and read by all 8 waves.
  const std::int64_t kv = 16384;
  // + S written in fp32 and read back, both at two bank cycles per 128 bytes, P written at four (2-byte values,
  // two-way)
  CHECK(d.scores.lds_bytes == kv + 8 * kv + 2 * 4 * 128 * 64 + 2 * 4 * 128 * 64 + 4 * 128 * 64 * 2);
  // + P fragments, O through the scratch: written at two bank cycles per 128 bytes, read at one
  CHECK(d.values.lds_bytes == kv + 8 * kv + 128 * 64 * 2 + 3 * 4 * 128 * 128);
  CHECK(d.scores.lds_bytes + d.values.lds_bytes == 688 * 1024);
  // The stores alone (the demands less every read: 8 waves' K and V fragments, the softmax's S at two cycles, the P
  // fragments, the scratch at one), in 128-byte bank cycles, are what Nsight Compute counts on an H200
  // (validation/data/h200-1-ncu/attention.txt: 608,206,848 shared-store wavefronts over 262,144 KV blocks) less
  // the 16 of the row maxima and rescale factors that the model leaves out.
  const std::int64_t reads = 2 * 8 * kv + 2 * 4 * 128 * 64 + 128 * 64 * 2 + 4 * 128 * 128;
  CHECK((d.scores.lds_bytes + d.values.lds_bytes - reads) / 128 + 16 == 608206848 / 262144);
  CHECK(d.scores.sfu_ops == 128 * 64 + 128);
  CHECK(d.scores.vector_ops == 4 * 128 * 64);
  CHECK(d.values.sfu_ops == 0);
  CHECK(d.values.vector_ops == 128 * 128);
}

// One decode step of a transformer, the three variants: the presets' parameter counts against
// the published ones; every weight byte is streamed once per row block and every cached token
// once, the new tokens stored once, the FLOPs as counted by hand; a persistent kernel's producers
// are waited for (the untimed run's dataflow check) and chiplet_tasks keeps a weight tile's row
// blocks on one die; bad shapes are refused at their key; and a replay orders the variants as
// their structure says.
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include "choice_name.h"
#include "ledger.h"
#include "tests/support/test_systems.h"
#include "test_systems.h"
#include "untimed_run.h"
#include "workloads/patterns/decode.h"
#include "workloads/replay/replay.h"

namespace p = tessera::workloads::patterns;
namespace pt = tessera::workloads::patterns::test;
namespace tr = tessera::workloads::trace;

namespace {

constexpr p::DecodeVariant kVariants[] = {p::DecodeVariant::kKernelPerOp, p::DecodeVariant::kMegakernel,
                                          p::DecodeVariant::kChipletTasks};

std::string_view variant_name(p::DecodeVariant v) { return pt::choice_name(p::decode_variant_choices(), v); }

// A small model: 20 sequences (a full row block of 16 and one of 4), 4 query heads per KV head,
// 1000 cached tokens in splits of 256 (the last of 232), weight tiles in 2 KiB pieces.
p::DecodeParams small(p::DecodeVariant variant) {
  p::DecodeParams params;
  params.model = p::DecodeModelPreset::kCustom;
  params.hidden = 256;
  params.heads = 8;
  params.kv_heads = 2;
  params.head_dim = 32;
  params.intermediate = 512;
  params.layers = 2;
  params.vocab = 1024;
  params.qk_norm = true;
  params.batch = 20;
  params.context = 1000;
  params.kv_partition = 256;
  params.weight_piece_bytes = 2048;
  params.variant = variant;
  return params;
}

std::uint64_t buffer_bytes(const tr::Trace& t, const std::string& name) {
  for (const tr::Buffer& b : t.buffers) {
    if (b.name == name) return b.bytes;
  }
  FAIL("no buffer " << name);
  return 0;
}

}  // namespace

TEST_CASE("decode: the presets have their published parameter counts") {
  // Meta-Llama-3-8B: 8,030,261,248 parameters (its safetensors index); Qwen3-8B: 8.2 B of which
  // 6.95 B are not embeddings (its model card).
  const p::DecodeModel llama = *p::preset_model(p::DecodeModelPreset::kLlama3_8b);
  CHECK(llama.parameters() == 8'030'261'248ULL);
  const p::DecodeModel qwen = *p::preset_model(p::DecodeModelPreset::kQwen3_8b);
  CHECK(qwen.parameters() == doctest::Approx(8.19e9).epsilon(0.001));
  CHECK(static_cast<double>(qwen.layers * qwen.block_parameters()) == doctest::Approx(6.95e9).epsilon(0.001));
  const p::DecodeModel big = *p::preset_model(p::DecodeModelPreset::kLlama3_70b);
  CHECK(static_cast<double>(big.parameters()) == doctest::Approx(70.55e9).epsilon(0.001));
}

TEST_CASE("decode: block_n fills the GPU when it can, weight pieces halve while they stay large enough") {
  CHECK(p::decode_block_n(6144, 1, 304) == 16);    // 384 tiles of 16; 192 of 32 would leave CUs idle
  CHECK(p::decode_block_n(6144, 4, 304) == 64);    // 4 x 96 = 384 >= 304
  CHECK(p::decode_block_n(151936, 1, 304) == 128);  // 1187 tiles
  CHECK(p::decode_block_n(4104, 1, 304) == 0);  // not a multiple of 16
  CHECK(p::decode_weight_pieces(16 * 4096, 2, 64 << 10) == 2);   // 128 KiB: two of 64 KiB
  CHECK(p::decode_weight_pieces(128 * 4096, 2, 64 << 10) == 16);  // 1 MiB
  CHECK(p::decode_weight_pieces(16 * 256, 2, 64 << 10) == 1);     // 8 KiB: one piece
}

TEST_CASE("decode: every variant streams each weight once per row block, each cached token once") {
  const auto system = pt::mi300x_node(1);
  for (const p::DecodeVariant variant : kVariants) {
    CAPTURE(variant_name(variant));
    const p::DecodeParams params = small(variant);
    REQUIRE_FALSE(p::check_against_system(params, system).has_value());
    const tr::Trace t = p::make_decode(params, system);
    pt::Ledger ledger(t);
    const pt::RunReport report = pt::run_untimed(t, [&](const pt::ExecutedOp& e) { ledger.add(e); });
    CHECK(report.completed);
    CHECK_MESSAGE(!report.violation, report.violation.value_or(""));

    const std::uint64_t e = 2, b = 20, h = 256, d = 32, hq = 8, hkv = 2, inter = 512, layers = 2, vocab = 1024;
    const std::uint64_t row_blocks = 2;  // 16 + 4 sequences
    const std::uint64_t qkv_width = (hq + 2 * hkv) * d;
    for (const char* weight : {"w_qkv", "w_o", "w_gate_up", "w_down", "w_lm_head"}) {
      CAPTURE(weight);
      const auto bytes = static_cast<std::int64_t>(buffer_bytes(t, weight));
      CHECK(ledger.bytes(tr::OpKind::kLoad, 0, 0, weight) == row_blocks * bytes);
      CHECK(pt::union_bytes(ledger.ranges(tr::OpKind::kLoad, 0, 0, weight)) == bytes);
    }
    CHECK(buffer_bytes(t, "w_qkv") == layers * qkv_width * h * e);
    // The context is read once; the new token written once, then read once.
    for (const char* kv : {"k_cache", "v_cache"}) {
      CAPTURE(kv);
      const std::uint64_t cache = layers * b * hkv * 1000 * d * e;
      CHECK(buffer_bytes(t, kv) == cache);
      CHECK(ledger.bytes(tr::OpKind::kLoad, 0, 0, kv) == cache);
      CHECK(pt::union_bytes(ledger.ranges(tr::OpKind::kLoad, 0, 0, kv)) == static_cast<std::int64_t>(cache));
      CHECK(ledger.bytes(tr::OpKind::kStore, 0, 0, kv) == 0);
    }
    for (const char* kv : {"k_new", "v_new"}) {
      CAPTURE(kv);
      const std::uint64_t fresh = layers * b * hkv * d * e;
      const auto stores = ledger.ranges(tr::OpKind::kStore, 0, 0, kv);
      CHECK(pt::disjoint(stores));
      CHECK(pt::union_bytes(stores) == static_cast<std::int64_t>(fresh));
      CHECK(ledger.bytes(tr::OpKind::kLoad, 0, 0, kv) == fresh);
    }
    CHECK(pt::union_bytes(ledger.ranges(tr::OpKind::kStore, 0, 0, "logits")) ==
          static_cast<std::int64_t>(b * vocab * e));
    // Matrix FLOPs: the linears on padded row blocks (2 x 16 rows x N x K each), attention on 16
    // padded query rows x 1001 tokens per (sequence, KV head) and layer.
    // qkv_proj (K = h), o_proj (K = hq x d = h), gate_up (K = h), down (N = h, K = inter).
    const double linear_per_layer = 2.0 * 16 * row_blocks * h * (qkv_width + hq * d + 2 * inter + inter);
    const double attention_per_layer = 4.0 * 16 * d * 1001 * b * hkv;  // the context and the new token
    const double lm_head = 2.0 * 16 * row_blocks * vocab * h;
    CHECK(ledger.flops(0) == doctest::Approx(layers * (linear_per_layer + attention_per_layer) + lm_head));
  }
}

TEST_CASE("decode: chiplet_tasks keeps a weight tile's row blocks on one die, megakernel spreads them") {
  const auto system = pt::mi300x_node(1);  // round-robin dispatch, chunk 1: worker w on die w mod 8
  for (const p::DecodeVariant variant : {p::DecodeVariant::kMegakernel, p::DecodeVariant::kChipletTasks}) {
    CAPTURE(variant_name(variant));
    p::DecodeParams params = small(variant);
    params.weight_piece_bytes = 1 << 20;  // one load per weight tile
    const tr::Trace t = p::make_decode(params, system);
    REQUIRE(t.kernels.size() == 1);
    CHECK(t.kernels[0].grid == 304);
    // qkv_proj's tiles are 16 columns x 256 (block_n 16: 2 x 24 tasks cannot fill 304 CUs).
    const std::int64_t tile_bytes = 16 * 256 * 2;
    std::uint32_t w_qkv = 0;
    while (t.buffers[w_qkv].name != "w_qkv") ++w_qkv;
    std::map<std::int64_t, std::set<std::uint64_t>> dies_of_tile;
    std::map<std::uint64_t, int> tiles_per_die;
    pt::run_untimed(t, [&](const pt::ExecutedOp& e) {
      if (e.op.kind != tr::OpKind::kLoadAsync || e.op.buffer != w_qkv) return;
      const std::int64_t tile = e.op.offset() / tile_bytes;
      if (dies_of_tile[tile].insert(e.wg % 8).second && tile < 24) ++tiles_per_die[e.wg % 8];
    });
    REQUIRE(dies_of_tile.size() == 2 * 24);  // two layers
    for (const auto& entry : dies_of_tile) {
      CAPTURE(entry.first);
      CHECK(entry.second.size() == (variant == p::DecodeVariant::kChipletTasks ? 1U : 2U));
    }
    if (variant == p::DecodeVariant::kChipletTasks) {
      // 24 column tiles over 8 dies: 3 each.
      for (const auto& entry : tiles_per_die) CHECK(entry.second == 3);
    }
  }
}

TEST_CASE("decode: kernel_per_op launches a kernel per operator and layer, with the host's time under pytorch") {
  auto system = pt::mi300x_node(1);
  system.host.framework_op_ps = 17'000'000;  // the collective's cost is not needed
  p::DecodeParams params = small(p::DecodeVariant::kKernelPerOp);
  params.host = p::BspHost::kPytorch;
  const tr::Trace t = p::make_decode(params, system);
  // embedding; per layer rms_norm_attn, qkv_proj, rope_q, kv_write, attention, attn_combine,
  // o_proj, rms_norm_mlp, gate_up, act, down; final_norm, lm_head.
  CHECK(t.kernels.size() == 1 + 2 * 11 + 2);
  std::size_t delays = 0;
  std::size_t launches = 0;
  for (const tr::HostCommand& c : t.host[0]) {
    if (c.op == tr::HostOp::kDelay) {
      ++delays;
      CHECK(c.delay_ps == 17'000'000);
    }
    if (c.op == tr::HostOp::kLaunch) ++launches;
  }
  CHECK(launches == t.kernels.size());
  CHECK(delays == launches);
  CHECK(t.kernels[1].name == "rms_norm_attn");
  CHECK(t.kernels[2].name == "qkv_proj");
  CHECK(t.kernels[2].grid == 2 * 24);
  CHECK(t.kernels.back().name == "lm_head");
}

TEST_CASE("decode: impossible shapes are refused at their key") {
  const auto system = pt::mi300x_node(1);
  const auto key_of = [&](const p::DecodeParams& params) {
    const auto problem = p::check_against_system(params, system);
    return problem ? problem->key : std::string("none");
  };
  p::DecodeParams params = small(p::DecodeVariant::kMegakernel);
  CHECK(key_of(params) == "none");
  p::DecodeParams missing = params;
  missing.hidden = 0;
  CHECK(key_of(missing) == "hidden");
  p::DecodeParams groups = params;
  groups.kv_heads = 3;
  CHECK(key_of(groups) == "kv_heads");
  p::DecodeParams odd = params;
  odd.vocab = 1000;
  CHECK(key_of(odd) == "vocab");
  p::DecodeParams crowded = params;
  crowded.workers_per_cu = 9;  // a CU holds 8
  CHECK(key_of(crowded) == "workers_per_cu");
  p::DecodeParams eager = params;
  eager.host = p::BspHost::kPytorch;  // the test system has no framework cost
  CHECK(key_of(eager) == "host");
  CHECK_THROWS_WITH_AS(p::make_decode(missing, system), doctest::Contains("decode.hidden"), std::invalid_argument);
}

TEST_CASE("decode: a replay orders the variants as their structure says") {
  auto system = tessera::test::mi300x(1);
  system.gpu.dispatch.kernel_launch_latency_ps = 3'500'000;
  system.host.framework_op_ps = 17'000'000;
  p::DecodeParams params = small(p::DecodeVariant::kKernelPerOp);
  params.hidden = 1024;
  params.intermediate = 4096;
  params.heads = 16;
  params.kv_heads = 4;
  params.head_dim = 64;
  params.batch = 64;  // four row blocks share every weight tile
  params.weight_piece_bytes = 64 << 10;
  std::map<p::DecodeVariant, tessera::workloads::replay::ReplayResult> runs;
  for (const p::DecodeVariant variant : kVariants) {
    params.variant = variant;
    runs[variant] = tessera::workloads::replay::replay_trace(p::make_decode(params, system), system);
    const auto& r = runs[variant];
    REQUIRE(r.complete);
    // Never faster than streaming the weights and the caches from HBM once.
    const tr::Trace t = p::make_decode(params, system);
    double streamed = 0;
    for (const char* b : {"w_qkv", "w_o", "w_gate_up", "w_down", "w_lm_head", "k_cache", "v_cache"}) {
      streamed += static_cast<double>(buffer_bytes(t, b));
    }
    CHECK(static_cast<double>(r.makespan_ps) >= streamed / system.gpu.memory.hbm_bandwidth_bytes_per_s * 1e12);
    MESSAGE(fmt::format("{}: {:.1f} us, L2 hit {:.1f}%, HBM {:.1f} MB", variant_name(variant),
                        static_cast<double>(r.makespan_ps) / 1e6, 100 * r.l2_hit_rate,
                        static_cast<double>(r.resource_usage.at("hbm").bytes) / 1e6));
  }
  const auto& kernels = runs[p::DecodeVariant::kKernelPerOp];
  const auto& mega = runs[p::DecodeVariant::kMegakernel];
  const auto& chiplet = runs[p::DecodeVariant::kChipletTasks];
  // One launch instead of 25: the megakernel saves at least 24 kernels' launch latency.
  CHECK(kernels.makespan_ps > mega.makespan_ps);
  // The row blocks of a weight tile share it in one die's L2: more L2 hits, fewer bytes over the
  // dies' links to memory (the MALL, large enough here for every weight, serves the megakernel's
  // repeated reads: HBM moves about the same).
  CHECK(chiplet.l2_hit_rate > mega.l2_hit_rate + 0.1);
  CHECK(static_cast<double>(chiplet.resource_usage.at("die_link").bytes) <
        0.9 * static_cast<double>(mega.resource_usage.at("die_link").bytes));
}

TEST_CASE("decode: tensor parallel over two ranks streams each rank's shard and sums the partials over the ranks") {
  const auto system = pt::mi300x_node(2);
  for (const p::DecodeVariant variant : kVariants) {
    CAPTURE(variant_name(variant));
    p::DecodeParams params = small(variant);
    params.ranks = 2;
    REQUIRE_FALSE(p::check_against_system(params, system).has_value());
    const tr::Trace t = p::make_decode(params, system);
    CHECK(t.ranks == 2);
    pt::Ledger ledger(t);
    const pt::RunReport report = pt::run_untimed(t, [&](const pt::ExecutedOp& e) { ledger.add(e); });
    CHECK(report.completed);
    CHECK_MESSAGE(!report.violation, report.violation.value_or(""));
    const std::uint64_t e = 2, b = 20, h = 256, d = 32, layers = 2;
    // Per rank: 4 query heads and 1 KV head (qkv columns (4 + 2) x 32), half the MLP and the vocabulary.
    CHECK(buffer_bytes(t, "w_qkv") == layers * (4 + 2) * d * h * e);
    CHECK(buffer_bytes(t, "w_down") == layers * h * 256 * e);
    CHECK(buffer_bytes(t, "w_lm_head") == 512 * h * e);
    for (std::uint32_t r = 0; r < 2; ++r) {
      CAPTURE(r);
      const std::uint32_t peer = 1 - r;
      CHECK(ledger.bytes(tr::OpKind::kLoad, r, r, "w_qkv") == 2 * buffer_bytes(t, "w_qkv"));  // two row blocks
      CHECK(ledger.bytes(tr::OpKind::kLoad, r, peer, "w_qkv") == 0);
      // Each reduction reads every rank's partial rows once per layer: its own and its peer's.
      for (const char* partial : {"attn_partial", "mlp_partial"}) {
        CAPTURE(partial);
        CHECK(ledger.bytes(tr::OpKind::kLoad, r, peer, partial) == layers * b * h * e);
        CHECK(ledger.bytes(tr::OpKind::kLoad, r, r, partial) == layers * b * h * e);
        CHECK(ledger.bytes(tr::OpKind::kStore, r, r, partial) == layers * b * h * e);
      }
      CHECK(ledger.bytes(tr::OpKind::kStore, r, peer, "hidden") == 0);
    }
  }
}

TEST_CASE("decode: tensor parallelism must divide the model") {
  const auto system = pt::mi300x_node(4);
  p::DecodeParams params = small(p::DecodeVariant::kMegakernel);
  params.ranks = 4;  // 8 heads but 2 KV heads
  const auto problem = p::check_against_system(params, system);
  REQUIRE(problem.has_value());
  CHECK(problem->key == "ranks");
  CHECK(problem->message.find("kv_heads (2)") != std::string::npos);
  params.ranks = 8;  // more than the system's GPUs
  CHECK(p::check_against_system(params, system)->key == "ranks");
}

TEST_CASE("decode: two ranks halve the weights each GPU streams, at the cost of two reductions per layer") {
  auto system = tessera::test::mi300x(2);
  system.gpu.dispatch.kernel_launch_latency_ps = 3'500'000;
  p::DecodeParams params = small(p::DecodeVariant::kMegakernel);
  params.hidden = 2048;
  params.intermediate = 8192;
  params.heads = 16;
  params.kv_heads = 4;
  params.head_dim = 128;
  params.batch = 1;
  params.weight_piece_bytes = 64 << 10;
  const auto one = tessera::workloads::replay::replay_trace(p::make_decode(params, system), system);
  params.ranks = 2;
  const auto two = tessera::workloads::replay::replay_trace(p::make_decode(params, system), system);
  REQUIRE(one.complete);
  REQUIRE(two.complete);
  MESSAGE(fmt::format("one rank {:.1f} us, two ranks {:.1f} us", static_cast<double>(one.makespan_ps) / 1e6,
                      static_cast<double>(two.makespan_ps) / 1e6));
  // The weight-bound step gets faster, but by less than 2x: four reductions a step cross the link,
  // each after its operator has finished on both GPUs.
  CHECK(two.makespan_ps < one.makespan_ps);
  CHECK(static_cast<double>(two.makespan_ps) > 0.5 * static_cast<double>(one.makespan_ps));
  CHECK(two.link_class_bytes.at("xgmi") > 0);
}

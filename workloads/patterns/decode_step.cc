#include "workloads/patterns/decode_step.h"

#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "workloads/patterns/decode_ints.h"
#include "workloads/patterns/gemm_tiling.h"

namespace tessera::workloads::patterns {

using trace::Expr;
using trace::ProgramBuilder;

namespace {

using decode_ints::i64;
using decode_ints::u32;

// Registers of a task (decode_step.h): r1 m and r2 n, set by the schedule; r3..r6 the task's own.
constexpr int kRegM = kDecodeRegM;
constexpr int kRegN = kDecodeRegN;
constexpr int kRegA = 3;
constexpr int kRegB = 4;
constexpr int kRegC = 5;
constexpr int kRegD = 6;

Expr reg(int r) { return trace::reg(r); }

// `full` minus `shortfall` for the last of `count` pieces (index in `index_reg`), `full` for the
// others: the size of a piece when the last one is partial.
Expr last_shorter(std::uint64_t full, std::uint64_t shortfall, int index_reg, std::uint64_t count) {
  Expr e(i64(full));
  if (shortfall == 0) return e;
  if (count == 1) return Expr(i64(full - shortfall));
  return e + trace::div(reg(index_reg), u32(count - 1)) * -i64(shortfall);
}

void input(ProgramBuilder& p, const DecodeTaskContext& ctx, std::uint32_t buffer, const Expr& offset,
           const Expr& bytes) {
  if (ctx.before_input) ctx.before_input(p, buffer, offset, bytes);
  p.load(buffer, trace::rank(), offset, bytes);
}

void append_linear(ProgramBuilder& p, const DecodeStep& s, const DecodeOp& op, const DecodeTaskContext& ctx) {
  const std::uint64_t e = s.elem_bytes();
  const std::uint64_t bm = s.shape.block_m;
  const std::uint64_t rows_short = bm * op.tiles_m - s.shape.batch;
  const Expr row_at = reg(kRegM) * i64(bm * op.n * e) + trace::loop(ctx.depth) * i64(op.n * e) +
                      reg(kRegN) * i64(op.block_n * e);  // row i(depth) of the tile in the output
  p.set(kRegA, last_shorter(bm, rows_short, kRegM, op.tiles_m));  // rows of this tile
  // The tile's input rows (and the residual's) on their way while the first weight piece is.
  const Expr in_at = reg(kRegM) * i64(bm * op.k * e);
  const Expr in_bytes = reg(kRegA) * i64(op.k * e);
  if (ctx.before_input) ctx.before_input(p, op.input, in_at, in_bytes);
  p.load_async(op.input, trace::rank(), in_at, in_bytes, 1);
  if (op.residual) {
    p.loop(reg(kRegA));
    p.load_async(op.output, trace::rank(), row_at, i64(op.block_n * e), 1);
    p.end_loop();
  }

  const std::uint64_t steps = op.weight_pieces;
  const std::uint64_t piece = std::uint64_t{op.block_n} * op.k * e / steps;
  const std::int64_t flops = i64(2 * bm * op.block_n * op.k / steps);
  const Expr layer_base = op.per_layer ? ctx.layer * i64(op.n * op.k * e) : Expr(0);
  p.set(kRegB, layer_base + reg(kRegN) * i64(op.block_n * op.k * e));
  p.load_async(op.weight, trace::rank(), reg(kRegB), i64(piece), 0);
  p.wait_load(1);
  if (steps > 1) {
    p.loop(i64(steps - 1));
    p.wait_load(0);
    p.load_async(op.weight, trace::rank(), reg(kRegB) + trace::loop(ctx.depth) * i64(piece) + Expr(i64(piece)),
                 i64(piece), 0);
    p.compute(flops, s.shape.dtype);
    p.end_loop();
  }
  p.wait_load(0);
  p.compute(flops, s.shape.dtype);

  // The epilogue, row by row (the rows of a tile are apart by the output's row).
  p.loop(reg(kRegA));
  p.store(op.output, trace::rank(), row_at, i64(op.block_n * e));
  p.end_loop();
}

void append_attention(ProgramBuilder& p, const DecodeStep& s, const DecodeTaskContext& ctx) {
  const DecodeModel& m = s.shape.model;
  const DecodeBuffers& buf = s.buffers;
  const std::uint64_t e = s.elem_bytes();
  const std::uint64_t b = s.shape.batch;
  const std::uint64_t d = m.head_dim;
  const std::uint64_t g = m.group();
  const std::uint64_t row = d * e;
  // Query rows padded to the matrix unit's 16 (a decode kernel's tile of the group's heads).
  const std::uint64_t rows = 16 * ((g + 15) / 16);
  // t = b + B * (kv_head + Hkv * split).
  p.set(kRegA, trace::mod(reg(kRegN), u32(b)));
  p.set(kRegB, trace::mod(trace::div(reg(kRegN), u32(b)), m.kv_heads));
  p.set(kRegC, trace::div(reg(kRegN), u32(b * m.kv_heads)));
  input(p, ctx, buf.q, reg(kRegA) * i64(m.q_width() * e) + reg(kRegB) * i64(g * row), i64(g * row));

  const std::uint64_t part = s.splits == 1 ? s.shape.context : s.shape.kv_partition;
  const std::uint64_t short_tokens = part * s.splits - s.shape.context;
  p.set(kRegD, ctx.layer * i64(s.layer_cache_bytes()) + reg(kRegA) * i64(m.kv_heads * s.shape.context * row) +
                   reg(kRegB) * i64(s.shape.context * row));
  p.set(kRegD, reg(kRegD) + reg(kRegC) * i64(part * row));
  const Expr bytes = last_shorter(part * row, short_tokens * row, kRegC, s.splits);
  p.load_async(buf.k_cache, trace::rank(), reg(kRegD), bytes, 0);
  p.load_async(buf.v_cache, trace::rank(), reg(kRegD), bytes, 0);
  p.wait_load(0);
  p.compute(last_shorter(4 * rows * d * part, 4 * rows * d * short_tokens, kRegC, s.splits), s.shape.dtype);
  // The new token (kv_write stored it), in the last split.
  p.loop(s.splits == 1 ? Expr(1) : trace::div(reg(kRegC), u32(s.splits - 1)));
  const Expr new_token = ctx.layer * i64(s.layer_new_bytes()) + reg(kRegA) * i64(m.kv_width() * e) +
                         reg(kRegB) * i64(row);
  p.load(buf.k_new, trace::rank(), new_token, i64(row));
  p.load(buf.v_new, trace::rank(), new_token, i64(row));
  p.compute(i64(4 * rows * d), s.shape.dtype);
  p.end_loop();

  if (s.splits == 1) {
    p.store(buf.attn_out, trace::rank(), reg(kRegA) * i64(m.q_width() * e) + reg(kRegB) * i64(g * row), i64(g * row));
    return;
  }
  const std::uint64_t rec = s.record_bytes();
  p.set(kRegD, reg(kRegA) * i64(m.heads * s.splits * rec) + reg(kRegB) * i64(g * s.splits * rec) +
                   reg(kRegC) * i64(rec));
  p.loop(i64(g));
  p.store(buf.partials, trace::rank(), reg(kRegD) + trace::loop(ctx.depth) * i64(s.splits * rec), i64(rec));
  p.end_loop();
}

}  // namespace

void append_decode_task(ProgramBuilder& p, const DecodeStep& s, const DecodeOp& op, const DecodeTaskContext& ctx) {
  const DecodeModel& m = s.shape.model;
  const DecodeBuffers& buf = s.buffers;
  const std::uint64_t e = s.elem_bytes();
  const std::uint64_t h = m.hidden;
  const std::uint64_t b = s.shape.batch;
  const std::uint64_t row = std::uint64_t{m.head_dim} * e;
  switch (op.kind) {
    case DecodeOpKind::kEmbedding:
      // Token b's row of the table (any row: the bytes are what count).
      p.load(buf.embedding, trace::rank(), reg(kRegN) * i64(h * e), i64(h * e));
      p.store(buf.hidden, trace::rank(), reg(kRegN) * i64(h * e), i64(h * e));
      return;
    case DecodeOpKind::kRmsNorm: {
      input(p, ctx, buf.hidden, reg(kRegN) * i64(h * e), i64(h * e));
      const Expr weight = op.per_layer ? ctx.layer * i64(2 * h * e) + Expr(i64(op.weight_offset)) : Expr(0);
      p.load(op.weight, trace::rank(), weight, i64(h * e));
      p.store(buf.xn, trace::rank(), reg(kRegN) * i64(h * e), i64(h * e));
      return;
    }
    case DecodeOpKind::kLinear: append_linear(p, s, op, ctx); return;
    case DecodeOpKind::kRopeQ:
      // t = b + B * head.
      p.set(kRegA, trace::mod(reg(kRegN), u32(b)));
      p.set(kRegB, trace::div(reg(kRegN), u32(b)));
      input(p, ctx, buf.qkv, reg(kRegA) * i64(m.qkv_width() * e) + reg(kRegB) * i64(row), i64(row));
      if (m.qk_norm) p.load(buf.qk_norms, trace::rank(), ctx.layer * i64(2 * row), i64(row));
      p.store(buf.q, trace::rank(), reg(kRegA) * i64(m.q_width() * e) + reg(kRegB) * i64(row), i64(row));
      return;
    case DecodeOpKind::kKvWrite: {
      // t = b + B * kv_head; k at column Hq * D + kv_head * D of qkv, v Hkv * D further.
      p.set(kRegA, trace::mod(reg(kRegN), u32(b)));
      p.set(kRegB, trace::div(reg(kRegN), u32(b)));
      p.set(kRegC, reg(kRegA) * i64(m.qkv_width() * e) + reg(kRegB) * i64(row) + Expr(i64(m.q_width() * e)));
      input(p, ctx, buf.qkv, reg(kRegC), i64(row));
      if (m.qk_norm) p.load(buf.qk_norms, trace::rank(), ctx.layer * i64(2 * row) + Expr(i64(row)), i64(row));
      p.load(buf.qkv, trace::rank(), reg(kRegC) + Expr(i64(m.kv_width() * e)), i64(row));
      p.set(kRegD, ctx.layer * i64(s.layer_new_bytes()) + reg(kRegA) * i64(m.kv_width() * e) +
                       reg(kRegB) * i64(row));
      p.store(buf.k_new, trace::rank(), reg(kRegD), i64(row));
      p.store(buf.v_new, trace::rank(), reg(kRegD), i64(row));
      return;
    }
    case DecodeOpKind::kAttention: append_attention(p, s, ctx); return;
    case DecodeOpKind::kCombine: {
      // t = b + B * head: its splits' records are contiguous.
      const std::uint64_t records = s.splits * s.record_bytes();
      p.set(kRegA, trace::mod(reg(kRegN), u32(b)));
      p.set(kRegB, trace::div(reg(kRegN), u32(b)));
      input(p, ctx, buf.partials, reg(kRegA) * i64(m.heads * records) + reg(kRegB) * i64(records), i64(records));
      p.store(buf.attn_out, trace::rank(), reg(kRegA) * i64(m.q_width() * e) + reg(kRegB) * i64(row), i64(row));
      return;
    }
    case DecodeOpKind::kActivation: {
      const std::uint64_t i = m.intermediate;
      input(p, ctx, buf.gate_up, reg(kRegN) * i64(2 * i * e), i64(2 * i * e));
      p.store(buf.act, trace::rank(), reg(kRegN) * i64(i * e), i64(i * e));
      return;
    }
    case DecodeOpKind::kTpReduce: {
      // Every rank's partial row b, each once its producer has finished this layer there.
      const DecodeOp& producer = s.ops[op.reduces];
      const std::int64_t tasks = i64(producer.tasks());
      p.loop(i64(s.shape.ranks));
      p.wait(trace::loop(ctx.depth), i64(op.reduces), models::sync::Compare::kGe,
             ctx.layer * tasks + Expr(tasks));
      p.load(op.input, trace::loop(ctx.depth), reg(kRegN) * i64(h * e), i64(h * e));
      p.end_loop();
      p.load(buf.hidden, trace::rank(), reg(kRegN) * i64(h * e), i64(h * e));
      p.store(buf.hidden, trace::rank(), reg(kRegN) * i64(h * e), i64(h * e));
      return;
    }
  }
}

DecodeModel tensor_parallel_share(const DecodeModel& model, std::uint32_t ranks) {
  DecodeModel share = model;
  share.heads /= ranks;
  share.kv_heads /= ranks;
  share.intermediate /= ranks;
  share.vocab /= ranks;
  return share;
}

std::uint32_t DecodeStep::elem_bytes() const { return element_bytes(shape.dtype); }

std::uint64_t DecodeStep::layer_cache_bytes() const {
  return std::uint64_t{shape.batch} * shape.model.kv_width() * shape.context * elem_bytes();
}

std::uint64_t DecodeStep::layer_new_bytes() const {
  return std::uint64_t{shape.batch} * shape.model.kv_width() * elem_bytes();
}

std::uint64_t decode_weight_pieces(std::uint64_t tile_elements, std::uint32_t elem_bytes, std::uint64_t piece_bytes) {
  std::uint64_t pieces = 1;
  while (tile_elements % (2 * pieces) == 0 && tile_elements / (2 * pieces) * elem_bytes >= piece_bytes) pieces *= 2;
  return pieces;
}

std::uint32_t decode_block_n(std::uint64_t n, std::uint64_t tiles_m, std::uint64_t compute_units) {
  std::uint32_t narrowest = 0;
  for (const std::uint32_t block : {128U, 64U, 32U, 16U}) {
    if (n % block != 0) continue;
    if (tiles_m * (n / block) >= compute_units) return block;
    narrowest = block;
  }
  return narrowest;
}

DecodeStep plan_decode_step(const DecodeShape& shape, trace::TraceBuilder& tb) {
  DecodeStep s;
  s.shape = shape;
  const DecodeModel& m = shape.model;
  const std::uint64_t e = s.elem_bytes();
  const std::uint64_t b = shape.batch;
  const std::uint64_t h = m.hidden;
  const std::uint64_t l = m.layers;
  const std::uint64_t i = m.intermediate;
  s.splits = (shape.context + shape.kv_partition - 1) / shape.kv_partition;

  DecodeBuffers& buf = s.buffers;
  buf.hidden = tb.buffer("hidden", b * h * e);
  buf.xn = tb.buffer("xn", b * h * e);
  buf.qkv = tb.buffer("qkv", b * m.qkv_width() * e);
  buf.q = tb.buffer("q", b * m.q_width() * e);
  buf.partials = s.splits > 1 ? tb.buffer("partials", b * m.heads * s.splits * s.record_bytes()) : trace::kNoBuffer;
  buf.attn_out = tb.buffer("attn_out", b * m.q_width() * e);
  buf.gate_up = tb.buffer("gate_up", b * 2 * i * e);
  buf.act = tb.buffer("act", b * i * e);
  buf.logits = shape.lm_head ? tb.buffer("logits", b * m.vocab * e) : trace::kNoBuffer;
  buf.embedding = tb.buffer("embedding", std::uint64_t{m.vocab} * h * e);
  buf.w_qkv = tb.buffer("w_qkv", l * m.qkv_width() * h * e);
  buf.w_o = tb.buffer("w_o", l * h * m.q_width() * e);
  buf.w_gate_up = tb.buffer("w_gate_up", l * 2 * i * h * e);
  buf.w_down = tb.buffer("w_down", l * h * i * e);
  buf.norms = tb.buffer("norms", l * 2 * h * e);
  buf.qk_norms = m.qk_norm ? tb.buffer("qk_norms", l * 2 * m.head_dim * e) : trace::kNoBuffer;
  buf.final_norm = shape.lm_head ? tb.buffer("final_norm", h * e) : trace::kNoBuffer;
  buf.w_lm_head = shape.lm_head ? tb.buffer("w_lm_head", std::uint64_t{m.vocab} * h * e) : trace::kNoBuffer;
  buf.k_cache = tb.buffer("k_cache", l * s.layer_cache_bytes());
  buf.v_cache = tb.buffer("v_cache", l * s.layer_cache_bytes());
  buf.k_new = tb.buffer("k_new", l * s.layer_new_bytes());
  buf.v_new = tb.buffer("v_new", l * s.layer_new_bytes());
  const bool parallel = shape.ranks > 1;
  buf.attn_partial = parallel ? tb.buffer("attn_partial", b * h * e) : trace::kNoBuffer;
  buf.mlp_partial = parallel ? tb.buffer("mlp_partial", b * h * e) : trace::kNoBuffer;

  const std::uint64_t tiles_m = (b + shape.block_m - 1) / shape.block_m;
  auto add = [&s](DecodeOp op) {
    s.ops.push_back(std::move(op));
    return s.ops.size() - 1;
  };
  auto row_op = [](std::string name, DecodeOpKind kind, std::uint64_t tasks, std::vector<DecodeDep> deps) {
    DecodeOp op;
    op.name = std::move(name);
    op.kind = kind;
    op.tiles_n = tasks;
    op.deps = std::move(deps);
    return op;
  };
  auto linear = [&](std::string name, std::uint64_t n, std::uint64_t k, std::uint32_t in, std::uint32_t weight,
                    std::uint32_t out, bool residual, std::vector<DecodeDep> deps) {
    DecodeOp op;
    op.name = std::move(name);
    op.kind = DecodeOpKind::kLinear;
    op.n = n;
    op.k = k;
    op.block_n = decode_block_n(n, tiles_m, shape.compute_units);
    if (op.block_n == 0) {
      throw std::invalid_argument(fmt::format("decode.model: {}'s {} outputs are not a multiple of 16", op.name, n));
    }
    op.tiles_m = tiles_m;
    op.tiles_n = n / op.block_n;
    op.weight_pieces = decode_weight_pieces(std::uint64_t{op.block_n} * k, s.elem_bytes(), shape.weight_piece_bytes);
    op.input = in;
    op.weight = weight;
    op.output = out;
    op.residual = residual;
    op.deps = std::move(deps);
    return op;
  };

  DecodeOp embedding = row_op("embedding", DecodeOpKind::kEmbedding, b, {});
  embedding.per_layer = false;
  const std::size_t embed = add(std::move(embedding));
  DecodeOp norm_attn = row_op("rms_norm_attn", DecodeOpKind::kRmsNorm, b, {{embed, false}});
  norm_attn.weight = buf.norms;
  const std::size_t first = add(std::move(norm_attn));
  const std::size_t qkv =
      add(linear("qkv_proj", m.qkv_width(), h, buf.xn, buf.w_qkv, buf.qkv, false, {{first, false}}));
  const std::size_t rope = add(row_op("rope_q", DecodeOpKind::kRopeQ, b * m.heads, {{qkv, false}}));
  const std::size_t kv = add(row_op("kv_write", DecodeOpKind::kKvWrite, b * m.kv_heads, {{qkv, false}}));
  std::size_t attention = add(row_op("attention", DecodeOpKind::kAttention, b * m.kv_heads * s.splits,
                                     {{rope, false}, {kv, false}}));
  if (s.splits > 1) {
    attention = add(row_op("attn_combine", DecodeOpKind::kCombine, b * m.heads, {{attention, false}}));
  }
  // A linear whose sum is the layer's output: its epilogue adds into hidden, or, split over the
  // ranks, it writes a partial that tp_reduce sums over them into hidden.
  auto into_hidden = [&](std::string name, std::string reduce_name, std::uint64_t k, std::uint32_t in,
                         std::uint32_t weight, std::uint32_t partial, std::size_t after) {
    if (!parallel) return add(linear(std::move(name), h, k, in, weight, buf.hidden, true, {{after, false}}));
    DecodeOp op = linear(std::move(name), h, k, in, weight, partial, false, {{after, false}});
    op.counted_by_peers = true;
    const std::size_t producer = add(std::move(op));
    DecodeOp reduce = row_op(std::move(reduce_name), DecodeOpKind::kTpReduce, b, {});
    reduce.input = partial;
    reduce.reduces = producer;
    return add(std::move(reduce));
  };
  const std::size_t o_proj = into_hidden("o_proj", "tp_reduce_attn", m.q_width(), buf.attn_out, buf.w_o, buf.attn_partial, attention);
  DecodeOp norm_mlp = row_op("rms_norm_mlp", DecodeOpKind::kRmsNorm, b, {{o_proj, false}});
  norm_mlp.weight = buf.norms;
  norm_mlp.weight_offset = h * e;
  const std::size_t second = add(std::move(norm_mlp));
  const std::size_t gate_up =
      add(linear("gate_up", 2 * i, h, buf.xn, buf.w_gate_up, buf.gate_up, false, {{second, false}}));
  const std::size_t act = add(row_op("act", DecodeOpKind::kActivation, b, {{gate_up, false}}));
  const std::size_t down = into_hidden("down", "tp_reduce_mlp", i, buf.act, buf.w_down, buf.mlp_partial, act);
  s.ops[first].deps.push_back({down, true});
  if (shape.lm_head) {
    DecodeOp final_norm = row_op("final_norm", DecodeOpKind::kRmsNorm, b, {{down, false}});
    final_norm.per_layer = false;
    final_norm.weight = buf.final_norm;
    const std::size_t norm = add(std::move(final_norm));
    DecodeOp head = linear("lm_head", m.vocab, h, buf.xn, buf.w_lm_head, buf.logits, false, {{norm, false}});
    head.per_layer = false;
    add(std::move(head));
  }
  return s;
}

}  // namespace tessera::workloads::patterns

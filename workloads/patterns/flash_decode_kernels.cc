#include "workloads/patterns/flash_decode_kernels.h"

#include <stdexcept>
#include <utility>

namespace tessera::workloads::patterns {

using trace::Expr;
using trace::ProgramBuilder;

namespace {

std::int64_t i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

std::uint32_t u32(std::uint64_t v) {
  if (v == 0 || v > 0xFFFF'FFFFULL) throw std::invalid_argument("flash decode: a divisor does not fit 32 bits");
  return static_cast<std::uint32_t>(v);
}

// Registers of the (batch, q_head) kernels: combine and global reduce.
constexpr int kRegBatch = 0;
constexpr int kRegHead = 1;
constexpr int kRegTile = 2;  // b * q_heads + h
constexpr int kRegPeer = 3;
constexpr int kRegOffset = 4;

std::vector<std::uint32_t> launch_per_rank(trace::TraceBuilder& builder, std::uint32_t ranks, const std::string& name,
                                           std::uint64_t grid, std::uint32_t program) {
  std::vector<std::uint32_t> kernels;
  for (std::uint32_t rank = 0; rank < ranks; ++rank) {
    trace::Kernel k;
    k.name = name;
    k.rank = rank;
    k.grid = grid;
    k.program = program;
    kernels.push_back(builder.launch(std::move(k)));
  }
  return kernels;
}

// r0 = b, r1 = h, r2 = b * q_heads + h for wg = b + batch * h (Triton's grid (batch, q_heads)).
void set_tile(ProgramBuilder& p, const FlashDecodeLayout& l) {
  p.set(kRegBatch, trace::mod(trace::wg(), u32(l.batch)));
  p.set(kRegHead, trace::div(trace::wg(), u32(l.batch)));
  p.set(kRegTile, trace::reg(kRegBatch) * i64(l.q_heads) + trace::reg(kRegHead));
}

// r3 = the i-th peer (loop counter at `depth`): i, or (rank + i) % R when staggered.
void set_peer(ProgramBuilder& p, const FlashDecodeLayout& l, bool stagger, int depth) {
  if (stagger && l.ranks > 1) {
    p.set(kRegPeer, trace::loop(depth) + trace::rank());
    p.set(kRegPeer, trace::mod(trace::reg(kRegPeer), l.ranks));
  } else {
    p.set(kRegPeer, trace::loop(depth));
  }
}

}  // namespace

std::uint64_t tile_flag(const FlashDecodeLayout& l, std::uint64_t flag_base, std::uint64_t source, std::uint64_t b,
                        std::uint64_t q_head) {
  return flag_base + source * l.tiles() + b * l.q_heads + q_head;
}

std::vector<std::uint32_t> append_split_kv(trace::TraceBuilder& builder, const FlashDecodeLayout& l,
                                           const FlashDecodeBuffers& buf, models::compute::Dtype dtype) {
  constexpr int kRegSplit = 2;
  constexpr int kRegKvBase = 3;
  constexpr int kRegPartial = 4;
  const std::uint64_t row = l.row_bytes();
  const std::uint64_t rec = l.record_bytes();
  const std::uint64_t ops_bytes = l.blocks_per_op_used() * l.block_n * row;

  ProgramBuilder p("split_kv");
  // wg = b + batch * (hid + head_groups * split).
  p.set(kRegBatch, trace::mod(trace::wg(), u32(l.batch)));
  p.set(kRegHead, Expr::of(trace::Var::kWg, 1, u32(l.batch), u32(l.head_groups())));
  p.set(kRegSplit, trace::div(trace::wg(), u32(std::uint64_t{l.batch} * l.head_groups())));
  // The first token of this split of KV head hid / wgs_per_kv_head of sequence b.
  Expr kv_base = trace::div(trace::reg(kRegHead), l.wgs_per_kv_head()) * i64(l.kv_len * row) +
                 trace::reg(kRegSplit) * i64(l.split_tokens() * row);
  if (!l.shared_kv) kv_base = kv_base + trace::reg(kRegBatch) * i64(std::uint64_t{l.kv_heads} * l.kv_len * row);
  p.set(kRegKvBase, kv_base);
  p.load(buf.q, trace::rank(),
         trace::reg(kRegBatch) * i64(l.q_heads * row) + trace::reg(kRegHead) * i64(l.heads_per_wg() * row),
         i64(l.heads_per_wg() * row));
  // The KV loop, blocks_per_op blocks per op (flash_decode_layout.h, "Coarsening").
  const auto kv_step = [&](const Expr& offset, std::uint64_t blocks) {
    const std::int64_t bytes = i64(blocks * l.block_n * row);
    p.load(buf.k, trace::rank(), offset, bytes);
    p.load(buf.v, trace::rank(), offset, bytes);
    p.compute(i64(blocks * l.flops_per_block()), dtype);
  };
  if (l.full_ops() > 0) {
    p.loop(i64(l.full_ops()));
    kv_step(trace::reg(kRegKvBase) + trace::loop(0) * i64(ops_bytes), l.blocks_per_op_used());
    p.end_loop();
  }
  if (l.rest_blocks() > 0) kv_step(trace::reg(kRegKvBase) + Expr(i64(l.full_ops() * ops_bytes)), l.rest_blocks());
  // One record (acc / e_sum, then the log-sum-exp) per head of the group.
  p.set(kRegPartial, trace::reg(kRegBatch) * i64(l.q_heads * l.splits * rec) +
                         trace::reg(kRegHead) * i64(std::uint64_t{l.heads_per_wg()} * l.splits * rec) +
                         trace::reg(kRegSplit) * i64(rec));
  p.loop(i64(l.heads_per_wg()));
  p.store(buf.partials, trace::rank(), trace::reg(kRegPartial) + trace::loop(0) * i64(l.splits * rec), i64(rec));
  p.end_loop();
  const std::uint32_t program = builder.program(std::move(p));
  return launch_per_rank(builder, l.ranks, "split_kv", l.split_kv_grid(), program);
}

std::vector<std::uint32_t> append_combine(trace::TraceBuilder& builder, const FlashDecodeLayout& l,
                                          const FlashDecodeBuffers& buf, const CombineSpec& spec) {
  const std::uint64_t rec = l.record_bytes();
  const std::uint64_t grid = l.tile_grid();
  const bool local = spec.delivery == CombineDelivery::kLocal;
  const std::string name = local ? "combine" : "combine_push";

  ProgramBuilder p(name);
  set_tile(p, l);
  // Iris loads the head's records split by split; they are one contiguous range.
  p.load(buf.partials, trace::rank(), trace::reg(kRegTile) * i64(l.splits * rec), i64(l.splits * rec));
  if (local) {
    p.store(buf.combined, trace::rank(), trace::reg(kRegTile) * i64(rec), i64(rec));
  } else {
    const Expr slot = trace::rank() * i64(l.combined_bytes()) + trace::reg(kRegTile) * i64(rec);
    p.loop(i64(l.ranks));
    set_peer(p, l, spec.stagger_peers, 0);
    p.store(buf.gathered, trace::reg(kRegPeer), slot, i64(rec));
    if (spec.delivery == CombineDelivery::kPushPerTile) {
      p.release(trace::reg(kRegPeer),
                Expr(i64(spec.flag_base)) + trace::rank() * i64(l.tiles()) + trace::reg(kRegTile), 1);
    }
    p.end_loop();
    if (spec.delivery == CombineDelivery::kPushCoarse) {
      const auto counter = i64(arrival_counter(l, spec.flag_base));
      p.atomic_add(trace::rank(), counter, 1);
      // Only the last workgroup runs this body: wg / (grid - 1) is 1 for it and 0 before.
      p.loop(grid > 1 ? trace::div(trace::wg(), u32(grid - 1)) : Expr(1));
      p.wait(trace::rank(), counter, models::sync::Compare::kGe, i64(grid));
      p.loop(i64(l.ranks));
      set_peer(p, l, spec.stagger_peers, 1);
      p.release(trace::reg(kRegPeer), Expr(i64(spec.flag_base)) + trace::rank(), 1);
      p.end_loop();
      p.end_loop();
    }
  }
  const std::uint32_t program = builder.program(std::move(p));
  return launch_per_rank(builder, l.ranks, name, grid, program);
}

std::vector<std::uint32_t> append_global_reduce(trace::TraceBuilder& builder, const FlashDecodeLayout& l,
                                                const FlashDecodeBuffers& buf, const CombineSpec& spec) {
  const std::uint64_t rec = l.record_bytes();
  ProgramBuilder p("global_reduce");
  set_tile(p, l);
  p.loop(i64(l.ranks));
  set_peer(p, l, spec.stagger_peers, 0);
  p.set(kRegOffset, trace::reg(kRegPeer) * i64(l.combined_bytes()) + trace::reg(kRegTile) * i64(rec));
  switch (spec.delivery) {
    case CombineDelivery::kLocal: break;
    case CombineDelivery::kPushPerTile:
      p.wait(trace::rank(), Expr(i64(spec.flag_base)) + trace::reg(kRegPeer) * i64(l.tiles()) + trace::reg(kRegTile),
             models::sync::Compare::kGe, 1, buf.gathered, trace::reg(kRegOffset), i64(rec));
      break;
    case CombineDelivery::kPushCoarse:
      // One flag per source; the acquire covers only the record this workgroup reads.
      p.wait(trace::rank(), Expr(i64(spec.flag_base)) + trace::reg(kRegPeer), models::sync::Compare::kGe, 1,
             buf.gathered, trace::reg(kRegOffset), i64(rec));
      break;
  }
  p.load(buf.gathered, trace::rank(), trace::reg(kRegOffset), i64(rec));
  p.end_loop();
  p.store(buf.o, trace::rank(), trace::reg(kRegTile) * i64(l.row_bytes()), i64(l.row_bytes()));
  const std::uint32_t program = builder.program(std::move(p));
  return launch_per_rank(builder, l.ranks, "global_reduce", l.tile_grid(), program);
}

}  // namespace tessera::workloads::patterns

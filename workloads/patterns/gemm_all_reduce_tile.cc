#include "workloads/patterns/gemm_all_reduce_tile.h"

#include "workloads/patterns/reduce_scatter.h"

namespace tessera::workloads::patterns {

using trace::Expr;
using trace::ProgramBuilder;

namespace {

constexpr int kStepDepth = kTileLoopDepth + 1;  // the K-loop, or the loop over ranks
constexpr int kRowDepth = kTileLoopDepth + 2;   // a block's rows (rows addressing)
constexpr int kRegABase = kRegScratch;          // r4: K-loop: this tile's first A block
constexpr int kRegCFirst = kRegScratch;         // r4: after the K-loop: the tile's first byte in C
constexpr int kRegBBase = kRegScratch + 1;      // r5: K-loop: this tile's first B block
constexpr int kRegPeer = kRegScratch + 1;       // r5: after the K-loop: a peer
constexpr int kRegFold = kRegScratch + 3;       // r7

// The tile's block of C (or C_partial) on `owner`.
BlockAccess c_block(const GemmTiling& t, const PartialTileSpec& spec, std::uint32_t buffer, Expr owner) {
  BlockAccess b = spec.c.block(buffer, trace::reg(kRegCFirst), rows_expr(t), cols_expr(t));
  b.owner = std::move(owner);
  return b;
}

void set_c_first(ProgramBuilder& p, const PartialTileSpec& spec) {
  p.set(kRegCFirst, trace::reg(kRegPidM) * spec.c.pid_m_stride() + trace::reg(kRegPidN) * spec.c.pid_n_stride());
}

// Peer i (0-based) of this rank in a loop at `depth`: (rank + 1 + i) mod R.
void set_peer(ProgramBuilder& p, std::uint32_t ranks, int depth) {
  p.set(kRegPeer, trace::rank() + Expr(1) + trace::loop(depth));
  p.set(kRegPeer, trace::mod(trace::reg(kRegPeer), ranks));
}

// Rank i (0-based) of all ranks in a loop at `depth`, for the current tile: (rank + tile + i) mod R.
void set_rank_in_turn(ProgramBuilder& p, std::uint32_t ranks, int depth) {
  p.set(kRegPeer, trace::rank() + trace::reg(kRegTile) + trace::loop(depth));
  p.set(kRegPeer, trace::mod(trace::reg(kRegPeer), ranks));
}

}  // namespace

void append_partial_k_loop(ProgramBuilder& p, const GemmTiling& t, const PartialTileSpec& spec) {
  const Expr rows = rows_expr(t);
  const Expr cols = cols_expr(t);
  p.set(kRegABase, trace::reg(kRegPidM) * spec.a.pid_m_stride());
  p.set(kRegBBase, trace::reg(kRegPidN) * spec.b.pid_n_stride());
  const auto fetch = [&](const Expr& kk, int row_depth) {
    const Expr a_first = trace::reg(kRegABase) + kk * spec.a.kk_stride();
    append_block(p, trace::OpKind::kLoadAsync, spec.a.block(spec.a_buffer, trace::rank(), a_first, rows), row_depth,
                 kRegFold, kStageSlot);
    const Expr b_first = trace::reg(kRegBBase) + kk * spec.b.kb_stride();
    append_block(p, trace::OpKind::kLoadAsync, spec.b.block(spec.b_buffer, b_first, cols), row_depth, kRegFold,
                 kStageSlot);
  };
  append_prefetched_k_loop(p, static_cast<std::int64_t>(spec.a.k_slab / t.block_k), kStepDepth, t, spec.dtype, fetch);
}

void append_one_shot_tile(ProgramBuilder& p, const GemmTiling& t, const PartialTileSpec& spec) {
  const auto r = static_cast<std::int64_t>(spec.ranks);
  const auto tiles = static_cast<std::int64_t>(t.tiles());
  append_partial_k_loop(p, t, spec);
  set_c_first(p, spec);
  append_block(p, trace::OpKind::kStore, c_block(t, spec, spec.c_partial_buffer, trace::rank()), kStepDepth, kRegFold);
  if (spec.ranks > 1) {
    // Publish: the release writes the die's dirty data (the partial tile) back first.
    p.loop(r - 1);
    set_peer(p, spec.ranks, kStepDepth);
    p.release(trace::reg(kRegPeer),
              Expr(static_cast<std::int64_t>(spec.flag_base)) + trace::rank() * tiles + trace::reg(kRegTile), 1);
    p.end_loop();
    // Every peer's partial of this tile is in place. No acquire: it is read by remote loads,
    // which the peer's memory side serves.
    p.loop(r - 1);
    set_peer(p, spec.ranks, kStepDepth);
    p.wait(trace::rank(),
           Expr(static_cast<std::int64_t>(spec.flag_base)) + trace::reg(kRegPeer) * tiles + trace::reg(kRegTile),
           models::sync::Compare::kGe, 1);
    p.end_loop();
  }
  p.loop(r);
  set_rank_in_turn(p, spec.ranks, kStepDepth);
  append_block(p, trace::OpKind::kLoad, c_block(t, spec, spec.c_partial_buffer, trace::reg(kRegPeer)), kRowDepth,
               kRegFold);
  p.end_loop();
  // The adds run over the whole padded tile, as Triton's masked tiles do.
  if (spec.ranks > 1) {
    p.compute(kFlopsPerAdd * (r - 1) * static_cast<std::int64_t>(t.block_m) * t.block_n, models::compute::Dtype::kFp32);
  }
  append_block(p, trace::OpKind::kStore, c_block(t, spec, spec.c_buffer, trace::rank()), kStepDepth, kRegFold);
}

void append_atomics_tile(ProgramBuilder& p, const GemmTiling& t, const PartialTileSpec& spec) {
  append_partial_k_loop(p, t, spec);
  set_c_first(p, spec);
  p.loop(static_cast<std::int64_t>(spec.ranks));
  set_rank_in_turn(p, spec.ranks, kStepDepth);
  const BlockAccess block = c_block(t, spec, spec.c_buffer, trace::reg(kRegPeer));
  if (block.pieces.is_constant() && block.pieces.constant == 1) {
    p.atomic_add_range(block.buffer, block.owner, block.first, block.piece_bytes, spec.dtype);
  } else {
    // Row by row (rows addressing, or a corner tile in panels), as append_block does.
    p.loop(block.pieces);
    p.atomic_add_range(block.buffer, block.owner, block.first + trace::loop(kRowDepth) * block.pitch,
                       block.piece_bytes, spec.dtype);
    p.end_loop();
  }
  p.end_loop();
}

}  // namespace tessera::workloads::patterns

#include "workloads/patterns/scatter_programs.h"

#include <stdexcept>

#include "workloads/patterns/scatter_tile_loop.h"

namespace tessera::workloads::patterns {

using trace::Expr;
using trace::ProgramBuilder;

namespace {

constexpr int kRegABase = kRegScratch;
constexpr int kRegBBase = kRegScratch + 1;
constexpr int kRegTileOffset = kRegScratch;  // after the K-loop
constexpr int kRegTileBytes = kRegScratch + 1;
constexpr int kRegPeer = kRegScratch + 3;

std::int64_t i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

std::uint32_t narrow_ranks(std::uint32_t ranks) {
  if (ranks == 0) throw std::invalid_argument("scatter: ranks must be at least 1");
  return ranks;
}

// r7 = the i-th peer (i = loop(depth) in 0 .. ranks - 2) in rank order, skipping this rank:
// i + (i >= rank), where (i + ranks - rank) / ranks is that 0 or 1.
void set_peer(ProgramBuilder& p, std::uint32_t ranks, int depth) {
  p.set(kRegPeer, trace::loop(depth) + Expr(i64(ranks)) - trace::rank());
  p.set(kRegPeer, trace::loop(depth) + trace::div(trace::reg(kRegPeer), ranks));
}

}  // namespace

ScatterLayout scatter_layout(const GemmTiling& t, models::compute::Dtype dtype, std::uint32_t ranks) {
  ScatterLayout l;
  l.tiling = t;
  l.dtype = dtype;
  l.ranks = narrow_ranks(ranks);
  l.a = SlabLayout{t.m, t.k, 1, t.block_m, t.block_k, t.elem_bytes, TileAddressing::kPanels, SlabPlacement::kOneMatrix};
  l.b = BLayout{t.k, t.n, t.block_k, t.block_n, t.elem_bytes, TileAddressing::kPanels};
  return l;
}

std::pair<std::uint64_t, std::uint64_t> ScatterLayout::c_tile_range(std::uint64_t pid_m, std::uint64_t pid_n) const {
  const GemmTiling& t = tiling;
  const std::uint64_t cols = t.cols_of(pid_n);
  return {pid_n * t.m * t.block_n * t.elem_bytes + pid_m * t.block_m * cols * t.elem_bytes,
          t.rows_of(pid_m) * cols * t.elem_bytes};
}

// offset = rank * slot + pid_n * m * block_n * e + pid_m * block_m * cols * e, where cols is
// block_n but in the last column-block (cols_last = block_n - dn);
// bytes = rows * cols * e = (block_m - dm * Xm) * (block_n - dn * Xn) * e with Xm, Xn = "last
// row- / column-block" (0 or 1): the products pid_m * Xn and Xm * Xn are the conditionals.
void set_c_tile(ProgramBuilder& p, const ScatterLayout& l) {
  const GemmTiling& t = l.tiling;
  const auto e = i64(t.elem_bytes);
  const auto bm = i64(t.block_m);
  const auto bn = i64(t.block_n);
  const auto dm = i64(t.tiles_m() * t.block_m - t.m);
  const auto dn = i64(t.tiles_n() * t.block_n - t.n);
  const Expr rows = rows_expr(t);
  const Expr cols = cols_expr(t);
  const auto last_of = [](int reg, std::uint64_t blocks) {
    return trace::div(trace::reg(reg), static_cast<std::uint32_t>(blocks - 1));
  };
  const Expr slot = trace::rank() * i64(l.c_slot_bytes());
  const Expr panel = trace::reg(kRegPidN) * (i64(t.m) * bn * e);
  if (cols.is_constant()) {
    p.set(kRegTileOffset, slot + panel + trace::reg(kRegPidM) * (bm * cols.constant * e));
  } else {
    p.set(kRegTileOffset, slot + panel + trace::reg(kRegPidM) * (bm * bn * e));
    p.loop(last_of(kRegPidN, t.tiles_n()));
    p.set(kRegTileOffset, trace::reg(kRegTileOffset) - trace::reg(kRegPidM) * (bm * dn * e));
    p.end_loop();
  }
  if (rows.is_constant()) {
    p.set(kRegTileBytes, cols * (rows.constant * e));
  } else if (cols.is_constant()) {
    p.set(kRegTileBytes, rows * (cols.constant * e));
  } else {
    p.set(kRegTileBytes, Expr(bm * bn * e) - last_of(kRegPidN, t.tiles_n()) * (bm * dn * e) -
                             last_of(kRegPidM, t.tiles_m()) * (bn * dm * e));
    p.loop(last_of(kRegPidM, t.tiles_m()));
    p.set(kRegTileBytes, trace::reg(kRegTileBytes) + last_of(kRegPidN, t.tiles_n()) * (dm * dn * e));
    p.end_loop();
  }
}

BlockAccess c_tile(const ScatterLayout& l, Expr owner) {
  BlockAccess block;
  block.buffer = l.c_buffer;
  block.owner = std::move(owner);
  block.first = trace::reg(kRegTileOffset);
  block.piece_bytes = trace::reg(kRegTileBytes);
  return block;
}

void append_gemm_tile(ProgramBuilder& p, const ScatterLayout& l, int depth, TileEnd end, std::uint64_t lock_base) {
  const GemmTiling& t = l.tiling;
  const int k_depth = depth + 1;
  const Expr rows = rows_expr(t);
  const Expr cols = cols_expr(t);
  p.set(kRegABase, trace::reg(kRegPidM) * l.a.pid_m_stride());
  p.set(kRegBBase, trace::reg(kRegPidN) * l.b.pid_n_stride());
  // Panels: each block is one contiguous op.
  const auto fetch = [&](const Expr& kk, int) {
    const BlockAccess a = l.a.block(l.a_buffer, trace::rank(), trace::reg(kRegABase) + kk * l.a.kk_stride(), rows);
    p.load_async(a.buffer, a.owner, a.first, a.piece_bytes, kStageSlot);
    const BlockAccess b = l.b.block(l.b_buffer, trace::reg(kRegBBase) + kk * l.b.kb_stride(), cols);
    p.load_async(b.buffer, b.owner, b.first, b.piece_bytes, kStageSlot);
  };
  append_prefetched_k_loop(p, i64(t.k_steps()), k_depth, t, l.dtype, fetch);

  set_c_tile(p, l);
  const auto store = [&](Expr owner) {
    const BlockAccess c = c_tile(l, std::move(owner));
    p.store(c.buffer, c.owner, c.first, c.piece_bytes);
  };
  switch (end) {
    case TileEnd::kStoreLocal: store(trace::rank()); break;
    case TileEnd::kStoreLocalRelease:
      store(trace::rank());
      p.release(trace::rank(), Expr(i64(lock_base)) + trace::reg(kRegTile), 1);
      break;
    case TileEnd::kStoreEveryRank:
      p.loop(i64(l.ranks));
      store(trace::loop(depth + 1));
      p.end_loop();
      break;
  }
}

void append_scatter_tile(ProgramBuilder& p, const ScatterLayout& l, int depth, std::uint64_t lock_base) {
  set_c_tile(p, l);
  const BlockAccess local = c_tile(l, trace::rank());
  p.wait(trace::rank(), Expr(i64(lock_base)) + trace::reg(kRegTile), models::sync::Compare::kGe, 1, l.c_buffer,
         local.first, local.piece_bytes);
  p.load(local.buffer, local.owner, local.first, local.piece_bytes);
  if (l.ranks == 1) return;
  p.loop(i64(l.ranks) - 1);
  set_peer(p, l.ranks, depth + 1);
  const BlockAccess peer = c_tile(l, trace::reg(kRegPeer));
  p.store(peer.buffer, peer.owner, peer.first, peer.piece_bytes);
  p.end_loop();
}

ProgramBuilder scatter_gemm_program(std::string name, const ScatterLayout& l, std::uint64_t num_wgs, TileEnd end,
                                    std::uint64_t lock_base) {
  ProgramBuilder p(std::move(name));
  append_tile_loop(p, l.tiling, num_wgs,
                   [&](ProgramBuilder& body) { append_gemm_tile(body, l, kTileLoopDepth, end, lock_base); });
  return p;
}

ProgramBuilder all_scatter_program(std::string name, const ScatterLayout& l, std::uint64_t num_wgs,
                                   std::uint64_t lock_base) {
  ProgramBuilder p(std::move(name));
  append_tile_loop(p, l.tiling, num_wgs,
                   [&](ProgramBuilder& body) { append_scatter_tile(body, l, kTileLoopDepth, lock_base); });
  return p;
}

ProgramBuilder wg_specialized_program(std::string name, const ScatterLayout& l, std::uint64_t gemm_wgs,
                                      std::uint64_t comm_wgs, std::uint64_t lock_base, std::uint64_t done_base) {
  if (gemm_wgs == 0 || comm_wgs == 0) throw std::invalid_argument("wg_specialized: both roles need workgroups");
  const std::uint64_t grid = gemm_wgs + comm_wgs;
  if (grid > 0xFFFF'FFFFULL) throw std::invalid_argument("wg_specialized: grid too large");
  const auto grid32 = static_cast<std::uint32_t>(grid);
  const Expr pid = trace::reg(kRegPid);
  constexpr int kRoleDepth = 0;
  constexpr int kTileDepth = kRoleDepth + 1;
  ProgramBuilder p(std::move(name));
  // A role loop runs once or never: (pid + comm_wgs) / grid is 0 for pid < gemm_wgs and 1 for
  // the communication workgroups (pid < grid).
  const auto set_is_comm = [&] { p.set(kRegScratch, pid + Expr(i64(comm_wgs))); };
  set_is_comm();
  p.loop(Expr(1) - trace::div(trace::reg(kRegScratch), grid32));
  append_tile_loop_at(p, l.tiling, gemm_wgs, pid, kTileDepth, [&](ProgramBuilder& body) {
    append_gemm_tile(body, l, kTileDepth, TileEnd::kStoreLocalRelease, lock_base);
  });
  p.end_loop();

  set_is_comm();
  p.loop(trace::div(trace::reg(kRegScratch), grid32));
  const Expr comm_pid = pid - Expr(i64(gemm_wgs));
  append_tile_loop_at(p, l.tiling, comm_wgs, comm_pid, kTileDepth,
                      [&](ProgramBuilder& body) { append_scatter_tile(body, l, kTileDepth, lock_base); });
  if (l.ranks > 1) {
    // Flag (c, s) = done_base + c * ranks + s with c = pid - gemm_wgs.
    const Expr mine = Expr(i64(done_base)) + comm_pid * i64(l.ranks);
    p.loop(i64(l.ranks) - 1);
    set_peer(p, l.ranks, kTileDepth);
    p.release(trace::reg(kRegPeer), mine + trace::rank(), 1);
    p.end_loop();
    p.loop(i64(l.ranks) - 1);
    set_peer(p, l.ranks, kTileDepth);
    p.wait(trace::rank(), mine + trace::reg(kRegPeer), models::sync::Compare::kGe, 1);
    p.end_loop();
  }
  p.end_loop();
  return p;
}

}  // namespace tessera::workloads::patterns

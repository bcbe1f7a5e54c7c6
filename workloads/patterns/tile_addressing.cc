#include "workloads/patterns/tile_addressing.h"

#include <stdexcept>

namespace tessera::workloads::patterns {

using trace::Expr;

namespace {

std::int64_t i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

}  // namespace

const std::vector<std::pair<std::string, TileAddressing>>& tile_addressing_choices() {
  static const std::vector<std::pair<std::string, TileAddressing>> names{{"panels", TileAddressing::kPanels},
                                                                         {"rows", TileAddressing::kRows}};
  return names;
}

Expr BlockAccess::span_bytes() const { return pieces * pitch - Expr(pitch) + piece_bytes; }

void append_block(trace::ProgramBuilder& p, trace::OpKind kind, const BlockAccess& block, int depth, int fold_reg,
                  std::uint8_t slot) {
  if (kind != trace::OpKind::kLoad && kind != trace::OpKind::kLoadAsync && kind != trace::OpKind::kStore) {
    throw std::invalid_argument("append_block: a block is loaded or stored");
  }
  const auto emit = [&](Expr offset) {
    switch (kind) {
      case trace::OpKind::kLoad: p.load(block.buffer, block.owner, std::move(offset), block.piece_bytes); break;
      case trace::OpKind::kLoadAsync:
        p.load_async(block.buffer, block.owner, std::move(offset), block.piece_bytes, slot);
        break;
      default: p.store(block.buffer, block.owner, std::move(offset), block.piece_bytes); break;
    }
  };
  if (block.pieces.is_constant() && block.pieces.constant == 1) {
    emit(block.first);
    return;
  }
  Expr first = block.first;
  if (first.num_terms > Expr::kMaxTerms - 1) {
    p.set(static_cast<std::uint8_t>(fold_reg), first);
    first = trace::reg(fold_reg);
  }
  p.loop(block.pieces);
  emit(first + trace::loop(depth) * block.pitch);
  p.end_loop();
}

// ---- A as slabs ----

std::int64_t SlabLayout::slab_stride() const {
  switch (placement) {
    case SlabPlacement::kOwnSlab: return 0;
    case SlabPlacement::kStacked: return i64(slab_bytes());
    case SlabPlacement::kOneMatrix:
      // Rows: slab s starts k_s columns to the right. Panels: slab s is the run of panels
      // s * k_s / block_k.., which is slab_bytes further on, as in the stacked layout.
      return addressing == TileAddressing::kRows ? i64(k_slab * elem_bytes) : i64(slab_bytes());
  }
  return 0;
}

std::int64_t SlabLayout::row_pitch() const {
  if (placement == SlabPlacement::kOneMatrix) return i64(k_slab * slabs * elem_bytes);
  return i64(k_slab * elem_bytes);
}

std::int64_t SlabLayout::pid_m_stride() const {
  return addressing == TileAddressing::kRows ? i64(block_m) * row_pitch() : i64(std::uint64_t{block_m} * block_k * elem_bytes);
}

std::int64_t SlabLayout::kk_stride() const {
  return addressing == TileAddressing::kRows ? i64(std::uint64_t{block_k} * elem_bytes) : i64(m * block_k * elem_bytes);
}

std::uint64_t SlabLayout::buffer_bytes() const {
  return placement == SlabPlacement::kOwnSlab ? slab_bytes() : slab_bytes() * slabs;
}

BlockAccess SlabLayout::block(std::uint32_t buffer, Expr owner, Expr first, const Expr& rows) const {
  BlockAccess b;
  b.buffer = buffer;
  b.owner = std::move(owner);
  b.first = std::move(first);
  const auto row_bytes = i64(std::uint64_t{block_k} * elem_bytes);
  if (addressing == TileAddressing::kRows) {
    b.pieces = rows;
    b.pitch = row_pitch();
    b.piece_bytes = row_bytes;
  } else {
    b.piece_bytes = rows * row_bytes;
  }
  return b;
}

// ---- B ----

std::int64_t BLayout::pid_n_stride() const {
  return addressing == TileAddressing::kRows ? i64(std::uint64_t{block_n} * elem_bytes)
                                             : i64(std::uint64_t{block_n} * block_k * elem_bytes);
}

BlockAccess BLayout::block(std::uint32_t buffer, Expr first, const Expr& cols) const {
  BlockAccess b;
  b.buffer = buffer;
  b.owner = trace::rank();
  b.first = std::move(first);
  if (addressing == TileAddressing::kRows) {
    b.pieces = static_cast<std::int64_t>(block_k);
    b.pitch = i64(n * elem_bytes);
    b.piece_bytes = cols * elem_bytes;
  } else {
    b.piece_bytes = cols * (i64(block_k) * elem_bytes);
  }
  return b;
}

// ---- C ----

std::int64_t CLayout::pid_m_stride() const {
  return addressing == TileAddressing::kRows ? i64(block_m * n * elem_bytes)
                                             : i64(std::uint64_t{block_m} * block_n * elem_bytes);
}

std::int64_t CLayout::pid_n_stride() const {
  return addressing == TileAddressing::kRows ? i64(std::uint64_t{block_n} * elem_bytes) : i64(m * block_n * elem_bytes);
}

std::uint64_t CLayout::buffer_bytes() const {
  if (addressing == TileAddressing::kRows) return m * n * elem_bytes;
  const std::uint64_t tiles_n = (n + block_n - 1) / block_n;
  return tiles_n * m * block_n * elem_bytes;
}

BlockAccess CLayout::block(std::uint32_t buffer, Expr first, const Expr& rows, const Expr& cols) const {
  BlockAccess b;
  b.buffer = buffer;
  b.owner = trace::rank();
  b.first = std::move(first);
  if (addressing == TileAddressing::kRows) {
    b.pieces = rows;
    b.pitch = i64(n * elem_bytes);
    b.piece_bytes = cols * elem_bytes;
  } else if (rows.is_constant()) {
    b.piece_bytes = cols * (rows.constant * elem_bytes);
  } else if (cols.is_constant()) {
    b.piece_bytes = rows * (cols.constant * elem_bytes);
  } else {
    // Both edges partial: rows x cols is a product the expressions cannot form, so store the
    // block row by row inside its padded panel (block_n elements apart).
    b.pieces = rows;
    b.pitch = i64(std::uint64_t{block_n} * elem_bytes);
    b.piece_bytes = cols * elem_bytes;
  }
  return b;
}

}  // namespace tessera::workloads::patterns

#pragma once
// Where the tile blocks of row-major matrices lie in their buffers, and how one block access
// becomes trace operations.
//
// A block_m x block_k block of a row-major m x k matrix is block_m rows of block_k elements,
// k elements apart: strided. Two ways to write it (the `addressing` key):
//
//  * kRows: exact row-major addresses, one load/store per row (a loop over the rows). What the
//    hardware touches, line for line; costs block_m ops per A block per k-step, so a 1024 x 3584
//    x 8192 ag_gemm on 8 ranks is ~74 M operations.
//  * kPanels (default): every block is ONE contiguous operation, as if each matrix were stored in
//    panels along the K-loop (A as column panels of block_k columns, each m x block_k row-major;
//    B as row panels of block_k rows, each stored column by column; C as column panels of block_n
//    columns). The map from blocks to byte ranges is a bijection with the true size of every
//    block, so bytes moved, footprints, which blocks are shared between tiles, and remote vs
//    local traffic are exactly those of row-major; what changes is which 128 B lines share a
//    4 KiB cache chunk and a set. Why that is acceptable: the cache model tags 4 KiB chunks and
//    counts capacity in lines (models/cache/README.md, "chunk approximation"); a panel block fills
//    its chunks densely, where a row-major block puts one 128 B line in each of block_m chunks
//    whose other lines belong to the next k-steps. Dense chunks are the case where chunk LRU
//    equals line LRU, so panels are, if anything, closer to a line-exact cache than row-major
//    chunks are. Not modelled by panels: DRAM/channel interleaving of strided rows, and set
//    conflicts that depend on the row pitch (the caches hash their sets by default).
//
// In panels, C is sized to whole block_n column panels (tiles_n * m * block_n elements), so a
// partial last column panel leaves a padding gap: the only place panels change a buffer size.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "workloads/trace/builder.h"

namespace tessera::workloads::patterns {

enum class TileAddressing : std::uint8_t { kPanels, kRows };
const std::vector<std::pair<std::string, TileAddressing>>& tile_addressing_choices();

// One access to a block: `pieces` ranges of `piece_bytes`, the first at `first`, each `pitch`
// bytes after the previous (pieces == 1: one contiguous range).
struct BlockAccess {
  std::uint32_t buffer = trace::kNoBuffer;
  trace::Expr owner;  // the rank whose copy is accessed
  trace::Expr first;
  trace::Expr pieces = 1;
  std::int64_t pitch = 0;
  trace::Expr piece_bytes;

  // From the first byte of the first piece to the last byte of the last: the range that covers
  // the block (for an acquire). Exact for one piece; for strided rows it spans the gaps too.
  trace::Expr span_bytes() const;
};

// Appends `kind` (load, load_async or store) of the block: one op, or a loop over the pieces at
// loop depth `depth`. When `first` has more than two terms it is first set into register
// `fold_reg` (an op's offset is first + i<depth> * pitch and an expression holds three terms).
// A load_async goes to load slot `slot` (every piece in that slot; wait_load(slot) waits for all).
void append_block(trace::ProgramBuilder& program, trace::OpKind kind, const BlockAccess& block, int depth,
                  int fold_reg, std::uint8_t slot = 0);

// How A (m x k, block_m x block_k blocks) is placed, seen as `sources` slabs of k_s = k / sources
// columns: block (s, pid_m, kk) = rows [pid_m * block_m, +rows) of slab s's columns
// [kk * block_k, +block_k). Its first byte is s * slab_stride + pid_m * pid_m_stride + kk * kk_stride.
enum class SlabPlacement : std::uint8_t {
  kOneMatrix,  // one m x k matrix on this rank (slab s: columns [s * k_s, (s + 1) * k_s))
  kStacked,    // the slabs one after another, each an m x k_s matrix (an inbox, a gathered buffer)
  kOwnSlab,    // one m x k_s matrix at offset 0: rank s's shard (slab s is read from rank s)
};

struct SlabLayout {
  std::uint64_t m = 0;
  std::uint64_t k_slab = 0;  // columns per slab
  std::uint32_t slabs = 1;
  std::uint32_t block_m = 256;
  std::uint32_t block_k = 64;
  std::uint32_t elem_bytes = 2;
  TileAddressing addressing = TileAddressing::kPanels;
  SlabPlacement placement = SlabPlacement::kOneMatrix;

  std::int64_t slab_stride() const;
  std::int64_t pid_m_stride() const;
  std::int64_t kk_stride() const;
  std::int64_t row_pitch() const;  // between two rows of a block (rows addressing)
  std::uint64_t buffer_bytes() const;  // what the placement needs (kOwnSlab: one slab)
  std::uint64_t slab_bytes() const { return m * k_slab * elem_bytes; }
  // The block's access given its first byte, its rows (an expression) and where it lives.
  BlockAccess block(std::uint32_t buffer, trace::Expr owner, trace::Expr first, const trace::Expr& rows) const;
};

// B (k x n) blocks (kb, pid_n): block_k rows x cols. First byte kb * kb_stride + pid_n * pid_n_stride.
struct BLayout {
  std::uint64_t k = 0;
  std::uint64_t n = 0;
  std::uint32_t block_k = 64;
  std::uint32_t block_n = 256;
  std::uint32_t elem_bytes = 2;
  TileAddressing addressing = TileAddressing::kPanels;

  std::int64_t kb_stride() const { return static_cast<std::int64_t>(block_k * n * elem_bytes); }
  std::int64_t pid_n_stride() const;
  std::uint64_t buffer_bytes() const { return k * n * elem_bytes; }
  BlockAccess block(std::uint32_t buffer, trace::Expr first, const trace::Expr& cols) const;
};

// C (m x n) blocks (pid_m, pid_n): rows x cols. First byte pid_m * pid_m_stride + pid_n * pid_n_stride.
struct CLayout {
  std::uint64_t m = 0;
  std::uint64_t n = 0;
  std::uint32_t block_m = 256;
  std::uint32_t block_n = 256;
  std::uint32_t elem_bytes = 2;
  TileAddressing addressing = TileAddressing::kPanels;

  std::int64_t pid_m_stride() const;
  std::int64_t pid_n_stride() const;
  std::uint64_t buffer_bytes() const;
  BlockAccess block(std::uint32_t buffer, trace::Expr first, const trace::Expr& rows, const trace::Expr& cols) const;
};

}  // namespace tessera::workloads::patterns

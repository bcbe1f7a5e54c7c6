#pragma once
// The shapes, buffers and work split of distributed flash decode, as the Iris
// example runs it (examples/13_flash_decode/decode_kernels.py; its RCCL reference
// examples/benchmark/reference/flash_decode_rccl/fd_layer_rccl.py).
//
// One decode step: `batch` sequences, one query token each, `q_heads` query heads sharing
// `kv_heads` K/V heads (GQA group = q_heads / kv_heads). The KV cache is sharded along the
// sequence: every rank holds `kv_len` tokens of every sequence.
//
// Split-KV kernel (gqa_local_decode_split_k): grid (batch, head_groups, splits), program_id 0
// fastest, so workgroup wg = b + batch * (hid + head_groups * split). A workgroup takes
// heads_per_wg = min(block_h, group) query heads of one KV head together (Iris BLOCK_H = 16 rows,
// masked to the group of 8): they share every K/V load. It streams its split's kv_len / splits
// tokens of that KV head in block_n-token blocks: per block, load K (block_n x head_dim), QK^T,
// load V, PV. Issued FLOPs per block are 4 * block_h * block_n * head_dim: the matrix units
// compute the padded block_h rows (as gemm_tiling.h counts masked edge tiles); the useful FLOPs
// are 4 * head_dim per KV token per query head. The softmax (max, exp, rescale) runs on the
// vector ALUs and is not counted: the compute op models matrix work only.
//
// Coarsening (`blocks_per_op`): one load op moves blocks_per_op consecutive KV blocks and one
// compute op does their FLOPs, so the loop has blocks_per_split / blocks_per_op iterations (and
// one shorter last one when they do not divide). Bytes, FLOPs, footprints and the order of the
// stream are unchanged; what it trades is the interleaving of loads and matrix work inside one
// workgroup (a coarse op waits for all its bytes before computing) and the number of memory
// requests in flight. With 1 the trace is the per-block loop of the kernel.
//
// Buffers (per rank; e = element bytes; a record is head_dim values and the log-sum-exp, both
// in the element type as Iris stores them: (head_dim + 1) * e bytes):
//   Q         [batch][q_heads][head_dim]
//   K, V      [batch][kv_heads][kv_len][head_dim] (shared_kv: [kv_heads][kv_len][head_dim])
//   partials  [batch][q_heads][splits] records   (split-KV output, Iris output_split)
//   combined  [batch][q_heads] records           (bsp: the local combine's output)
//   gathered  [ranks][batch][q_heads] records    (every rank's combined partials)
//   O         [batch][q_heads][head_dim]
// Iris's cache is paged [tokens][kv_heads][head_dim] (page size 1), so a block of one KV head
// is block_n rows of head_dim elements kv_heads * head_dim apart. Here each (sequence, KV head)
// is one contiguous run of tokens, so a block is one range: the same bytes and the same 128 B
// lines (a head's row is head_dim * e = 256 B, line aligned), placed densely in 4 KiB chunks, as
// tile_addressing.h's panels argue.
//
// shared_kv: the Iris benchmark fills every sequence's block table with the same pages
// (torch.arange(num_blocks).repeat(num_seqs, 1)), so all sequences read one cache; a real
// decode batch reads one cache per sequence (the default).
#include <cstdint>
#include <optional>

#include "workloads/patterns/param_problem.h"

namespace tessera::workloads::patterns {

struct FlashDecodeLayout {
  std::uint32_t ranks = 1;
  std::uint32_t batch = 1;
  std::uint32_t q_heads = 96;
  std::uint32_t kv_heads = 12;
  std::uint32_t head_dim = 128;
  std::uint64_t kv_len = 32768;  // tokens per rank per sequence
  std::uint32_t splits = 32;
  std::uint32_t block_n = 64;
  std::uint32_t block_h = 16;
  std::uint32_t blocks_per_op = 8;  // as asked; ops use blocks_per_op_used()
  std::uint32_t elem_bytes = 2;
  bool shared_kv = false;

  std::uint32_t group() const { return q_heads / kv_heads; }
  std::uint32_t heads_per_wg() const { return group() < block_h ? group() : block_h; }
  std::uint32_t head_groups() const { return q_heads / heads_per_wg(); }
  std::uint32_t wgs_per_kv_head() const { return group() / heads_per_wg(); }
  std::uint64_t split_tokens() const { return kv_len / splits; }
  std::uint64_t blocks_per_split() const { return split_tokens() / block_n; }
  std::uint64_t blocks_per_op_used() const;
  std::uint64_t full_ops() const { return blocks_per_split() / blocks_per_op_used(); }
  std::uint64_t rest_blocks() const { return blocks_per_split() % blocks_per_op_used(); }

  std::uint64_t row_bytes() const { return std::uint64_t{head_dim} * elem_bytes; }  // one token, one head
  std::uint64_t record_bytes() const { return (std::uint64_t{head_dim} + 1) * elem_bytes; }
  std::uint64_t tiles() const { return std::uint64_t{batch} * q_heads; }  // (batch, q head) pairs
  std::uint64_t kv_sequences() const { return shared_kv ? 1 : batch; }
  std::uint64_t kv_bytes() const { return kv_sequences() * kv_heads * kv_len * row_bytes(); }  // K or V
  std::uint64_t q_bytes() const { return tiles() * row_bytes(); }
  std::uint64_t partials_bytes() const { return tiles() * splits * record_bytes(); }
  std::uint64_t combined_bytes() const { return tiles() * record_bytes(); }  // one rank's slot
  std::uint64_t gathered_bytes() const { return ranks * combined_bytes(); }

  std::uint64_t split_kv_grid() const { return std::uint64_t{batch} * head_groups() * splits; }
  std::uint64_t tile_grid() const { return tiles(); }  // combine and global reduce: (batch, q_heads)

  // Issued FLOPs of one KV block (padded rows) and of the whole split-KV kernel on one rank.
  std::uint64_t flops_per_block() const { return 4ULL * block_h * block_n * head_dim; }
  double issued_flops_per_rank() const;
  double useful_flops_per_rank() const;  // 4 * head_dim per token per query head

  // Byte offsets.
  std::uint64_t kv_offset(std::uint64_t b, std::uint64_t kv_head, std::uint64_t token) const;
  std::uint64_t partial_offset(std::uint64_t b, std::uint64_t q_head, std::uint64_t split) const {
    return ((b * q_heads + q_head) * splits + split) * record_bytes();
  }
  std::uint64_t gathered_offset(std::uint64_t source, std::uint64_t b, std::uint64_t q_head) const {
    return source * combined_bytes() + (b * q_heads + q_head) * record_bytes();
  }
};

// What makes a layout impossible, naming the workload key to change.
std::optional<ParamProblem> layout_problem(const FlashDecodeLayout& layout);

}  // namespace tessera::workloads::patterns

#include "workloads/patterns/flash_decode_layout.h"

#include <fmt/format.h>

namespace tessera::workloads::patterns {

std::uint64_t FlashDecodeLayout::blocks_per_op_used() const {
  const std::uint64_t blocks = blocks_per_split();
  return blocks < blocks_per_op ? blocks : blocks_per_op;
}

double FlashDecodeLayout::issued_flops_per_rank() const {
  return static_cast<double>(split_kv_grid()) * static_cast<double>(blocks_per_split()) *
         static_cast<double>(flops_per_block());
}

double FlashDecodeLayout::useful_flops_per_rank() const {
  return 4.0 * head_dim * static_cast<double>(kv_len) * static_cast<double>(tiles());
}

std::uint64_t FlashDecodeLayout::kv_offset(std::uint64_t b, std::uint64_t kv_head, std::uint64_t token) const {
  const std::uint64_t sequence = shared_kv ? 0 : b;
  return ((sequence * kv_heads + kv_head) * kv_len + token) * row_bytes();
}

std::optional<ParamProblem> layout_problem(const FlashDecodeLayout& l) {
  if (l.batch == 0) return ParamProblem{"batch", "must be positive"};
  if (l.q_heads == 0) return ParamProblem{"q_heads", "must be positive"};
  if (l.kv_heads == 0) return ParamProblem{"kv_heads", "must be positive"};
  if (l.head_dim == 0) return ParamProblem{"head_dim", "must be positive"};
  if (l.splits == 0) return ParamProblem{"kv_splits", "must be positive"};
  if (l.block_n == 0) return ParamProblem{"block_n", "must be positive"};
  if (l.block_h == 0) return ParamProblem{"block_h", "must be positive"};
  if (l.blocks_per_op == 0) return ParamProblem{"blocks_per_op", "must be positive"};
  if (l.q_heads % l.kv_heads != 0) {
    return ParamProblem{"q_heads", fmt::format("q_heads ({}) must be a multiple of kv_heads ({}): each KV head "
                                               "serves a group of query heads (GQA)",
                                               l.q_heads, l.kv_heads)};
  }
  if (l.group() > l.block_h && l.group() % l.block_h != 0) {
    return ParamProblem{"block_h", fmt::format("a GQA group of {} query heads must be a multiple of block_h ({}) "
                                               "when larger: a workgroup takes block_h heads of one KV head",
                                               l.group(), l.block_h)};
  }
  const std::uint64_t step = std::uint64_t{l.splits} * l.block_n;
  if (l.kv_len == 0 || l.kv_len % step != 0) {
    return ParamProblem{"kv_len_per_rank",
                        fmt::format("kv_len_per_rank ({}) must be a positive multiple of kv_splits x block_n ({} x {} = "
                                    "{}): every split streams whole KV blocks",
                                    l.kv_len, l.splits, l.block_n, step)};
  }
  // Divisors and moduli of trace expressions are 32-bit.
  if (std::uint64_t{l.batch} * l.head_groups() > 0xFFFF'FFFFULL || l.tiles() > 0xFFFF'FFFFULL ||
      l.split_kv_grid() > (1ULL << 40)) {
    return ParamProblem{"batch", fmt::format("{} sequences x {} query heads are more than a trace can index",
                                             l.batch, l.q_heads)};
  }
  const double kv_bytes = static_cast<double>(l.kv_sequences()) * l.kv_heads * static_cast<double>(l.kv_len) *
                          static_cast<double>(l.row_bytes());
  if (kv_bytes > static_cast<double>(1ULL << 56)) {
    return ParamProblem{"kv_len_per_rank", "a KV cache of more than 2^56 bytes"};
  }
  return std::nullopt;
}

}  // namespace tessera::workloads::patterns

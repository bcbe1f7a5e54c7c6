#include "workloads/patterns/attention_mapping.h"

#include <stdexcept>

#include <fmt/format.h>

#include "workloads/patterns/gemm_tiling.h"

namespace tessera::workloads::patterns {

using trace::Expr;

namespace {

bool swizzled(AttentionMapping m) {
  return m == AttentionMapping::kSwizzledBlockFirst || m == AttentionMapping::kSwizzledHeadFirst;
}

bool head_first(AttentionMapping m) {
  return m == AttentionMapping::kNaiveHeadFirst || m == AttentionMapping::kSwizzledHeadFirst;
}

XcdRemap remap_of(AttentionMapping m) { return swizzled(m) ? XcdRemap::kChipletSwizzle : XcdRemap::kNone; }

std::uint32_t divisor(std::uint64_t v, const char* what) {
  if (v == 0 || v > 0xFFFF'FFFFULL) throw std::out_of_range(fmt::format("{} ({}) does not fit a divisor", what, v));
  return static_cast<std::uint32_t>(v);
}

}  // namespace

const std::vector<std::pair<std::string, AttentionMapping>>& attention_mapping_choices() {
  static const std::vector<std::pair<std::string, AttentionMapping>> names{
      {"naive_block_first", AttentionMapping::kNaiveBlockFirst},
      {"swizzled_block_first", AttentionMapping::kSwizzledBlockFirst},
      {"naive_head_first", AttentionMapping::kNaiveHeadFirst},
      {"swizzled_head_first", AttentionMapping::kSwizzledHeadFirst}};
  return names;
}

AttentionCoord attention_coord(const AttentionGrid& g, std::uint32_t num_dies, AttentionMapping mapping,
                               std::uint64_t wg) {
  const std::uint64_t logical = remap_workgroup(wg, g.workgroups(), num_dies, remap_of(mapping));
  const std::uint64_t per_batch = g.q_heads * g.q_blocks;
  const std::uint64_t rest = logical % per_batch;
  AttentionCoord c;
  c.batch = logical / per_batch;
  if (head_first(mapping)) {
    c.head = rest / g.q_blocks;
    c.q_block = rest % g.q_blocks;
  } else {
    c.q_block = rest / g.q_heads;
    c.head = rest % g.q_heads;
  }
  return c;
}

std::optional<std::string> attention_mapping_problem(const AttentionGrid& g, std::uint32_t num_dies,
                                                     AttentionMapping mapping) {
  return remap_problem(g.workgroups(), num_dies, remap_of(mapping));
}

Expr attention_logical_id_expr(const AttentionGrid& g, std::uint32_t num_dies, AttentionMapping mapping) {
  return remap_expr(g.workgroups(), num_dies, remap_of(mapping));
}

void append_attention_coord(trace::ProgramBuilder& p, const AttentionGrid& g, AttentionMapping mapping, int bh_reg,
                            int block_reg) {
  const Expr logical = trace::reg(kRegPid);
  const auto bh = static_cast<std::uint8_t>(bh_reg);
  const auto block = static_cast<std::uint8_t>(block_reg);
  if (head_first(mapping)) {
    // L = bh * q_blocks + m, with bh = b * q_heads + h.
    const std::uint32_t blocks = divisor(g.q_blocks, "q_blocks");
    p.set(bh, trace::div(logical, blocks));
    p.set(block, trace::mod(logical, blocks));
    return;
  }
  // L = (b * q_blocks + m) * q_heads + h: bh = (L / (q_blocks * q_heads)) * q_heads + L % q_heads,
  // m = (L / q_heads) % q_blocks.
  const std::uint32_t heads = divisor(g.q_heads, "q_heads");
  const std::uint32_t per_batch = divisor(g.q_heads * g.q_blocks, "q_heads x q_blocks");
  p.set(bh, trace::div(logical, per_batch) * static_cast<std::int64_t>(g.q_heads) + trace::mod(logical, heads));
  p.set(block, trace::mod(trace::div(logical, heads), divisor(g.q_blocks, "q_blocks")));
}

}  // namespace tessera::workloads::patterns

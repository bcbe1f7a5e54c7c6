#include "workloads/patterns/broadcast.h"

#include <stdexcept>

#include <fmt/format.h>

#include "workloads/patterns/all_gather.h"
#include "workloads/patterns/collective_launch.h"
#include "workloads/patterns/gemm_tiling.h"
#include "workloads/patterns/reduce_scatter.h"

namespace tessera::workloads::patterns {

using trace::Expr;
using trace::ProgramBuilder;

namespace {

// Registers beyond the piece registers r0..r2, the ring's r3 (next rank) and r7 (its stride).
constexpr int kRegIsRoot = 4;  // set_is_zero_mod of the distance from the root
constexpr int kRegAt = 5;      // ring: the piece's offset in the output; one-shot: a peer
constexpr int kRegIsLast = 6;  // ring: set_is_zero_mod of the distance past the chain's last rank

std::int64_t i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

AllGatherSplit split_of_spec(const BroadcastSpec& spec) {
  AllGatherSpec cut;
  cut.shard_bytes = spec.bytes;
  cut.channels = spec.channels;
  cut.chunk_bytes = spec.chunk_bytes;
  return split_of(cut);
}

// Where the root reads the message: its input, or in place its output.
struct Source {
  std::uint32_t buffer;
  std::int64_t offset;
};
Source source_of(const BroadcastSpec& spec) {
  if (spec.in_place) return {spec.output_buffer, i64(spec.output_offset)};
  return {spec.input_buffer, i64(spec.input_offset)};
}

// The root's part of the piece in r1/r2: load it, and copy it into its own output.
void root_piece(ProgramBuilder& p, const BroadcastSpec& spec, const PieceRegisters& pieces) {
  const Source src = source_of(spec);
  p.load(src.buffer, trace::rank(), Expr(src.offset) + pieces.lo(), pieces.bytes());
  if (!spec.in_place) {
    p.store(spec.output_buffer, trace::rank(), Expr(i64(spec.output_offset)) + pieces.lo(), pieces.bytes());
  }
}

void append_ring(ProgramBuilder& p, std::uint32_t ranks, const BroadcastSpec& spec, const PieceRegisters& pieces) {
  const auto r = static_cast<std::int64_t>(ranks);
  const auto count = static_cast<std::int64_t>(pieces.split.pieces);
  const auto out = i64(spec.output_offset);
  const Expr next = trace::reg(kRegRingNext);
  const Expr stride = trace::reg(kRegRingStride);
  const Expr flag = Expr(i64(spec.flag_base)) + trace::wg() * count + trace::loop(1);
  p.set(kRegRingStride, ring_stride_expr(ranks, spec.spread_rings));
  p.set(kRegRingNext, trace::rank() + stride);
  p.set(kRegRingNext, trace::mod(next, ranks));
  // The chain of a channel is root, root + d, ..., root - d: the root is at distance 0 from the
  // root, the last rank one stride short of it. The root is never the last (d is not 0 mod R).
  const Expr is_root = set_is_zero_mod(p, kRegIsRoot, trace::rank() + Expr(r - i64(spec.root)), ranks);
  const Expr is_last = set_is_zero_mod(p, kRegIsLast, trace::rank() + stride + Expr(r - i64(spec.root)), ranks);

  // The root: every piece into its own output and the next rank's.
  p.loop(is_root);
  p.loop(count);
  pieces.set_piece(p, 1);
  root_piece(p, spec, pieces);
  p.store(spec.output_buffer, next, Expr(out) + pieces.lo(), pieces.bytes());
  p.release(next, flag, 1);
  p.end_loop();
  p.end_loop();

  // The middle of the chain: each piece on as soon as it has arrived.
  p.loop(Expr(1) - is_root - is_last);
  p.loop(count);
  pieces.set_piece(p, 1);
  p.set(kRegAt, Expr(out) + pieces.lo());
  p.wait(trace::rank(), flag, models::sync::Compare::kGe, 1, spec.output_buffer, trace::reg(kRegAt), pieces.bytes());
  p.load(spec.output_buffer, trace::rank(), trace::reg(kRegAt), pieces.bytes());
  p.store(spec.output_buffer, next, trace::reg(kRegAt), pieces.bytes());
  p.release(next, flag, 1);
  p.end_loop();
  p.end_loop();

  // The last rank: the kernel ends only when every piece has arrived.
  p.loop(is_last);
  p.loop(count);
  pieces.set_piece(p, 1);
  p.wait(trace::rank(), flag, models::sync::Compare::kGe, 1, spec.output_buffer, Expr(out) + pieces.lo(),
         pieces.bytes());
  p.end_loop();
  p.end_loop();
}

void append_one_shot(ProgramBuilder& p, std::uint32_t ranks, const BroadcastSpec& spec,
                     const PieceRegisters& pieces) {
  const auto r = static_cast<std::int64_t>(ranks);
  const auto count = static_cast<std::int64_t>(pieces.split.pieces);
  const auto channels = static_cast<std::int64_t>(pieces.split.channels);
  const auto root = i64(spec.root);
  const Expr ready = Expr(i64(spec.flag_base)) + trace::wg();
  const auto done_from = [&](const Expr& source) {
    return Expr(i64(spec.flag_base) + channels) + source * channels + trace::wg();
  };
  const Expr peer = trace::reg(kRegAt);
  // The root's peer i: root + 1 + i, the others in rank order.
  const auto set_peer = [&](int depth) {
    p.set(kRegAt, trace::rank() + Expr(1) + trace::loop(depth));
    p.set(kRegAt, trace::mod(peer, ranks));
  };
  const Expr is_root = set_is_zero_mod(p, kRegIsRoot, trace::rank() + Expr(r - root), ranks);

  // The root: announce the input, copy its own slice, then stay until every peer has read it.
  p.loop(is_root);
  p.loop(r - 1);
  set_peer(1);
  p.release(peer, ready, 1);
  p.end_loop();
  if (!spec.in_place) {
    p.loop(count);
    pieces.set_piece(p, 1);
    root_piece(p, spec, pieces);
    p.end_loop();
  }
  p.loop(r - 1);
  set_peer(1);
  p.wait(trace::rank(), done_from(peer), models::sync::Compare::kGe, 1);
  p.end_loop();
  p.end_loop();

  // Every other rank: pull this channel's slice from the root.
  const Source src = source_of(spec);
  p.loop(Expr(1) - is_root);
  p.wait(trace::rank(), ready, models::sync::Compare::kGe, 1);
  p.loop(count);
  pieces.set_piece(p, 1);
  p.load(src.buffer, Expr(root), Expr(src.offset) + pieces.lo(), pieces.bytes());
  p.store(spec.output_buffer, trace::rank(), Expr(i64(spec.output_offset)) + pieces.lo(), pieces.bytes());
  p.end_loop();
  p.release(Expr(root), done_from(trace::rank()), 1);
  p.end_loop();
}

}  // namespace

Expr set_is_zero_mod(ProgramBuilder& p, int reg, const Expr& value, std::uint32_t ranks) {
  if (ranks < 2) throw std::invalid_argument("set_is_zero_mod: needs at least 2 ranks");
  const auto target = static_cast<std::uint8_t>(reg);
  const auto r = static_cast<std::int64_t>(ranks);
  // x = value mod R in [0, R - 1]; R - 1 - x is R - 1 exactly when x is 0, so its quotient by
  // R - 1 is 1 then and 0 otherwise.
  p.set(target, value);
  p.set(target, trace::mod(trace::reg(reg), ranks));
  p.set(target, Expr(r - 1) - trace::reg(reg));
  return trace::div(trace::reg(reg), ranks - 1);
}

const std::vector<std::pair<std::string, BroadcastAlgorithm>>& broadcast_algorithm_choices() {
  static const std::vector<std::pair<std::string, BroadcastAlgorithm>> names{
      {"ring", BroadcastAlgorithm::kRing}, {"one_shot", BroadcastAlgorithm::kOneShot}};
  return names;
}

std::optional<std::string> broadcast_problem(const BroadcastSpec& spec, std::uint32_t ranks) {
  if (ranks == 0) return "ranks must be at least 1";
  if (spec.root >= ranks) return fmt::format("root {} is not one of the {} ranks", spec.root, ranks);
  if (spec.bytes == 0) return "an empty message";
  if (spec.channels == 0) return "channels must be at least 1";
  if (spec.chunk_bytes == 0) return "chunk_bytes must be positive";
  const std::uint64_t elem = element_bytes(spec.dtype);
  if (spec.bytes % elem != 0) return fmt::format("{} bytes are not whole {}-byte elements", spec.bytes, elem);
  return std::nullopt;
}

std::uint64_t broadcast_flags(const BroadcastSpec& spec, std::uint32_t ranks) {
  if (auto problem = broadcast_problem(spec, ranks)) throw std::invalid_argument("broadcast: " + *problem);
  const AllGatherSplit s = split_of_spec(spec);
  if (spec.algorithm == BroadcastAlgorithm::kOneShot) return (std::uint64_t{ranks} + 1) * s.channels;
  return std::uint64_t{s.channels} * s.pieces;
}

std::vector<std::uint32_t> append_broadcast(trace::TraceBuilder& builder, std::uint32_t ranks,
                                            const BroadcastSpec& spec) {
  if (auto problem = broadcast_problem(spec, ranks)) throw std::invalid_argument("broadcast: " + *problem);
  const PieceRegisters pieces(split_of_spec(spec), element_bytes(spec.dtype));
  ProgramBuilder p(spec.name);
  pieces.set_channel(p);
  if (ranks == 1) {
    // Nothing to send: the root's copy alone (nothing at all in place).
    if (!spec.in_place) {
      p.loop(static_cast<std::int64_t>(pieces.split.pieces));
      pieces.set_piece(p, 0);
      root_piece(p, spec, pieces);
      p.end_loop();
    }
  } else if (spec.algorithm == BroadcastAlgorithm::kRing) {
    append_ring(p, ranks, spec, pieces);
  } else {
    append_one_shot(p, ranks, spec, pieces);
  }
  return launch_on_every_rank(builder, spec, ranks, pieces.split.channels, builder.program(std::move(p)));
}

}  // namespace tessera::workloads::patterns

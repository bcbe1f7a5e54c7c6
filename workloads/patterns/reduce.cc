#include "workloads/patterns/reduce.h"

#include <stdexcept>

#include <fmt/format.h>

#include "workloads/patterns/all_gather.h"
#include "workloads/patterns/broadcast.h"
#include "workloads/patterns/collective_launch.h"
#include "workloads/patterns/gemm_tiling.h"
#include "workloads/patterns/reduce_scatter.h"

namespace tessera::workloads::patterns {

using trace::Expr;
using trace::ProgramBuilder;

namespace {

// Registers beyond the piece registers r0..r2, the ring's r3 (next rank) and r7 (its stride).
constexpr int kRegIsRoot = 4;   // set_is_zero_mod of the distance from the root
constexpr int kRegAt = 5;       // ring: the piece's offset in the receive buffer; one-shot: a peer
constexpr int kRegIsFirst = 6;  // ring: set_is_zero_mod of the distance from the chain's first rank

std::int64_t i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

AllGatherSplit split_of_spec(const ReduceSpec& spec) {
  AllGatherSpec cut;
  cut.shard_bytes = spec.bytes;
  cut.channels = spec.channels;
  cut.chunk_bytes = spec.chunk_bytes;
  return split_of(cut);
}

void append_ring(ProgramBuilder& p, std::uint32_t ranks, const ReduceSpec& spec, const PieceRegisters& pieces) {
  const auto r = static_cast<std::int64_t>(ranks);
  const auto count = static_cast<std::int64_t>(pieces.split.pieces);
  const Expr next = trace::reg(kRegRingNext);
  const Expr stride = trace::reg(kRegRingStride);
  const Expr at = trace::reg(kRegAt);
  const Expr flag = Expr(i64(spec.flag_base)) + trace::wg() * count + trace::loop(1);
  const Expr input_at = Expr(i64(spec.input_offset)) + pieces.lo();
  const auto add = [&] { p.compute(pieces.add_flops(1), models::compute::Dtype::kFp32); };
  p.set(kRegRingStride, ring_stride_expr(ranks, spec.spread_rings));
  p.set(kRegRingNext, trace::rank() + stride);
  p.set(kRegRingNext, trace::mod(next, ranks));
  // The chain of a channel is root + d, root + 2 d, ..., root: the first rank is one stride
  // past the root (rank - d - root is 0 mod R; 2 R keeps the value non-negative). The root is
  // never the first (d is not 0 mod R).
  const Expr is_root = set_is_zero_mod(p, kRegIsRoot, trace::rank() + Expr(r - i64(spec.root)), ranks);
  const Expr is_first = set_is_zero_mod(p, kRegIsFirst, trace::rank() - stride + Expr(2 * r - i64(spec.root)), ranks);

  // The first rank: its input starts every piece's partial sum.
  p.loop(is_first);
  p.loop(count);
  pieces.set_piece(p, 1);
  p.load(spec.input_buffer, trace::rank(), input_at, pieces.bytes());
  p.store(spec.scratch_buffer, next, Expr(i64(spec.scratch_offset)) + pieces.lo(), pieces.bytes());
  p.release(next, flag, 1);
  p.end_loop();
  p.end_loop();

  // The middle of the chain and the root: add the own input to what arrived; the middle sends
  // the sum on, the root keeps it.
  const auto receive_and_add = [&] {
    pieces.set_piece(p, 1);
    p.set(kRegAt, Expr(i64(spec.scratch_offset)) + pieces.lo());
    p.wait(trace::rank(), flag, models::sync::Compare::kGe, 1, spec.scratch_buffer, at, pieces.bytes());
    p.load(spec.scratch_buffer, trace::rank(), at, pieces.bytes());
    p.load(spec.input_buffer, trace::rank(), input_at, pieces.bytes());
    add();
  };
  p.loop(Expr(1) - is_root - is_first);
  p.loop(count);
  receive_and_add();
  p.store(spec.scratch_buffer, next, at, pieces.bytes());
  p.release(next, flag, 1);
  p.end_loop();
  p.end_loop();

  p.loop(is_root);
  p.loop(count);
  receive_and_add();
  p.store(spec.output_buffer, trace::rank(), Expr(i64(spec.output_offset)) + pieces.lo(), pieces.bytes());
  p.end_loop();
  p.end_loop();
}

void append_one_shot(ProgramBuilder& p, std::uint32_t ranks, const ReduceSpec& spec, const PieceRegisters& pieces) {
  const auto r = static_cast<std::int64_t>(ranks);
  const auto count = static_cast<std::int64_t>(pieces.split.pieces);
  const auto channels = static_cast<std::int64_t>(pieces.split.channels);
  const auto root = i64(spec.root);
  const Expr peer = trace::reg(kRegAt);
  const Expr input_at = Expr(i64(spec.input_offset)) + pieces.lo();
  const auto ready_from = [&](const Expr& source) {
    return Expr(i64(spec.flag_base)) + source * channels + trace::wg();
  };
  const Expr done = Expr(i64(spec.flag_base) + r * channels) + trace::wg();
  // The root's peer i (0-based) on channel c: root + 1 + (i + c) mod (R - 1), so that the
  // channels start on different peers and together keep every link busy.
  const auto set_peer = [&](int depth) {
    p.set(kRegAt, trace::loop(depth) + trace::wg());
    p.set(kRegAt, trace::mod(peer, ranks - 1));
    p.set(kRegAt, trace::rank() + Expr(1) + peer);
    p.set(kRegAt, trace::mod(peer, ranks));
  };
  const Expr is_root = set_is_zero_mod(p, kRegIsRoot, trace::rank() + Expr(r - root), ranks);

  // Every other rank: announce the input, then stay until the root has read it.
  p.loop(Expr(1) - is_root);
  p.release(Expr(root), ready_from(trace::rank()), 1);
  p.wait(trace::rank(), done, models::sync::Compare::kGe, 1);
  p.end_loop();

  // The root: every peer's input is complete before it is read.
  p.loop(is_root);
  p.loop(r - 1);
  set_peer(1);
  p.wait(trace::rank(), ready_from(peer), models::sync::Compare::kGe, 1);
  p.end_loop();
  p.loop(count);
  pieces.set_piece(p, 1);
  p.load(spec.input_buffer, trace::rank(), input_at, pieces.bytes());
  p.loop(r - 1);
  set_peer(2);
  p.load(spec.input_buffer, peer, input_at, pieces.bytes());
  p.end_loop();
  p.compute(pieces.add_flops(r - 1), models::compute::Dtype::kFp32);
  p.store(spec.output_buffer, trace::rank(), Expr(i64(spec.output_offset)) + pieces.lo(), pieces.bytes());
  p.end_loop();
  p.loop(r - 1);
  set_peer(1);
  p.release(peer, done, 1);
  p.end_loop();
  p.end_loop();
}

}  // namespace

const std::vector<std::pair<std::string, ReduceAlgorithm>>& reduce_algorithm_choices() {
  static const std::vector<std::pair<std::string, ReduceAlgorithm>> names{{"ring", ReduceAlgorithm::kRing},
                                                                          {"one_shot", ReduceAlgorithm::kOneShot}};
  return names;
}

std::optional<std::string> reduce_problem(const ReduceSpec& spec, std::uint32_t ranks) {
  if (ranks == 0) return "ranks must be at least 1";
  if (spec.root >= ranks) return fmt::format("root {} is not one of the {} ranks", spec.root, ranks);
  if (spec.bytes == 0) return "an empty buffer";
  if (spec.channels == 0) return "channels must be at least 1";
  if (spec.chunk_bytes == 0) return "chunk_bytes must be positive";
  const std::uint64_t elem = element_bytes(spec.dtype);
  if (spec.bytes % elem != 0) return fmt::format("{} bytes are not whole {}-byte elements", spec.bytes, elem);
  return std::nullopt;
}

std::uint64_t reduce_scratch_bytes(const ReduceSpec& spec) {
  return spec.algorithm == ReduceAlgorithm::kRing ? spec.bytes : 0;
}

std::uint64_t reduce_flags(const ReduceSpec& spec, std::uint32_t ranks) {
  if (auto problem = reduce_problem(spec, ranks)) throw std::invalid_argument("reduce: " + *problem);
  const AllGatherSplit s = split_of_spec(spec);
  if (spec.algorithm == ReduceAlgorithm::kOneShot) return (std::uint64_t{ranks} + 1) * s.channels;
  return std::uint64_t{s.channels} * s.pieces;
}

std::vector<std::uint32_t> append_reduce(trace::TraceBuilder& builder, std::uint32_t ranks, const ReduceSpec& spec) {
  if (auto problem = reduce_problem(spec, ranks)) throw std::invalid_argument("reduce: " + *problem);
  const PieceRegisters pieces(split_of_spec(spec), element_bytes(spec.dtype));
  ProgramBuilder p(spec.name);
  pieces.set_channel(p);
  if (ranks == 1) {
    // Nothing to add: the input is the sum.
    p.loop(static_cast<std::int64_t>(pieces.split.pieces));
    pieces.set_piece(p, 0);
    p.load(spec.input_buffer, trace::rank(), Expr(i64(spec.input_offset)) + pieces.lo(), pieces.bytes());
    p.store(spec.output_buffer, trace::rank(), Expr(i64(spec.output_offset)) + pieces.lo(), pieces.bytes());
    p.end_loop();
  } else if (spec.algorithm == ReduceAlgorithm::kRing) {
    append_ring(p, ranks, spec, pieces);
  } else {
    append_one_shot(p, ranks, spec, pieces);
  }
  return launch_on_every_rank(builder, spec, ranks, pieces.split.channels, builder.program(std::move(p)));
}

}  // namespace tessera::workloads::patterns

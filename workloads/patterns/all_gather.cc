#include "workloads/patterns/all_gather.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "workloads/patterns/collective_launch.h"
#include "workloads/patterns/reduce_scatter.h"

namespace tessera::workloads::patterns {

using trace::Expr;
using trace::ProgramBuilder;

namespace {

// Registers of the all-gather programs.
constexpr int kRegChannelBase = 0;  // channel * pieces * units: piece q's q * units without j
constexpr int kRegPieceLo = 1;      // q * units
constexpr int kRegPieceHi = 2;      // (q + 1) * units
constexpr int kRegNext = 3;         // ring: (rank + stride) % R
constexpr int kRegStride = 7;       // ring: this channel's stride (reduce_scatter.h ring_stride)
constexpr int kRegShard = 4;        // the shard (or peer) of the current step
constexpr int kRegFlag = 5;
constexpr int kRegOffset = 6;

std::int64_t i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

// Helpers that write the piece arithmetic of one split.
struct PieceMath {
  AllGatherSplit split;
  std::uint32_t divisor = 1;  // channels * pieces

  explicit PieceMath(const AllGatherSplit& s) : split(s) {
    const std::uint64_t q = std::uint64_t{s.channels} * s.pieces;
    if (q > 0xFFFF'FFFFULL) throw std::invalid_argument("all-gather: more than 2^32 pieces (raise chunk_bytes)");
    divisor = static_cast<std::uint32_t>(q);
  }
  // r1 = q * units, r2 = (q + 1) * units for piece j = loop(depth) of this channel.
  void set_piece(ProgramBuilder& p, int depth) const {
    const auto units = i64(split.units);
    p.set(kRegPieceLo, trace::reg(kRegChannelBase) + trace::loop(depth) * units);
    p.set(kRegPieceHi, trace::reg(kRegChannelBase) + trace::loop(depth) * units + Expr(units));
  }
  Expr lo() const { return trace::div(trace::reg(kRegPieceLo), divisor) * i64(split.unit_bytes); }
  Expr hi() const { return trace::div(trace::reg(kRegPieceHi), divisor) * i64(split.unit_bytes); }
  Expr bytes() const { return hi() - lo(); }
};

void append_ring(ProgramBuilder& p, std::uint32_t ranks, const AllGatherSpec& spec, const PieceMath& math) {
  const auto r = static_cast<std::int64_t>(ranks);
  const auto pieces = static_cast<std::int64_t>(math.split.pieces);
  const auto shard = i64(spec.shard_bytes);
  const auto out = i64(spec.output_offset);
  const auto flag_of = [&](const Expr& shard_index, int piece_depth) {
    return Expr(i64(spec.flag_base)) + trace::wg() * (r * pieces) + shard_index * pieces + trace::loop(piece_depth);
  };
  const Expr stride = trace::reg(kRegStride);
  p.set(kRegStride, ring_stride_expr(ranks, spec.spread_rings));
  p.set(kRegNext, trace::rank() + stride);
  p.set(kRegNext, trace::mod(trace::reg(kRegNext), ranks));

  // Step 0: the own shard, to the own slot (unless in place) and to the next rank.
  p.loop(pieces);
  math.set_piece(p, 0);
  const Expr own_slot = Expr(out) + trace::rank() * shard + math.lo();
  if (spec.in_place) {
    p.load(spec.output_buffer, trace::rank(), own_slot, math.bytes());
  } else {
    p.load(spec.input_buffer, trace::rank(), Expr(i64(spec.input_offset)) + math.lo(), math.bytes());
    p.store(spec.output_buffer, trace::rank(), own_slot, math.bytes());
  }
  if (ranks > 1) {
    p.store(spec.output_buffer, trace::reg(kRegNext), own_slot, math.bytes());
    p.release(trace::reg(kRegNext), flag_of(trace::rank(), 0), 1);
  }
  p.end_loop();

  // Steps 1 .. R-2: forward shard (rank - s stride) mod R, received at step s - 1.
  if (ranks > 2) {
    p.set(kRegShard, trace::rank());
    p.loop(r - 2);
    p.set(kRegShard, trace::reg(kRegShard) + Expr(r) - stride);  // one stride back each step
    p.set(kRegShard, trace::mod(trace::reg(kRegShard), ranks));
    p.loop(pieces);
    math.set_piece(p, 1);
    p.set(kRegFlag, flag_of(trace::reg(kRegShard), 1));
    p.set(kRegOffset, Expr(out) + trace::reg(kRegShard) * shard + math.lo());
    p.wait(trace::rank(), trace::reg(kRegFlag), models::sync::Compare::kGe, 1, spec.output_buffer,
           trace::reg(kRegOffset), math.bytes());
    p.load(spec.output_buffer, trace::rank(), trace::reg(kRegOffset), math.bytes());
    p.store(spec.output_buffer, trace::reg(kRegNext), trace::reg(kRegOffset), math.bytes());
    p.release(trace::reg(kRegNext), trace::reg(kRegFlag), 1);
    p.end_loop();
    p.end_loop();
  }

  // The last shard received (sent at step R-2 by the previous rank) is (rank + stride) mod R.
  if (ranks > 1) {
    p.loop(pieces);
    math.set_piece(p, 0);
    p.wait(trace::rank(), flag_of(trace::reg(kRegNext), 0), models::sync::Compare::kGe, 1, spec.output_buffer,
           Expr(out) + trace::reg(kRegNext) * shard + math.lo(), math.bytes());
    p.end_loop();
  }
}

void append_one_shot(ProgramBuilder& p, std::uint32_t ranks, const AllGatherSpec& spec, const PieceMath& math) {
  const auto r = static_cast<std::int64_t>(ranks);
  const auto pieces = static_cast<std::int64_t>(math.split.pieces);
  const auto shard = i64(spec.shard_bytes);
  const auto out = i64(spec.output_offset);
  const auto channels = static_cast<std::int64_t>(math.split.channels);
  // Peer i (0-based) of this rank: (rank + 1 + i) mod R, so that the ranks start on different peers.
  const auto set_peer = [&](int depth) {
    p.set(kRegShard, trace::rank() + Expr(1) + trace::loop(depth));
    p.set(kRegShard, trace::mod(trace::reg(kRegShard), ranks));
  };

  p.loop(pieces);
  math.set_piece(p, 0);
  p.set(kRegOffset, Expr(out) + trace::rank() * shard + math.lo());
  if (spec.in_place) {
    p.load(spec.output_buffer, trace::rank(), trace::reg(kRegOffset), math.bytes());
  } else {
    p.load(spec.input_buffer, trace::rank(), Expr(i64(spec.input_offset)) + math.lo(), math.bytes());
    p.store(spec.output_buffer, trace::rank(), trace::reg(kRegOffset), math.bytes());
  }
  if (ranks > 1) {
    p.loop(r - 1);
    set_peer(1);
    p.store(spec.output_buffer, trace::reg(kRegShard), trace::reg(kRegOffset), math.bytes());
    p.end_loop();
  }
  p.end_loop();
  if (ranks == 1) return;

  // Release: this channel's slice of our shard is in every peer.
  p.loop(r - 1);
  set_peer(0);
  p.release(trace::reg(kRegShard), Expr(i64(spec.flag_base)) + trace::rank() * channels + trace::wg(), 1);
  p.end_loop();
  // Receive: this channel's slice of every peer's shard, pieces [0, pieces) of the channel.
  p.set(kRegPieceLo, trace::reg(kRegChannelBase));
  p.set(kRegPieceHi, trace::reg(kRegChannelBase) + Expr(pieces * i64(math.split.units)));
  p.loop(r - 1);
  set_peer(0);
  p.wait(trace::rank(), Expr(i64(spec.flag_base)) + trace::reg(kRegShard) * channels + trace::wg(),
         models::sync::Compare::kGe, 1, spec.output_buffer, Expr(out) + trace::reg(kRegShard) * shard + math.lo(),
         math.bytes());
  p.end_loop();
}

}  // namespace

const std::vector<std::pair<std::string, AllGatherAlgorithm>>& all_gather_algorithm_choices() {
  static const std::vector<std::pair<std::string, AllGatherAlgorithm>> names{{"ring", AllGatherAlgorithm::kRing},
                                                                             {"one_shot", AllGatherAlgorithm::kOneShot}};
  return names;
}

AllGatherSplit split_of(const AllGatherSpec& spec) {
  if (spec.shard_bytes == 0) throw std::invalid_argument("all-gather: shard_bytes must be positive");
  if (spec.channels == 0) throw std::invalid_argument("all-gather: channels must be at least 1");
  if (spec.chunk_bytes == 0) throw std::invalid_argument("all-gather: chunk_bytes must be positive");
  AllGatherSplit s;
  // The largest power of two up to 128 that divides the shard: pieces stay line-aligned
  // whenever the shard is a multiple of a line.
  s.unit_bytes = std::min<std::uint64_t>(128, spec.shard_bytes & (~spec.shard_bytes + 1));
  s.units = spec.shard_bytes / s.unit_bytes;
  s.channels = static_cast<std::uint32_t>(std::min<std::uint64_t>(spec.channels, s.units));
  const std::uint64_t slice_bytes = (s.units + s.channels - 1) / s.channels * s.unit_bytes;
  const std::uint64_t pieces = (slice_bytes + spec.chunk_bytes - 1) / spec.chunk_bytes;
  s.pieces = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, std::min(pieces, s.units / s.channels)));
  return s;
}

std::uint64_t all_gather_flags(const AllGatherSpec& spec, std::uint32_t ranks) {
  const AllGatherSplit s = split_of(spec);
  if (spec.algorithm == AllGatherAlgorithm::kOneShot) return std::uint64_t{ranks} * s.channels;
  return std::uint64_t{ranks} * s.channels * s.pieces;
}

std::vector<std::uint32_t> append_all_gather(trace::TraceBuilder& builder, std::uint32_t ranks,
                                             const AllGatherSpec& spec) {
  if (ranks == 0) throw std::invalid_argument("all-gather: ranks must be at least 1");
  const PieceMath math(split_of(spec));
  ProgramBuilder p(spec.name);
  p.set(kRegChannelBase, trace::wg() * (static_cast<std::int64_t>(math.split.pieces) * i64(math.split.units)));
  if (spec.algorithm == AllGatherAlgorithm::kRing) {
    append_ring(p, ranks, spec, math);
  } else {
    append_one_shot(p, ranks, spec, math);
  }
  return launch_on_every_rank(builder, spec, ranks, math.split.channels, builder.program(std::move(p)));
}

}  // namespace tessera::workloads::patterns

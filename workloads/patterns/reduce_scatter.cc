#include "workloads/patterns/reduce_scatter.h"

#include <stdexcept>

#include <fmt/format.h>

#include "workloads/patterns/collective_launch.h"

#include "workloads/patterns/gemm_tiling.h"

namespace tessera::workloads::patterns {

using trace::Expr;
using trace::ProgramBuilder;

namespace {

// Registers of the ring fragment beyond the piece registers r0..r2 and r3 (next rank).
constexpr int kRegChunk = 4;   // the chunk of the current step
constexpr int kRegFlag = 5;
constexpr int kRegReceived = 6;  // the piece's offset in the receive buffer

std::int64_t i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

AllGatherSplit split_of_shard(std::uint64_t shard_bytes, std::uint32_t channels, std::uint64_t chunk_bytes) {
  AllGatherSpec cut;
  cut.shard_bytes = shard_bytes;
  cut.channels = channels;
  cut.chunk_bytes = chunk_bytes;
  return split_of(cut);
}

}  // namespace

PieceRegisters::PieceRegisters(const AllGatherSplit& s, std::uint32_t elem) : split(s), elem_bytes(elem) {
  const std::uint64_t q = std::uint64_t{s.channels} * s.pieces;
  if (q > 0xFFFF'FFFFULL) throw std::invalid_argument("collective: more than 2^32 pieces (raise chunk_bytes)");
  if (elem == 0 || s.unit_bytes % elem != 0) {
    throw std::invalid_argument(fmt::format("collective: {}-byte pieces cannot hold whole {}-byte elements (the "
                                            "data must be a multiple of the element size)",
                                            s.unit_bytes, elem));
  }
  divisor = static_cast<std::uint32_t>(q);
}

void PieceRegisters::set_channel(ProgramBuilder& p) const {
  p.set(kRegChannelBase, trace::wg() * (static_cast<std::int64_t>(split.pieces) * i64(split.units)));
}

void PieceRegisters::set_piece(ProgramBuilder& p, int depth) const {
  const auto units = i64(split.units);
  p.set(kRegLo, trace::reg(kRegChannelBase) + trace::loop(depth) * units);
  p.set(kRegHi, trace::reg(kRegChannelBase) + trace::loop(depth) * units + Expr(units));
}

Expr PieceRegisters::lo() const { return trace::div(trace::reg(kRegLo), divisor) * i64(split.unit_bytes); }
Expr PieceRegisters::hi() const { return trace::div(trace::reg(kRegHi), divisor) * i64(split.unit_bytes); }
Expr PieceRegisters::bytes() const { return hi() - lo(); }

Expr PieceRegisters::add_flops(std::int64_t inputs_added) const {
  const std::int64_t per_unit = i64(split.unit_bytes / elem_bytes) * kFlopsPerAdd * inputs_added;
  return (trace::div(trace::reg(kRegHi), divisor) - trace::div(trace::reg(kRegLo), divisor)) * per_unit;
}

std::uint32_t ring_stride(std::uint32_t ranks, std::uint32_t channel, bool spread_rings) {
  if (!spread_rings || ranks < 3) return 1;
  if ((ranks & (ranks - 1)) == 0) return 1 + 2 * (channel % (ranks / 2));
  return channel % 2 == 0 ? 1 : ranks - 1;
}

Expr ring_stride_expr(std::uint32_t ranks, bool spread_rings) {
  // ring_stride as an expression of the channel (the workgroup): 1 + step * (wg mod count).
  if (!spread_rings || ranks < 3) return Expr(1);
  const bool power_of_two = (ranks & (ranks - 1)) == 0;
  const std::int64_t step = power_of_two ? 2 : static_cast<std::int64_t>(ranks) - 2;
  const std::uint32_t count_of_rings = power_of_two ? ranks / 2 : 2;
  return Expr(1) + trace::mod(trace::wg(), count_of_rings) * step;
}

void append_ring_reduce_steps(ProgramBuilder& p, std::uint32_t ranks, const RingReduceLayout& layout,
                              const PieceRegisters& pieces, const StoreResult& store_result) {
  const auto r = static_cast<std::int64_t>(ranks);
  const auto count = static_cast<std::int64_t>(pieces.split.pieces);
  const auto shard = i64(layout.shard_bytes);
  const Expr chunk = trace::reg(kRegChunk);
  const Expr next = trace::reg(kRegRingNext);
  const auto input_at = [&](const Expr& c) { return Expr(i64(layout.input_offset)) + c * shard + pieces.lo(); };
  const auto scratch_at = [&](const Expr& c) { return Expr(i64(layout.scratch_offset)) + c * shard + pieces.lo(); };
  const auto flag_of = [&](const Expr& c, int piece_depth) {
    return Expr(i64(layout.flag_base)) + trace::wg() * (r * count) + c * count + trace::loop(piece_depth);
  };
  const auto add = [&] { p.compute(pieces.add_flops(1), models::compute::Dtype::kFp32); };

  const Expr stride = trace::reg(kRegRingStride);
  p.set(kRegRingStride, ring_stride_expr(ranks, layout.spread_rings));
  p.set(kRegRingNext, trace::rank() + stride);
  p.set(kRegRingNext, trace::mod(next, ranks));
  // The chunk one stride back: the chunk of the next step.
  const auto step_back = [&] {
    p.set(kRegChunk, chunk + Expr(r) - stride);
    p.set(kRegChunk, trace::mod(chunk, ranks));
  };
  if (ranks == 1) {
    p.loop(count);
    pieces.set_piece(p, 0);
    p.load(layout.input_buffer, trace::rank(), input_at(Expr(0)), pieces.bytes());
    store_result(p);
    p.end_loop();
    return;
  }

  // Step 0: this rank's part of chunk (rank - stride) mod R, to the next rank.
  p.set(kRegChunk, trace::rank());
  step_back();
  p.loop(count);
  pieces.set_piece(p, 0);
  p.load(layout.input_buffer, trace::rank(), input_at(chunk), pieces.bytes());
  p.store(layout.scratch_buffer, next, scratch_at(chunk), pieces.bytes());
  p.release(next, flag_of(chunk, 0), 1);
  p.end_loop();

  // Steps 1 .. R-2: chunk (rank - (t + 1) stride) mod R arrives, gets this rank's part, moves on.
  if (ranks > 2) {
    p.loop(r - 2);
    step_back();
    p.loop(count);
    pieces.set_piece(p, 1);
    p.set(kRegFlag, flag_of(chunk, 1));
    p.set(kRegReceived, scratch_at(chunk));
    p.wait(trace::rank(), trace::reg(kRegFlag), models::sync::Compare::kGe, 1, layout.scratch_buffer,
           trace::reg(kRegReceived), pieces.bytes());
    p.load(layout.scratch_buffer, trace::rank(), trace::reg(kRegReceived), pieces.bytes());
    p.load(layout.input_buffer, trace::rank(), input_at(chunk), pieces.bytes());
    add();
    p.store(layout.scratch_buffer, next, trace::reg(kRegReceived), pieces.bytes());
    p.release(next, trace::reg(kRegFlag), 1);
    p.end_loop();
    p.end_loop();
  }

  // Last step: chunk `rank` arrives with every other rank's part in it.
  p.loop(count);
  pieces.set_piece(p, 0);
  p.set(kRegReceived, scratch_at(trace::rank()));
  p.wait(trace::rank(), flag_of(trace::rank(), 0), models::sync::Compare::kGe, 1, layout.scratch_buffer,
         trace::reg(kRegReceived), pieces.bytes());
  p.load(layout.scratch_buffer, trace::rank(), trace::reg(kRegReceived), pieces.bytes());
  p.load(layout.input_buffer, trace::rank(), input_at(trace::rank()), pieces.bytes());
  add();
  store_result(p);
  p.end_loop();
}

std::uint64_t reduce_scatter_flags(const ReduceScatterSpec& spec, std::uint32_t ranks) {
  const AllGatherSplit s = split_of_shard(spec.shard_bytes, spec.channels, spec.chunk_bytes);
  return std::uint64_t{ranks} * s.channels * s.pieces;
}

std::vector<std::uint32_t> append_reduce_scatter(trace::TraceBuilder& builder, std::uint32_t ranks,
                                                 const ReduceScatterSpec& spec) {
  if (ranks == 0) throw std::invalid_argument("reduce-scatter: ranks must be at least 1");
  const PieceRegisters pieces(split_of_shard(spec.shard_bytes, spec.channels, spec.chunk_bytes),
                              element_bytes(spec.dtype));
  RingReduceLayout layout;
  layout.spread_rings = spec.spread_rings;
  layout.input_buffer = spec.input_buffer;
  layout.input_offset = spec.input_offset;
  layout.scratch_buffer = spec.scratch_buffer;
  layout.scratch_offset = spec.scratch_offset;
  layout.shard_bytes = spec.shard_bytes;
  layout.flag_base = spec.flag_base;

  ProgramBuilder p(spec.name);
  pieces.set_channel(p);
  append_ring_reduce_steps(p, ranks, layout, pieces, [&](ProgramBuilder& body) {
    body.store(spec.output_buffer, trace::rank(), Expr(i64(spec.output_offset)) + pieces.lo(), pieces.bytes());
  });
  return launch_on_every_rank(builder, spec, ranks, pieces.split.channels, builder.program(std::move(p)));
}

}  // namespace tessera::workloads::patterns

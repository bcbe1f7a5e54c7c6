#include "workloads/patterns/all_reduce.h"

#include <stdexcept>

#include <fmt/format.h>

#include "workloads/patterns/collective_launch.h"

#include "workloads/patterns/all_gather.h"
#include "workloads/patterns/gemm_tiling.h"
#include "workloads/patterns/reduce_scatter.h"

namespace tessera::workloads::patterns {

using trace::Expr;
using trace::ProgramBuilder;

namespace {

// Registers beyond the piece registers r0..r2 and the ring's r3 (next rank).
constexpr int kRegChunk = 4;  // ring: the chunk of a gather step; one-shot: a peer
constexpr int kRegFlag = 5;
constexpr int kRegOut = 6;  // the piece's offset in the output (r7 holds the ring's stride)

std::int64_t i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

// Ring: every piece arithmetic is per chunk (bytes / R); one-shot: over the whole buffer.
AllGatherSplit split_of_spec(const AllReduceSpec& spec, std::uint32_t ranks) {
  AllGatherSpec cut;
  cut.shard_bytes = spec.algorithm == AllReduceAlgorithm::kRing ? spec.bytes / ranks : spec.bytes;
  cut.channels = spec.channels;
  cut.chunk_bytes = spec.chunk_bytes;
  return split_of(cut);
}

void append_ring(ProgramBuilder& p, std::uint32_t ranks, const AllReduceSpec& spec, const PieceRegisters& pieces) {
  const auto r = static_cast<std::int64_t>(ranks);
  const auto count = static_cast<std::int64_t>(pieces.split.pieces);
  const auto shard = i64(spec.bytes / ranks);
  const auto out = i64(spec.output_offset);
  const Expr next = trace::reg(kRegRingNext);
  // The gather steps' flags come after the reduce steps'.
  const auto gather_flag = [&](const Expr& chunk, int piece_depth) {
    return Expr(i64(spec.flag_base) + r * i64(pieces.divisor)) + trace::wg() * (r * count) + chunk * count +
           trace::loop(piece_depth);
  };

  RingReduceLayout layout;
  layout.input_buffer = spec.input_buffer;
  layout.input_offset = spec.input_offset;
  layout.scratch_buffer = spec.scratch_buffer;
  layout.scratch_offset = spec.scratch_offset;
  layout.shard_bytes = spec.bytes / ranks;
  layout.flag_base = spec.flag_base;
  layout.spread_rings = spec.spread_rings;
  // The last reduce step is also the first gather step: the sum of chunk `rank` goes to this
  // rank's output and on to the next rank's.
  append_ring_reduce_steps(p, ranks, layout, pieces, [&](ProgramBuilder& body) {
    body.set(kRegOut, Expr(out) + trace::rank() * shard + pieces.lo());
    body.store(spec.output_buffer, trace::rank(), trace::reg(kRegOut), pieces.bytes());
    if (ranks == 1) return;
    body.store(spec.output_buffer, next, trace::reg(kRegOut), pieces.bytes());
    body.release(next, gather_flag(trace::rank(), 0), 1);
  });
  if (ranks == 1) return;

  // Gather steps 1 .. R-2: forward chunk (rank - g stride) mod R, received at step g - 1.
  if (ranks > 2) {
    p.set(kRegChunk, trace::rank());
    p.loop(r - 2);
    p.set(kRegChunk, trace::reg(kRegChunk) + Expr(r) - trace::reg(kRegRingStride));
    p.set(kRegChunk, trace::mod(trace::reg(kRegChunk), ranks));
    p.loop(count);
    pieces.set_piece(p, 1);
    p.set(kRegFlag, gather_flag(trace::reg(kRegChunk), 1));
    p.set(kRegOut, Expr(out) + trace::reg(kRegChunk) * shard + pieces.lo());
    p.wait(trace::rank(), trace::reg(kRegFlag), models::sync::Compare::kGe, 1, spec.output_buffer,
           trace::reg(kRegOut), pieces.bytes());
    p.load(spec.output_buffer, trace::rank(), trace::reg(kRegOut), pieces.bytes());
    p.store(spec.output_buffer, next, trace::reg(kRegOut), pieces.bytes());
    p.release(next, trace::reg(kRegFlag), 1);
    p.end_loop();
    p.end_loop();
  }

  // The last chunk received (sent at gather step R-2 by the previous rank) is the next rank's:
  // the kernel ends only when the rank holds every chunk.
  p.loop(count);
  pieces.set_piece(p, 0);
  p.wait(trace::rank(), gather_flag(next, 0), models::sync::Compare::kGe, 1, spec.output_buffer,
         Expr(out) + next * shard + pieces.lo(), pieces.bytes());
  p.end_loop();
}

void append_one_shot(ProgramBuilder& p, std::uint32_t ranks, const AllReduceSpec& spec, const PieceRegisters& pieces) {
  const auto r = static_cast<std::int64_t>(ranks);
  const auto count = static_cast<std::int64_t>(pieces.split.pieces);
  const auto channels = static_cast<std::int64_t>(pieces.split.channels);
  const Expr peer = trace::reg(kRegChunk);
  // Peer i (0-based) of channel c: (rank + 1 + (i + c) mod (R - 1)) mod R. A workgroup reads one
  // peer at a time, so the ranks and the channels start on different peers: together they keep
  // every link busy, as a kernel that loads from all peers at once does.
  const auto set_peer = [&](int depth) {
    p.set(kRegChunk, trace::loop(depth) + trace::wg());
    p.set(kRegChunk, trace::mod(peer, ranks - 1));
    p.set(kRegChunk, trace::rank() + Expr(1) + peer);
    p.set(kRegChunk, trace::mod(peer, ranks));
  };
  // Flag (source, channel) of a barrier on the receiver.
  const auto barrier = [&](std::int64_t base) {
    p.loop(r - 1);
    set_peer(0);
    p.release(peer, Expr(base) + trace::rank() * channels + trace::wg(), 1);
    p.end_loop();
    p.loop(r - 1);
    set_peer(0);
    p.wait(trace::rank(), Expr(base) + peer * channels + trace::wg(), models::sync::Compare::kGe, 1);
    p.end_loop();
  };

  // Every peer's input is complete (its writer kernel has ended) before anyone reads it.
  if (ranks > 1) barrier(i64(spec.flag_base));
  p.loop(count);
  pieces.set_piece(p, 0);
  const Expr in_at = Expr(i64(spec.input_offset)) + pieces.lo();
  p.load(spec.input_buffer, trace::rank(), in_at, pieces.bytes());
  if (ranks > 1) {
    p.loop(r - 1);
    set_peer(1);
    p.load(spec.input_buffer, peer, in_at, pieces.bytes());
    p.end_loop();
    p.compute(pieces.add_flops(r - 1), models::compute::Dtype::kFp32);
  }
  p.store(spec.output_buffer, trace::rank(), Expr(i64(spec.output_offset)) + pieces.lo(), pieces.bytes());
  p.end_loop();
  // No rank leaves while a peer may still read its input.
  if (ranks > 1) barrier(i64(spec.flag_base) + r * channels);
}

}  // namespace

const std::vector<std::pair<std::string, AllReduceAlgorithm>>& all_reduce_algorithm_choices() {
  static const std::vector<std::pair<std::string, AllReduceAlgorithm>> names{{"ring", AllReduceAlgorithm::kRing},
                                                                             {"one_shot", AllReduceAlgorithm::kOneShot}};
  return names;
}

std::optional<std::string> all_reduce_problem(const AllReduceSpec& spec, std::uint32_t ranks) {
  if (ranks == 0) return "ranks must be at least 1";
  if (spec.bytes == 0) return "an empty buffer";
  if (spec.channels == 0) return "channels must be at least 1";
  if (spec.chunk_bytes == 0) return "chunk_bytes must be positive";
  const std::uint64_t elem = element_bytes(spec.dtype);
  if (spec.bytes % elem != 0) return fmt::format("{} bytes are not whole {}-byte elements", spec.bytes, elem);
  if (spec.algorithm == AllReduceAlgorithm::kRing && spec.bytes % (std::uint64_t{ranks} * elem) != 0) {
    return fmt::format("the ring cuts the {} bytes into {} equal chunks of whole {}-byte elements; they are not a "
                       "multiple of {}",
                       spec.bytes, ranks, elem, std::uint64_t{ranks} * elem);
  }
  return std::nullopt;
}

std::uint64_t all_reduce_scratch_bytes(const AllReduceSpec& spec) {
  return spec.algorithm == AllReduceAlgorithm::kRing ? spec.bytes : 0;
}

std::uint64_t all_reduce_flags(const AllReduceSpec& spec, std::uint32_t ranks) {
  if (auto problem = all_reduce_problem(spec, ranks)) throw std::invalid_argument("all-reduce: " + *problem);
  const AllGatherSplit s = split_of_spec(spec, ranks);
  if (spec.algorithm == AllReduceAlgorithm::kOneShot) return 2ULL * ranks * s.channels;
  return 2ULL * ranks * s.channels * s.pieces;
}

std::vector<std::uint32_t> append_all_reduce(trace::TraceBuilder& builder, std::uint32_t ranks,
                                             const AllReduceSpec& spec) {
  if (auto problem = all_reduce_problem(spec, ranks)) throw std::invalid_argument("all-reduce: " + *problem);
  const PieceRegisters pieces(split_of_spec(spec, ranks), element_bytes(spec.dtype));
  ProgramBuilder p(spec.name);
  pieces.set_channel(p);
  if (spec.algorithm == AllReduceAlgorithm::kRing) {
    append_ring(p, ranks, spec, pieces);
  } else {
    append_one_shot(p, ranks, spec, pieces);
  }
  return launch_on_every_rank(builder, spec, ranks, pieces.split.channels, builder.program(std::move(p)));
}

}  // namespace tessera::workloads::patterns

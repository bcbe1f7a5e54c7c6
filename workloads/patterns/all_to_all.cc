#include "workloads/patterns/all_to_all.h"

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

// Register beyond the piece registers r0..r2.
constexpr int kRegPeer = 4;

std::int64_t i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

AllGatherSplit split_of_spec(const AllToAllSpec& spec, std::uint32_t ranks) {
  AllGatherSpec cut;
  cut.shard_bytes = spec.bytes / ranks;
  cut.channels = spec.channels;
  cut.chunk_bytes = spec.chunk_bytes;
  return split_of(cut);
}

void append_direct(ProgramBuilder& p, std::uint32_t ranks, const AllToAllSpec& spec, const PieceRegisters& pieces) {
  const auto r = static_cast<std::int64_t>(ranks);
  const auto count = static_cast<std::int64_t>(pieces.split.pieces);
  const auto channels = static_cast<std::int64_t>(pieces.split.channels);
  const auto block = i64(spec.bytes / ranks);
  const Expr peer = trace::reg(kRegPeer);
  const auto input_at = [&](const Expr& destination) {
    return Expr(i64(spec.input_offset)) + destination * block + pieces.lo();
  };
  const auto slot_at = [&](const Expr& source) {
    return Expr(i64(spec.output_offset)) + source * block + pieces.lo();
  };
  const auto flag_of = [&](const Expr& source) {
    return Expr(i64(spec.flag_base)) + source * channels + trace::wg();
  };
  // Peer i (0-based) of channel c: rank + 1 + (i + c) mod (R - 1).
  const auto set_peer = [&](int depth) {
    p.set(kRegPeer, trace::loop(depth) + trace::wg());
    p.set(kRegPeer, trace::mod(peer, ranks - 1));
    p.set(kRegPeer, trace::rank() + Expr(1) + peer);
    p.set(kRegPeer, trace::mod(peer, ranks));
  };

  // The own block stays: a local copy into the own slot.
  p.loop(count);
  pieces.set_piece(p, 0);
  p.load(spec.input_buffer, trace::rank(), input_at(trace::rank()), pieces.bytes());
  p.store(spec.output_buffer, trace::rank(), slot_at(trace::rank()), pieces.bytes());
  p.end_loop();
  if (ranks == 1) return;

  // Send: this channel's slice of each peer's block into the peer's slot for this rank, and the
  // peer's flag as soon as the slice is there.
  p.loop(r - 1);
  set_peer(0);
  p.loop(count);
  pieces.set_piece(p, 1);
  p.load(spec.input_buffer, trace::rank(), input_at(peer), pieces.bytes());
  p.store(spec.output_buffer, peer, slot_at(trace::rank()), pieces.bytes());
  p.end_loop();
  p.release(peer, flag_of(trace::rank()), 1);
  p.end_loop();

  // Receive: this channel's slice of every peer's slot, pieces [0, pieces) of the channel.
  p.set(PieceRegisters::kRegLo, trace::reg(PieceRegisters::kRegChannelBase));
  p.set(PieceRegisters::kRegHi,
        trace::reg(PieceRegisters::kRegChannelBase) + Expr(count * i64(pieces.split.units)));
  p.loop(r - 1);
  set_peer(0);
  p.wait(trace::rank(), flag_of(peer), models::sync::Compare::kGe, 1, spec.output_buffer, slot_at(peer),
         pieces.bytes());
  p.end_loop();
}

}  // namespace

const std::vector<std::pair<std::string, AllToAllAlgorithm>>& all_to_all_algorithm_choices() {
  static const std::vector<std::pair<std::string, AllToAllAlgorithm>> names{{"direct", AllToAllAlgorithm::kDirect}};
  return names;
}

std::optional<std::string> all_to_all_problem(const AllToAllSpec& spec, std::uint32_t ranks) {
  if (ranks == 0) return "ranks must be at least 1";
  if (spec.bytes == 0) return "an empty buffer";
  if (spec.channels == 0) return "channels must be at least 1";
  if (spec.chunk_bytes == 0) return "chunk_bytes must be positive";
  const std::uint64_t elem = element_bytes(spec.dtype);
  if (spec.bytes % elem != 0) return fmt::format("{} bytes are not whole {}-byte elements", spec.bytes, elem);
  if (spec.bytes % (std::uint64_t{ranks} * elem) != 0) {
    return fmt::format("the {} bytes are {} equal blocks of whole {}-byte elements; they are not a multiple of {}",
                       spec.bytes, ranks, elem, std::uint64_t{ranks} * elem);
  }
  return std::nullopt;
}

std::uint64_t all_to_all_flags(const AllToAllSpec& spec, std::uint32_t ranks) {
  if (auto problem = all_to_all_problem(spec, ranks)) throw std::invalid_argument("all-to-all: " + *problem);
  return std::uint64_t{ranks} * split_of_spec(spec, ranks).channels;
}

std::vector<std::uint32_t> append_all_to_all(trace::TraceBuilder& builder, std::uint32_t ranks,
                                             const AllToAllSpec& spec) {
  if (auto problem = all_to_all_problem(spec, ranks)) throw std::invalid_argument("all-to-all: " + *problem);
  const PieceRegisters pieces(split_of_spec(spec, ranks), element_bytes(spec.dtype));
  ProgramBuilder p(spec.name);
  pieces.set_channel(p);
  append_direct(p, ranks, spec, pieces);
  return launch_on_every_rank(builder, spec, ranks, pieces.split.channels, builder.program(std::move(p)));
}

}  // namespace tessera::workloads::patterns

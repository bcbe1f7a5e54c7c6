#include "workloads/patterns/concat_kernel.h"

#include <stdexcept>

namespace tessera::workloads::patterns {

using trace::Expr;

std::vector<std::uint32_t> append_concat(trace::TraceBuilder& builder, std::uint32_t ranks, const ConcatSpec& spec) {
  const SlabLayout& s = spec.slabs;
  const std::uint64_t segments = s.m * s.slabs;
  if (segments == 0 || spec.workgroups == 0 || segments > 0xFFFF'FFFFULL || spec.workgroups > 0xFFFF'FFFFULL) {
    throw std::invalid_argument("concat: needs 1 .. 2^32 segments and workgroups");
  }
  const auto g = static_cast<std::int64_t>(spec.workgroups);
  const auto segment_bytes = static_cast<std::int64_t>(s.k_slab * s.elem_bytes);
  const Expr segment = trace::reg(1);

  trace::ProgramBuilder p(spec.name);
  // Segments wg, wg + G, ... < segments: (segments - 1 + G - wg) / G of them.
  p.set(0, Expr(static_cast<std::int64_t>(segments) - 1 + g) - trace::wg());
  p.loop(trace::div(trace::reg(0), static_cast<std::uint32_t>(spec.workgroups)));
  p.set(1, trace::wg() + trace::loop(0) * g);
  p.load(spec.source_buffer, trace::rank(), segment * segment_bytes, segment_bytes);
  Expr destination = segment * segment_bytes;
  if (s.addressing == TileAddressing::kRows) {
    const auto m = static_cast<std::uint32_t>(s.m);
    destination = trace::mod(segment, m) * static_cast<std::int64_t>(s.k_slab * s.slabs * s.elem_bytes) +
                  trace::div(segment, m) * segment_bytes;
  }
  p.store(spec.destination_buffer, trace::rank(), destination, segment_bytes);
  p.end_loop();

  const std::uint32_t program = builder.program(std::move(p));
  std::vector<std::uint32_t> kernels;
  for (std::uint32_t rank = 0; rank < ranks; ++rank) {
    trace::Kernel k;
    k.name = spec.name;
    k.rank = rank;
    k.stream = spec.stream;
    k.grid = spec.workgroups;
    k.program = program;
    kernels.push_back(builder.launch(std::move(k)));
  }
  return kernels;
}

}  // namespace tessera::workloads::patterns

#include "workloads/patterns/push_shards.h"

#include <stdexcept>

namespace tessera::workloads::patterns {

using trace::Expr;

std::vector<std::uint32_t> append_push_shards(trace::TraceBuilder& builder, std::uint32_t ranks,
                                              const GemmTiling& t, const PushShardsSpec& spec) {
  constexpr int kRegStep = kRegTile;  // kk of this workgroup's block
  constexpr int kRegDestination = kRegScratch;
  constexpr int kRegFold = kRegScratch + 1;
  const SlabLayout& shard = spec.shard;
  const SlabLayout& inbox = spec.inbox;
  const std::uint64_t steps = shard.k_slab / t.block_k;
  const std::uint64_t tiles_m = t.tiles_m();
  if (tiles_m > 0xFFFF'FFFFULL || steps == 0) throw std::invalid_argument("push_shards: bad tiling");
  const auto tiles_m32 = static_cast<std::uint32_t>(tiles_m);
  const Expr rows = rows_expr(t);
  const Expr pid_m = trace::reg(kRegPidM);
  const Expr step = trace::reg(kRegStep);

  trace::ProgramBuilder p(spec.name);
  p.set(kRegPidM, trace::mod(trace::wg(), tiles_m32));
  p.set(kRegStep, trace::div(trace::wg(), tiles_m32));
  const Expr shard_first = pid_m * shard.pid_m_stride() + step * shard.kk_stride();
  append_block(p, trace::OpKind::kLoad, shard.block(spec.shard_buffer, trace::rank(), shard_first, rows), 0,
               kRegFold);
  p.loop(static_cast<std::int64_t>(ranks));
  if (spec.stagger_destinations && ranks > 1) {
    p.set(kRegDestination, trace::loop(0) + trace::rank());
    p.set(kRegDestination, trace::mod(trace::reg(kRegDestination), ranks));
  } else {
    p.set(kRegDestination, trace::loop(0));
  }
  const Expr destination = trace::reg(kRegDestination);
  const Expr inbox_first = trace::rank() * inbox.slab_stride() + pid_m * inbox.pid_m_stride() + step * inbox.kk_stride();
  append_block(p, trace::OpKind::kStore, inbox.block(spec.inbox_buffer, destination, inbox_first, rows), 1, kRegFold);
  const Expr flag = Expr(static_cast<std::int64_t>(spec.flag_base)) +
                    trace::rank() * static_cast<std::int64_t>(tiles_m * steps) +
                    pid_m * static_cast<std::int64_t>(steps) + step;
  p.release(destination, flag, 1);
  p.end_loop();

  const std::uint32_t program = builder.program(std::move(p));
  std::vector<std::uint32_t> kernels;
  for (std::uint32_t rank = 0; rank < ranks; ++rank) {
    trace::Kernel k;
    k.name = spec.name;
    k.rank = rank;
    k.stream = spec.stream;
    k.grid = tiles_m * steps;
    k.program = program;
    kernels.push_back(builder.launch(std::move(k)));
  }
  return kernels;
}

}  // namespace tessera::workloads::patterns

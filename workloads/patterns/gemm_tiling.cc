#include "workloads/patterns/gemm_tiling.h"

#include <array>

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "workloads/patterns/scatter_tile_loop.h"

namespace tessera::workloads::patterns {

using trace::Expr;
using trace::ProgramBuilder;
using trace::Var;

namespace {

Var reg_var(int index) { return static_cast<Var>(static_cast<int>(Var::kReg0) + index); }

std::uint32_t narrow(std::uint64_t v, const char* what) {
  if (v == 0 || v > 0xFFFF'FFFFULL) throw std::out_of_range(fmt::format("{} ({}) does not fit a divisor", what, v));
  return static_cast<std::uint32_t>(v);
}

// The (rows | cols) of the current tile: `block` except in the last block, which has `total %
// block`. With b = the block index register and L = blocks - 1, b / L is 1 in the last block
// and 0 before it, so the count is block - (block - rem) * (b / L).
Expr edge_expr(std::uint64_t total, std::uint32_t block, int index_reg) {
  const std::uint64_t blocks = (total + block - 1) / block;
  const std::uint64_t rem = total % block;
  if (blocks == 1) return static_cast<std::int64_t>(total);
  if (rem == 0) return static_cast<std::int64_t>(block);
  Expr e = static_cast<std::int64_t>(block);
  e.add(reg_var(index_reg), -static_cast<std::int64_t>(block - rem), narrow(blocks - 1, "tile blocks"));
  return e;
}

}  // namespace

std::uint32_t element_bytes(models::compute::Dtype dtype) {
  switch (dtype) {
    case models::compute::Dtype::kFp16:
    case models::compute::Dtype::kBf16: return 2;
    case models::compute::Dtype::kFp8: return 1;
    case models::compute::Dtype::kFp32: return 4;
  }
  return 2;
}

const std::vector<std::pair<std::string, models::compute::Dtype>>& dtype_choices() {
  using models::compute::Dtype;
  static const std::vector<std::pair<std::string, Dtype>> names{
      {"fp16", Dtype::kFp16}, {"bf16", Dtype::kBf16}, {"fp8", Dtype::kFp8}, {"fp32", Dtype::kFp32}};
  return names;
}

const std::vector<std::pair<std::string, XcdRemap>>& xcd_remap_choices() {
  static const std::vector<std::pair<std::string, XcdRemap>> names{{"none", XcdRemap::kNone},
                                                                   {"chiplet_swizzle", XcdRemap::kChipletSwizzle}};
  return names;
}

std::uint64_t GemmTiling::rows_of(std::uint64_t pid_m) const {
  return std::min<std::uint64_t>(block_m, m - pid_m * block_m);
}

std::uint64_t GemmTiling::cols_of(std::uint64_t pid_n) const {
  return std::min<std::uint64_t>(block_n, n - pid_n * block_n);
}

TileCoord tile_coord(const GemmTiling& t, std::uint64_t tile) {
  const std::uint64_t in_group = std::uint64_t{t.group_m} * t.tiles_n();
  const std::uint64_t first_m = tile / in_group * t.group_m;
  const std::uint64_t size_m = std::min<std::uint64_t>(t.tiles_m() - first_m, t.group_m);
  return {first_m + (tile % in_group) % size_m, (tile % in_group) / size_m};
}

std::uint64_t remap_workgroup(std::uint64_t wg, std::uint64_t num_wgs, std::uint32_t num_dies, XcdRemap remap) {
  return remap_workgroup(wg, num_wgs, SwizzleFamily{num_dies, 1}, remap);
}

std::optional<std::string> remap_problem(std::uint64_t num_wgs, std::uint32_t num_dies, XcdRemap remap) {
  return remap_problem(num_wgs, SwizzleFamily{num_dies, 1}, remap);
}

Expr remap_expr(std::uint64_t num_wgs, std::uint32_t num_dies, XcdRemap remap) {
  return remap_expr(num_wgs, SwizzleFamily{num_dies, 1}, remap);
}

namespace {

bool identity(SwizzleFamily f, XcdRemap remap) {
  return remap == XcdRemap::kNone || (f.dies <= 1 && f.chunk <= 1) || f.dies == 0 || f.chunk == 0;
}

}  // namespace

std::uint64_t remap_workgroup(std::uint64_t wg, std::uint64_t num_wgs, SwizzleFamily f, XcdRemap remap) {
  if (identity(f, remap)) return wg;
  const std::uint64_t c = f.chunk, g = f.dies;
  return (wg / c) % g * (num_wgs / g) + wg / (c * g) * c + wg % c;
}

std::optional<std::string> remap_problem(std::uint64_t num_wgs, SwizzleFamily f, XcdRemap remap) {
  if (identity(f, remap) || num_wgs % (std::uint64_t{f.chunk} * f.dies) == 0) return std::nullopt;
  if (f.chunk == 1) {
    return fmt::format(
        "chiplet_swizzle needs the grid ({} workgroups) to be a multiple of the dies per GPU ({}); otherwise "
        "(pid % D) * (NUM_WGS / D) + pid / D is not a permutation and some tiles would never be computed",
        num_wgs, f.dies);
  }
  return fmt::format(
      "chiplet_swizzle with {} dies and runs of {} needs the grid ({} workgroups) to be a multiple of {} x {}; "
      "otherwise it is not a permutation and some tiles would never be computed",
      f.dies, f.chunk, num_wgs, f.dies, f.chunk);
}

Expr remap_expr(std::uint64_t num_wgs, SwizzleFamily f, XcdRemap remap) {
  if (identity(f, remap)) return trace::wg();
  const auto c = static_cast<std::int64_t>(f.chunk);
  Expr e;
  e.add(Var::kWg, static_cast<std::int64_t>(num_wgs / f.dies), f.chunk, f.dies);  // ((wg / C) % G) * (NUM_WGS / G)
  e.add(Var::kWg, c, f.chunk * f.dies, 0);                                        // (wg / (C G)) * C
  if (c > 1) e.add(Var::kWg, 1, 1, f.chunk);                                      // wg % C
  return e;
}

void launch_gemm_on_every_rank(trace::TraceBuilder& builder, const std::string& name, std::uint32_t ranks,
                               std::uint64_t grid, std::uint32_t program, std::uint32_t num_dies, XcdRemap remap) {
  for (std::uint32_t rank = 0; rank < ranks; ++rank) {
    trace::Kernel k;
    k.name = name;
    k.rank = rank;
    k.grid = grid;
    k.program = program;
    k.args = {remap_expr(grid, num_dies, remap)};
    builder.launch(std::move(k));
  }
}

Expr rows_expr(const GemmTiling& t) { return edge_expr(t.m, t.block_m, kRegPidM); }
Expr cols_expr(const GemmTiling& t) { return edge_expr(t.n, t.block_n, kRegPidN); }

std::uint64_t tiles_of_pid(const GemmTiling& t, std::uint64_t num_wgs, std::uint64_t pid) {
  return pid >= t.tiles() ? 0 : (t.tiles() - pid + num_wgs - 1) / num_wgs;
}

void append_tile_loop(ProgramBuilder& p, const GemmTiling& t, std::uint64_t num_wgs, const TileBody& body) {
  // The general loop (any depth, any one-term pid) with the workgroup's pid register at depth 0.
  append_tile_loop_at(p, t, num_wgs, trace::reg(kRegPid), kTileLoopDepth, body);
}

std::uint64_t block_flag(std::uint64_t flag_base, const GemmTiling& t, std::uint32_t steps_per_slab,
                         std::uint64_t slab, std::uint64_t pid_m, std::uint64_t kk) {
  return flag_base + (slab * t.tiles_m() + pid_m) * steps_per_slab + kk;
}

namespace {

// Bank cycles per 128 bytes of a staged block's stores into shared memory: the kernel stores 16-byte
// vectors, eight to a bank cycle, into rows padded by 8 elements (kernels/patterns/gemm_tile.h); the
// most vectors of one such group that fall on the same 16-byte bank slot is the cycles it takes.
std::int64_t staging_store_cycles(std::int64_t row_elements, std::int64_t elem_bytes) {
  constexpr std::int64_t kVectorBytes = 16;
  constexpr std::int64_t kVectorsPerCycle = 8;  // 128 bytes of banks
  const std::int64_t row_vectors = std::max<std::int64_t>(1, row_elements * elem_bytes / kVectorBytes);
  const std::int64_t pitch_bytes = (row_elements + 8) * elem_bytes;
  std::array<std::int64_t, kVectorsPerCycle> on_slot{};
  std::int64_t worst = 1;
  for (std::int64_t v = 0; v < kVectorsPerCycle; ++v) {
    const std::int64_t byte = (v / row_vectors) * pitch_bytes + (v % row_vectors) * kVectorBytes;
    worst = std::max(worst, ++on_slot[static_cast<std::size_t>(byte / kVectorBytes % kVectorsPerCycle)]);
  }
  return worst;
}

}  // namespace

KStepWork k_step_work(const GemmTiling& t) {
  KStepWork w;
  w.waves_m = t.block_m >= 32 ? 2 : 1;
  w.waves_n = std::max<std::uint32_t>(1, t.block_n / 32);
  const auto bm = static_cast<std::int64_t>(t.block_m);
  const auto bn = static_cast<std::int64_t>(t.block_n);
  const auto bk = static_cast<std::int64_t>(t.block_k);
  w.flops = 2 * bm * bn * bk;
  const auto e = static_cast<std::int64_t>(t.elem_bytes);
  w.lds_bytes = e * bk * (bm * (staging_store_cycles(bk, e) + w.waves_n) + bn * (staging_store_cycles(bn, e) + w.waves_m));
  return w;
}

void append_prefetched_k_loop(ProgramBuilder& p, std::int64_t steps, int step_depth, const GemmTiling& t,
                              models::compute::Dtype dtype, const StepFetch& fetch) {
  if (steps < 1) throw std::invalid_argument(fmt::format("K-loop: {} steps", steps));
  const KStepWork work = k_step_work(t);
  const auto compute = [&] { p.compute(work.flops, dtype, work.lds_bytes, Expr(0), Expr(0), work.phases); };
  fetch(Expr(0), step_depth);
  p.wait_load(kStageSlot);
  if (steps > 1) {
    p.loop(steps - 1);
    fetch(trace::loop(step_depth) + Expr(1), step_depth + 1);
    compute();
    p.wait_load(kStageSlot);
    p.end_loop();
  }
  compute();
}

void append_output_tile(ProgramBuilder& p, const GemmTiling& t, const OutputTileSpec& spec) {
  constexpr int kSlabDepth = kTileLoopDepth + 1;
  constexpr int kStepDepth = kTileLoopDepth + 2;
  constexpr int kRegSlab = kRegScratch;
  constexpr int kRegABase = kRegScratch + 1;
  constexpr int kRegBBase = kRegScratch + 2;
  constexpr int kRegFold = kRegScratch + 3;
  const SlabLayout& a = spec.a;
  if (a.k_slab * a.slabs != t.k || a.k_slab % t.block_k != 0) {
    throw std::invalid_argument(fmt::format("output tile: {} slabs of {} columns do not cut k = {} into block_k = {}",
                                            a.slabs, a.k_slab, t.k, t.block_k));
  }
  const auto steps = static_cast<std::int64_t>(a.k_slab / t.block_k);
  const Expr rows = rows_expr(t);
  const Expr cols = cols_expr(t);
  const Expr slab = trace::reg(kRegSlab);
  const Expr owner = spec.a_from_slab_owner ? slab : trace::rank();

  p.loop(static_cast<std::int64_t>(a.slabs));
  if (spec.stagger_slabs && a.slabs > 1) {
    p.set(kRegSlab, trace::loop(kSlabDepth) + trace::rank());
    p.set(kRegSlab, trace::mod(slab, a.slabs));
  } else {
    p.set(kRegSlab, trace::loop(kSlabDepth));
  }
  // This slab's first A block of row-block pid_m, and its first B block of column-block pid_n.
  p.set(kRegABase, slab * a.slab_stride() + trace::reg(kRegPidM) * a.pid_m_stride());
  p.set(kRegBBase, slab * (steps * spec.b.kb_stride()) + trace::reg(kRegPidN) * spec.b.pid_n_stride());
  const auto fetch = [&](const Expr& kk, int row_depth) {
    const Expr a_first = trace::reg(kRegABase) + kk * a.kk_stride();
    const BlockAccess a_block = a.block(spec.a_buffer, owner, a_first, rows);
    if (spec.wait_flag_base) {
      // With rows addressing the acquire spans the block's rows, so it also covers the other
      // k-steps' columns of those rows (conservative); one wait per row would poll per row.
      const Expr flag = Expr(static_cast<std::int64_t>(*spec.wait_flag_base)) +
                        slab * (static_cast<std::int64_t>(t.tiles_m()) * steps) + trace::reg(kRegPidM) * steps + kk;
      p.wait(trace::rank(), flag, models::sync::Compare::kGe, 1, spec.a_buffer, a_first, a_block.span_bytes());
    }
    append_block(p, trace::OpKind::kLoadAsync, a_block, row_depth, kRegFold, kStageSlot);
    const Expr b_first = trace::reg(kRegBBase) + kk * spec.b.kb_stride();
    append_block(p, trace::OpKind::kLoadAsync, spec.b.block(spec.b_buffer, b_first, cols), row_depth, kRegFold,
                 kStageSlot);
  };
  append_prefetched_k_loop(p, steps, kStepDepth, t, spec.dtype, fetch);
  p.end_loop();
  const Expr c_first = trace::reg(kRegPidM) * spec.c.pid_m_stride() + trace::reg(kRegPidN) * spec.c.pid_n_stride();
  append_block(p, trace::OpKind::kStore, spec.c.block(spec.c_buffer, c_first, rows, cols), kSlabDepth, kRegFold);
}

ProgramBuilder output_tile_program(std::string name, const GemmTiling& t, std::uint64_t num_wgs,
                                   const OutputTileSpec& spec) {
  ProgramBuilder p(std::move(name));
  append_tile_loop(p, t, num_wgs, [&](ProgramBuilder& body) { append_output_tile(body, t, spec); });
  return p;
}

std::optional<ParamProblem> tiling_problem(const GemmTiling& t) {
  constexpr std::uint64_t kMaxDivisor = 0xFFFF'FFFFULL;
  if (t.m == 0 || t.n == 0 || t.k == 0) return ParamProblem{t.m == 0 ? "m" : t.n == 0 ? "n" : "k", "must be positive"};
  if (t.block_m == 0 || t.block_n == 0 || t.block_k == 0) {
    return ParamProblem{t.block_m == 0 ? "block_m" : t.block_n == 0 ? "block_n" : "block_k", "must be positive"};
  }
  if (t.group_m == 0) return ParamProblem{"group_m", "must be positive"};
  if (t.k % t.block_k != 0) {
    return ParamProblem{"k", fmt::format("k ({}) must be a multiple of block_k ({}): the K-loop has no masked "
                                         "last step", t.k, t.block_k)};
  }
  if (t.tiles() > kMaxDivisor / 2 || std::uint64_t{t.group_m} * t.tiles_n() > kMaxDivisor) {
    return ParamProblem{"m", fmt::format("{} x {} tiles are more than a trace can index", t.tiles_m(), t.tiles_n())};
  }
  const std::uint64_t largest = std::max({t.m * t.k, t.k * t.n, t.tiles_n() * t.m * t.block_n}) * t.elem_bytes;
  if (largest > (1ULL << 56)) return ParamProblem{"m", "a matrix of more than 2^56 bytes"};
  return std::nullopt;
}

}  // namespace tessera::workloads::patterns

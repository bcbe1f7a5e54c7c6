#pragma once
// The tile machinery every GEMM-shaped pattern shares, as the Triton/Iris persistent GEMMs do it:
// the tile grid of C = A·B, the grouped tile order (GROUP_SIZE_M), the chiplet (XCD) remap of
// workgroup ids, and the persistent loop `for tile in range(pid, tiles, NUM_WGS)` written as a
// trace program.
//
// Registers of a tile program (the expression language has no products and at most three terms
// per expression, so intermediates live in registers):
//   r0 pid      the workgroup id after the XCD remap (a kernel argument, see remap_expr)
//   r1 tile     the linear tile id of the current iteration
//   r2 pid_m    the tile's row-block index
//   r3 pid_n    the tile's column-block index
//   r4..r7      scratch: the tile loop uses them before calling the body; the body may clobber them.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/compute/compute_timing.h"
#include "workloads/patterns/param_problem.h"
#include "workloads/patterns/tile_addressing.h"
#include "workloads/trace/builder.h"

namespace tessera::workloads::patterns {

inline constexpr int kRegPid = 0;
inline constexpr int kRegTile = 1;
inline constexpr int kRegPidM = 2;
inline constexpr int kRegPidN = 3;
inline constexpr int kRegScratch = 4;  // r4..r7

// The tile loop is the outermost loop (i0); a tile body may nest three more.
inline constexpr int kTileLoopDepth = 0;

// Bytes per element of a row-major matrix of this type.
std::uint32_t element_bytes(models::compute::Dtype dtype);

enum class XcdRemap : std::uint8_t {
  kNone,            // workgroup i computes tile i (and runs on die i mod D)
  kChipletSwizzle,  // pid = (i % D) * (NUM_WGS / D) + i / D: consecutive tiles on one die, sharing its L2
};

// Name tables for config schemas.
const std::vector<std::pair<std::string, models::compute::Dtype>>& dtype_choices();
const std::vector<std::pair<std::string, XcdRemap>>& xcd_remap_choices();

// C (m x n) = A (m x k) · B (k x n), cut into block_m x block_n output tiles and block_k steps.
// Edge tiles in m and n are partial (masked in the kernel); k must be a multiple of block_k.
struct GemmTiling {
  std::uint64_t m = 0;
  std::uint64_t n = 0;
  std::uint64_t k = 0;
  std::uint32_t block_m = 256;
  std::uint32_t block_n = 256;
  std::uint32_t block_k = 64;
  std::uint32_t group_m = 6;
  std::uint32_t elem_bytes = 2;

  std::uint64_t tiles_m() const { return (m + block_m - 1) / block_m; }
  std::uint64_t tiles_n() const { return (n + block_n - 1) / block_n; }
  std::uint64_t tiles() const { return tiles_m() * tiles_n(); }
  std::uint64_t k_steps() const { return k / block_k; }
  std::uint64_t rows_of(std::uint64_t pid_m) const;  // rows of C in row-block pid_m (block_m but at the edge)
  std::uint64_t cols_of(std::uint64_t pid_n) const;
};

// The tile's coordinates in Triton's grouped order (GROUP_SIZE_M consecutive row-blocks share
// their column sweep, so that the workgroups in flight reuse A and B from L2):
//   group = tile / (group_m * tiles_n); first_m = group * group_m;
//   size_m = min(tiles_m - first_m, group_m);
//   pid_m = first_m + (tile % (group_m * tiles_n)) % size_m; pid_n = (tile % (group_m * tiles_n)) / size_m.
struct TileCoord {
  std::uint64_t pid_m = 0;
  std::uint64_t pid_n = 0;
  friend bool operator==(const TileCoord&, const TileCoord&) = default;
};
TileCoord tile_coord(const GemmTiling& tiling, std::uint64_t tile);

// The XCD remap of workgroup id `wg` in a grid of `num_wgs` on a GPU of `num_dies` dies.
std::uint64_t remap_workgroup(std::uint64_t wg, std::uint64_t num_wgs, std::uint32_t num_dies, XcdRemap remap);
// Why the remap would not be a permutation of the grid (the swizzle needs num_wgs % num_dies == 0).
std::optional<std::string> remap_problem(std::uint64_t num_wgs, std::uint32_t num_dies, XcdRemap remap);
// The same as a kernel argument (evaluated with wg), to load into r0.
trace::Expr remap_expr(std::uint64_t num_wgs, std::uint32_t num_dies, XcdRemap remap);

// The chiplet swizzle's family (what a swizzle search explores): `dies` groups G and runs of
// `chunk` workgroups C, pid = ((wg / C) % G) * (NUM_WGS / G) + (wg / (C G)) * C + wg % C: the
// C-workgroup runs that a dispatcher sending C consecutive workgroups to each of G dies in turn
// would place on one die get consecutive tiles. C = 1 and G = the GPU's dies is chiplet_swizzle;
// a G or C unlike the hardware's is a swizzle tuned for another GPU. A permutation when
// NUM_WGS % (C G) == 0. kNone ignores G and C.
struct SwizzleFamily {
  std::uint32_t dies = 1;
  std::uint32_t chunk = 1;
};
std::uint64_t remap_workgroup(std::uint64_t wg, std::uint64_t num_wgs, SwizzleFamily family, XcdRemap remap);
std::optional<std::string> remap_problem(std::uint64_t num_wgs, SwizzleFamily family, XcdRemap remap);
trace::Expr remap_expr(std::uint64_t num_wgs, SwizzleFamily family, XcdRemap remap);

// Launches the persistent GEMM kernel `name` (grid workgroups of `program`, its pid remapped as
// `remap` says) on ranks 0 .. ranks-1, stream 0, every CU.
void launch_gemm_on_every_rank(trace::TraceBuilder& builder, const std::string& name, std::uint32_t ranks,
                               std::uint64_t grid, std::uint32_t program, std::uint32_t num_dies, XcdRemap remap);

// Rows (cols) of the current tile as an expression of r2 (r3): block_m except in the last
// row-block, where the expression adds the (negative) difference through r2 / (tiles_m - 1).
trace::Expr rows_expr(const GemmTiling& tiling);
trace::Expr cols_expr(const GemmTiling& tiling);

// Appends the persistent tile loop of a grid of `num_wgs` workgroups whose r0 holds the
// remapped pid: tile = pid, pid + num_wgs, ... < tiles; for each, r1..r3 are set and `body`
// appends the tile's work (loops at depth 1..3 are free for it). A non-persistent kernel is the
// same loop with num_wgs = tiles (one iteration each).
//
// Why the loop may be emitted twice: the last group of row-blocks is narrower when tiles_m is
// not a multiple of group_m, and its size_m is then a different constant. Tiles below
// `full_tiles` (whole groups) and tiles above it each get a loop with constant divisors; the
// workgroup's iterations split between them exactly as the single Triton loop's would.
using TileBody = std::function<void(trace::ProgramBuilder&)>;
void append_tile_loop(trace::ProgramBuilder& program, const GemmTiling& tiling, std::uint64_t num_wgs,
                      const TileBody& body);

// What the K-loop of one output tile reads and where its C block goes: the BSP, pull and push
// GEMMs of ag_gemm differ only here.
struct OutputTileSpec {
  models::compute::Dtype dtype = models::compute::Dtype::kFp16;
  // A as slabs along K; the K-loop runs over the slabs, then over block_k steps within one.
  SlabLayout a;
  std::uint32_t a_buffer = trace::kNoBuffer;
  bool a_from_slab_owner = false;  // pull: slab s is read from rank s's buffer (remote loads)
  bool stagger_slabs = false;      // slab order (rank + i) % slabs instead of i
  BLayout b;
  std::uint32_t b_buffer = trace::kNoBuffer;
  CLayout c;
  std::uint32_t c_buffer = trace::kNoBuffer;
  // Push: before reading block (s, pid_m, kk), spin until flag `wait_flag_base + (s * tiles_m +
  // pid_m) * steps_per_slab + kk` of this rank is >= 1, then acquire the block's range.
  std::optional<std::uint64_t> wait_flag_base;
};

// The flag a push consumer waits on before block (slab, pid_m, kk); the producer releases it.
std::uint64_t block_flag(std::uint64_t flag_base, const GemmTiling& tiling, std::uint32_t steps_per_slab,
                         std::uint64_t slab, std::uint64_t pid_m, std::uint64_t kk);

// What one K-step of a tile asks of its CU, as the suite's kernel runs it (kernels/patterns/gemm_tile.h):
// 2 block_m block_n block_k FLOP of matrix work, and through shared memory (LDS) the staged A and B
// blocks stored once and read back as 16 x 16 fragments by every wave that needs them. The waves
// form a 2 x (block_n / 32) grid (the suite's 128 x 128 tile: 2 x 4, 128 x 64 and 64 x 64: 2 x 2), so
// each of the waves_n wave columns reads the whole A block and each of the waves_m rows the whole B
// block:
//   lds_bytes = elem_bytes x block_k x (block_m (s_A + waves_n) + block_n (s_B + waves_m)),
// s the bank cycles per 128 bytes of a block's staging stores: 16-byte vectors into rows padded by 8
// elements, so A's 64-byte rows at block_k 32 (fp16) put two of every eight vectors on one bank slot
// (s_A = 2; Nsight Compute on an H200 counts 196 store cycles per step, validation/data/h200-1-ncu/);
// B's rows of block_n elements take one (s_B = 1).
// One phase: the kernel's one barrier per step (after its matrix work and the next stage's store;
// the stages are double-buffered).
struct KStepWork {
  std::int64_t flops = 0;
  std::int64_t lds_bytes = 0;
  std::int64_t phases = 1;
  std::uint32_t waves_m = 0;
  std::uint32_t waves_n = 0;
};
KStepWork k_step_work(const GemmTiling& tiling);

// The K-loop of one tile as the suite's kernel runs it (kernels/patterns/gemm_tile.h
// accumulate_tile): step 0's blocks are fetched and waited for; then every step but the last
// issues the next step's loads before its own matrix work and waits for them after it (the
// kernel's register prefetch), so a step costs about max(load round trip, matrix work) rather than
// their sum; the last step only computes. `fetch(kk, row_depth)` appends step kk's loads as
// load_async in load slot kStageSlot (a block's rows, if any, loop at `row_depth`); the step loop is
// at loop depth `step_depth`.
inline constexpr std::uint8_t kStageSlot = 0;
using StepFetch = std::function<void(const trace::Expr& kk, int row_depth)>;
// Each step's matrix work is k_step_work(tiling), with its shared-memory demand.
void append_prefetched_k_loop(trace::ProgramBuilder& program, std::int64_t steps, int step_depth,
                              const GemmTiling& tiling, models::compute::Dtype dtype, const StepFetch& fetch);

// Appends one output tile's work to a tile-loop body (uses loop depths 1..3 and r4..r7):
//   for slab: the prefetched K-loop over kk (above; each fetch: [wait] A block, B block),
//             compute 2 * block_m * block_n * block_k per step
//   store the C block.
// The prefetch does not cross slabs (the kernel's does): each slab starts with its own first fetch.
// The FLOPs are those of the whole block even at a masked edge: the matrix units compute the
// padded tile, so an M = 1 GEMM issues as much matrix work per tile as M = 256.
void append_output_tile(trace::ProgramBuilder& program, const GemmTiling& tiling, const OutputTileSpec& spec);

// A whole tile program: the tile loop of `num_wgs` workgroups around append_output_tile.
trace::ProgramBuilder output_tile_program(std::string name, const GemmTiling& tiling, std::uint64_t num_wgs,
                                          const OutputTileSpec& spec);

// What makes a tiling impossible (k not a multiple of block_k) or too large for the trace's
// 32-bit divisors; the key named is the one to change.
std::optional<ParamProblem> tiling_problem(const GemmTiling& tiling);

// How many tiles workgroup `pid` (remapped) computes: ceil((tiles - pid) / num_wgs), 0 past the end.
std::uint64_t tiles_of_pid(const GemmTiling& tiling, std::uint64_t num_wgs, std::uint64_t pid);

}  // namespace tessera::workloads::patterns

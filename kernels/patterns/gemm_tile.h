// The tiled GEMM building block every GEMM-shaped case of the suite shares (device code):
//
//   C (block_m x block_n tile, fp16) = sum over K of A block (block_m x block_k) * B block (block_k x block_n),
//
// A and B row-major fp16 in global memory (local, or a peer's through peer access), staged through shared memory
// (LDS) with coalesced 16-byte loads, double-buffered (the next K-step's blocks are loaded into registers while
// the matrix units work on the current stage), multiplied on the matrix units through tk::mma (16 x 16 x 16,
// fp32 accumulation) and stored as fp16, as Tessera counts the dtype (A, B and C all fp16).
//
// One workgroup computes one tile at a time; run_gemm_tiles is the persistent loop over tiles in Tessera's order
// (patterns/gemm_tile_order.h). What differs between the patterns is only where the A blocks come from (one
// matrix, peers' shards, an inbox guarded by per-block flags), where the C tile goes (this rank, every rank) and
// whether a per-tile flag is released after it: GemmArgs says which.
//
// Sizes must be multiples of the tile (the host rejects others: patterns/gemm_launch.h); there is no masking.
#pragma once

#include <cstddef>

#include "patterns/gemm_tile_order.h"
#include "port/device_atomics.h"
#include "port/hip_port.h"
#include "port/matrix_unit.h"

namespace tk::gemm {

inline constexpr int kMaxRanks = 8;

// Persistent GEMM kernels ask for two resident workgroups per SM on NVIDIA (at most 128 registers per thread for
// 256 threads), so that a producer kernel of another rank sharing the GPU, or a second workgroup, always finds
// room; on AMD the launch bound is the block size only (HIP's second argument means something else there).
#if defined(TK_PLATFORM_NVIDIA)
#define TK_GEMM_LAUNCH_BOUNDS(threads) __launch_bounds__(threads, 2)
#else
#define TK_GEMM_LAUNCH_BOUNDS(threads) __launch_bounds__(threads)
#endif

// A block tile of BlockM x BlockN x BlockK computed by WavesM x WavesN waves; each wave owns a
// (BlockM / WavesM) x (BlockN / WavesN) part of the tile as 16 x 16 accumulator fragments.
template <int BlockM, int BlockN, int BlockK, int WavesM, int WavesN>
struct TileShape {
  static constexpr int kBlockM = BlockM;
  static constexpr int kBlockN = BlockN;
  static constexpr int kBlockK = BlockK;
  static constexpr int kWavesM = WavesM;
  static constexpr int kWavesN = WavesN;
  static constexpr int kWaves = WavesM * WavesN;
  static constexpr int kThreads = kWaves * kWaveSize;
  static constexpr int kWaveTileM = BlockM / WavesM;
  static constexpr int kWaveTileN = BlockN / WavesN;
  static constexpr int kFragmentsM = kWaveTileM / mma::kTile;
  static constexpr int kFragmentsN = kWaveTileN / mma::kTile;
  // Shared-memory rows are padded by 8 halves (16 bytes): every row stays 16-byte aligned (vector stores, wmma's
  // leading-dimension rule) and successive rows start 4 banks apart, so the 8 rows of 16 bytes a fragment load
  // reads at once fall into distinct banks.
  static constexpr int kLdA = BlockK + 8;
  static constexpr int kLdB = BlockN + 8;
  static constexpr int kStageHalves = BlockM * kLdA + BlockK * kLdB;  // one A block and one B block
  static constexpr int kVectorsA = BlockM * BlockK / 8;               // 16-byte vectors of 8 halves
  static constexpr int kVectorsB = BlockK * BlockN / 8;
  static constexpr int kVectorsAPerThread = kVectorsA / kThreads;
  static constexpr int kVectorsBPerThread = kVectorsB / kThreads;
  // The epilogue converts one row of fragments (16 rows of the wave's tile) at a time through a per-wave fp32
  // scratch, padded by 4 floats (wmma's fp32 rule), that reuses the stages' memory.
  static constexpr int kLdScratch = kWaveTileN + 4;
  static constexpr int kMainloopBytes = 2 * kStageHalves * 2;
  static constexpr int kEpilogueBytes = kWaves * mma::kTile * kLdScratch * 4;
  static constexpr int kSharedBytes = kMainloopBytes > kEpilogueBytes ? kMainloopBytes : kEpilogueBytes;

  static_assert(BlockM % WavesM == 0 && BlockN % WavesN == 0, "waves must split the tile");
  static_assert(kWaveTileM % mma::kTile == 0 && kWaveTileN % mma::kTile == 0, "wave tiles of whole fragments");
  static_assert(BlockK % mma::kTile == 0, "block_k of whole fragments");
  static_assert(kVectorsA % kThreads == 0 && kVectorsB % kThreads == 0, "every thread moves the same vectors");
  static_assert(kVectorsAPerThread >= 1 && kVectorsBPerThread >= 1, "too many threads for the blocks");
  static_assert((BlockM * kLdA * 2) % 32 == 0 && (kStageHalves * 2) % 32 == 0, "32-byte aligned fragments");
  static_assert((mma::kTile * kLdScratch * 4) % 32 == 0, "32-byte aligned scratch per wave");
  static_assert(kWaveTileN % 8 == 0, "epilogue moves 8 halves per access");
};

// The shapes the suite instantiates (patterns/gemm_launch.h picks one from block_m, block_n, block_k).
using Tile128x128x32 = TileShape<128, 128, 32, 2, 4>;
using Tile128x64x32 = TileShape<128, 64, 32, 2, 2>;
using Tile64x64x32 = TileShape<64, 64, 32, 2, 2>;

template <class Shape>
struct alignas(128) SharedStorage {
  unsigned char bytes[Shape::kSharedBytes];
};

// Where the A blocks of a tile's K-loop come from. A (m x k) is seen as `slabs` column slabs of
// steps_per_slab * block_k columns; slab s is a row-major matrix at slab[s] with `ld` elements per row (one matrix:
// slabs = 1; All-Gather + GEMM: slab s is rank s's K-shard, in rank s's memory (pull) or in this rank's inbox
// (push)). The K-loop visits slabs first_slab, first_slab + 1, ... (mod slabs), block_k columns at a time; B row
// of step kk of slab s is (s * steps_per_slab + kk) * block_k.
struct ASlabs {
  const __half* slab[kMaxRanks] = {};
  int ld = 0;
  int slabs = 1;
  int steps_per_slab = 0;
  int first_slab = 0;
  // Push: before loading block (s, pid_m, kk), wait until ready[(s * tiles_m + pid_m) * steps_per_slab + kk] >= 1
  // (released by the producer after its stores); nullptr: no waiting.
  const int* ready = nullptr;
};

struct BOperand {
  const __half* data = nullptr;  // k x (columns of this GEMM), row-major
  int ld = 0;
};

// Where a finished tile goes: into each of `count` row-major matrices (this rank's C, or every rank's C in rank
// order), at row pid_m * block_m and column column_offset + pid_n * block_n.
struct CTargets {
  __half* c[kMaxRanks] = {};
  int count = 1;
  int ld = 0;
  int column_offset = 0;
};

struct GemmArgs {
  ASlabs a;
  BOperand b;
  CTargets c;
  int tiles_m = 0;
  int tiles_n = 0;
  int group_m = 1;
  // wg_specialized: after its C store, a tile releases tile_done[tile] = 1 (nullptr: nothing released).
  int* tile_done = nullptr;
  // An all-gather's final wait moved into the GEMM (ag_gemm bsp with ranks sharing one GPU, see ag_gemm.hip):
  // before its first tile every workgroup waits until gate[s * gate_channels + c] >= 1 for every source
  // s != gate_own_source of gate_sources and every channel c (nullptr: no gate).
  const int* gate = nullptr;
  int gate_sources = 0;
  int gate_channels = 0;
  int gate_own_source = -1;
};

template <class Shape>
struct Accumulators {
  mma::Accumulator c[Shape::kFragmentsM][Shape::kFragmentsN];
};

// One K-step's A and B blocks, in registers between their global load and their shared-memory store.
template <class Shape>
struct StagedBlocks {
  uint4 a[Shape::kVectorsAPerThread];
  uint4 b[Shape::kVectorsBPerThread];
};

struct alignas(16) Half8 {
  __half2 pair[4];
};

// Loads the A and B blocks of step kk of slab `slab` for tile (pid_m, pid_n). With ready flags, thread 0 first
// spins (acquire) on the block's flag and the barrier passes the acquisition on to the whole workgroup.
template <class Shape>
__device__ inline void fetch_blocks(const ASlabs& a, const BOperand& b, int tiles_m, int pid_m, int pid_n, int slab,
                                    int kk, StagedBlocks<Shape>& staged) {
  if (a.ready != nullptr) {
    if (threadIdx.x == 0) flag_wait_at_least(a.ready + (slab * tiles_m + pid_m) * a.steps_per_slab + kk, 1);
    __syncthreads();
  }
  constexpr int kVectorsPerRowA = Shape::kBlockK / 8;
  const __half* a_block =
      a.slab[slab] + static_cast<std::size_t>(pid_m) * Shape::kBlockM * a.ld + kk * Shape::kBlockK;
#pragma unroll
  for (int i = 0; i < Shape::kVectorsAPerThread; ++i) {
    const int v = static_cast<int>(threadIdx.x) + i * Shape::kThreads;
    const int row = v / kVectorsPerRowA;
    const int column = (v % kVectorsPerRowA) * 8;
    staged.a[i] = *reinterpret_cast<const uint4*>(a_block + static_cast<std::size_t>(row) * a.ld + column);
  }
  constexpr int kVectorsPerRowB = Shape::kBlockN / 8;
  const std::size_t k_row = (static_cast<std::size_t>(slab) * a.steps_per_slab + kk) * Shape::kBlockK;
  const __half* b_block = b.data + k_row * b.ld + static_cast<std::size_t>(pid_n) * Shape::kBlockN;
#pragma unroll
  for (int i = 0; i < Shape::kVectorsBPerThread; ++i) {
    const int v = static_cast<int>(threadIdx.x) + i * Shape::kThreads;
    const int row = v / kVectorsPerRowB;
    const int column = (v % kVectorsPerRowB) * 8;
    staged.b[i] = *reinterpret_cast<const uint4*>(b_block + static_cast<std::size_t>(row) * b.ld + column);
  }
}

// Stores staged blocks into one stage of shared memory: A block at stage[0..), B block after it.
template <class Shape>
__device__ inline void store_stage(__half* stage, const StagedBlocks<Shape>& staged) {
  constexpr int kVectorsPerRowA = Shape::kBlockK / 8;
#pragma unroll
  for (int i = 0; i < Shape::kVectorsAPerThread; ++i) {
    const int v = static_cast<int>(threadIdx.x) + i * Shape::kThreads;
    *reinterpret_cast<uint4*>(stage + (v / kVectorsPerRowA) * Shape::kLdA + (v % kVectorsPerRowA) * 8) = staged.a[i];
  }
  __half* stage_b = stage + Shape::kBlockM * Shape::kLdA;
  constexpr int kVectorsPerRowB = Shape::kBlockN / 8;
#pragma unroll
  for (int i = 0; i < Shape::kVectorsBPerThread; ++i) {
    const int v = static_cast<int>(threadIdx.x) + i * Shape::kThreads;
    *reinterpret_cast<uint4*>(stage_b + (v / kVectorsPerRowB) * Shape::kLdB + (v % kVectorsPerRowB) * 8) =
        staged.b[i];
  }
}

// The matrix-unit work of one stage (one block_k step): each wave multiplies its rows of the A block by its
// columns of the B block into its accumulators. The inner loop the matrix_rate microbenchmark times.
template <class Shape>
__device__ inline void multiply_stage(const __half* stage, Accumulators<Shape>& acc) {
  const int wave = static_cast<int>(threadIdx.x) / kWaveSize;
  const __half* stage_a = stage + (wave / Shape::kWavesN) * Shape::kWaveTileM * Shape::kLdA;
  const __half* stage_b = stage + Shape::kBlockM * Shape::kLdA + (wave % Shape::kWavesN) * Shape::kWaveTileN;
#pragma unroll
  for (int k16 = 0; k16 < Shape::kBlockK; k16 += mma::kTile) {
    mma::FragmentA a[Shape::kFragmentsM];
    mma::FragmentB<mma::RowMajor> b[Shape::kFragmentsN];
#pragma unroll
    for (int fm = 0; fm < Shape::kFragmentsM; ++fm) {
      mma::load_a(a[fm], stage_a + fm * mma::kTile * Shape::kLdA + k16, Shape::kLdA);
    }
#pragma unroll
    for (int fn = 0; fn < Shape::kFragmentsN; ++fn) {
      mma::load_b(b[fn], stage_b + k16 * Shape::kLdB + fn * mma::kTile, Shape::kLdB);
    }
#pragma unroll
    for (int fm = 0; fm < Shape::kFragmentsM; ++fm) {
#pragma unroll
      for (int fn = 0; fn < Shape::kFragmentsN; ++fn) mma::multiply_add(acc.c[fm][fn], a[fm], b[fn]);
    }
  }
}

template <class Shape>
__device__ inline void zero_accumulators(Accumulators<Shape>& acc) {
#pragma unroll
  for (int fm = 0; fm < Shape::kFragmentsM; ++fm) {
#pragma unroll
    for (int fn = 0; fn < Shape::kFragmentsN; ++fn) mma::zero(acc.c[fm][fn]);
  }
}

// The K-loop of tile (pid_m, pid_n): every step of every slab, double-buffered. One barrier per step: step t
// reads stage t % 2 and writes stage (t + 1) % 2, which the barrier of step t - 1 freed. Ends with a barrier, so
// the caller may reuse the shared memory.
template <class Shape>
__device__ inline void accumulate_tile(const ASlabs& a, const BOperand& b, int tiles_m, int pid_m, int pid_n,
                                       __half* shared, Accumulators<Shape>& acc) {
  zero_accumulators(acc);
  const int steps = a.slabs * a.steps_per_slab;
  // Position (slab index in visiting order, step within the slab) of the next block to fetch.
  int next_index = 0;
  int next_kk = 0;
  StagedBlocks<Shape> staged;
  fetch_blocks<Shape>(a, b, tiles_m, pid_m, pid_n, a.first_slab, 0, staged);
  store_stage<Shape>(shared, staged);
  __syncthreads();
  for (int step = 0; step < steps; ++step) {
    const bool more = step + 1 < steps;
    if (more) {
      if (++next_kk == a.steps_per_slab) {
        next_kk = 0;
        ++next_index;
      }
      int slab = a.first_slab + next_index;
      if (slab >= a.slabs) slab -= a.slabs;
      fetch_blocks<Shape>(a, b, tiles_m, pid_m, pid_n, slab, next_kk, staged);
    }
    multiply_stage<Shape>(shared + (step & 1) * Shape::kStageHalves, acc);
    if (more) store_stage<Shape>(shared + ((step + 1) & 1) * Shape::kStageHalves, staged);
    __syncthreads();
  }
}

// Stores the tile as fp16 into every target: per row of fragments, each wave puts its fp32 fragments into its
// scratch, then writes 16-byte vectors (8 halves of one row; a wave covers whole 32-byte sectors of each row).
// Uses the shared memory as scratch (the K-loop ended with a barrier) and ends with a barrier.
template <class Shape>
__device__ inline void store_tile(const Accumulators<Shape>& acc, const CTargets& c, int pid_m, int pid_n,
                                  float* scratch_all) {
  const int wave = static_cast<int>(threadIdx.x) / kWaveSize;
  const int lane = static_cast<int>(threadIdx.x) % kWaveSize;
  float* scratch = scratch_all + wave * mma::kTile * Shape::kLdScratch;
  const int first_row = pid_m * Shape::kBlockM + (wave / Shape::kWavesN) * Shape::kWaveTileM;
  const int first_column = c.column_offset + pid_n * Shape::kBlockN + (wave % Shape::kWavesN) * Shape::kWaveTileN;
  constexpr int kVectorsPerRow = Shape::kWaveTileN / 8;
  constexpr int kVectors = mma::kTile * kVectorsPerRow;
#pragma unroll
  for (int fm = 0; fm < Shape::kFragmentsM; ++fm) {
#pragma unroll
    for (int fn = 0; fn < Shape::kFragmentsN; ++fn) mma::store(scratch + fn * mma::kTile, Shape::kLdScratch, acc.c[fm][fn]);
    __syncthreads();
    for (int v = lane; v < kVectors; v += kWaveSize) {
      const int row = v / kVectorsPerRow;
      const int column = (v % kVectorsPerRow) * 8;
      const float* from = scratch + row * Shape::kLdScratch + column;
      Half8 out;
#pragma unroll
      for (int p = 0; p < 4; ++p) out.pair[p] = __floats2half2_rn(from[2 * p], from[2 * p + 1]);
      const std::size_t offset =
          static_cast<std::size_t>(first_row + fm * mma::kTile + row) * c.ld + first_column + column;
      for (int t = 0; t < c.count; ++t) *reinterpret_cast<Half8*>(c.c[t] + offset) = out;
    }
    __syncthreads();
  }
}

// Releases `flag` = 1 once every thread's stores before it are visible on this GPU (the tile's consumer runs on
// this GPU and acquires at system scope).
__device__ inline void release_after_stores(int* flag) {
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) flag_release_system(flag, 1);
}

// The persistent tile loop: this workgroup (pid, after any remap) computes tiles pid, pid + num_wgs, ... in
// grouped order.
template <class Shape>
__device__ inline void run_gemm_tiles(const GemmArgs& g, int pid, int num_wgs, SharedStorage<Shape>& shared) {
  __half* stages = reinterpret_cast<__half*>(shared.bytes);
  float* scratch = reinterpret_cast<float*>(shared.bytes);
  if (g.gate != nullptr) {
    if (threadIdx.x == 0) {
      for (int source = 0; source < g.gate_sources; ++source) {
        if (source == g.gate_own_source) continue;
        for (int channel = 0; channel < g.gate_channels; ++channel) {
          flag_wait_at_least(g.gate + source * g.gate_channels + channel, 1);
        }
      }
    }
    __syncthreads();
  }
  const int tiles = g.tiles_m * g.tiles_n;
  for (int tile = pid; tile < tiles; tile += num_wgs) {
    const TileCoord coord = grouped_tile(tile, g.tiles_m, g.tiles_n, g.group_m);
    Accumulators<Shape> acc;
    accumulate_tile<Shape>(g.a, g.b, g.tiles_m, coord.m, coord.n, stages, acc);
    store_tile<Shape>(acc, g.c, coord.m, coord.n, scratch);
    if (g.tile_done != nullptr) release_after_stores(g.tile_done + tile);
  }
}

}  // namespace tk::gemm

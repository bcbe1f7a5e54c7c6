// The kernels of distributed flash decode; flash_decode_kernels.h describes them and their buffers.
#include "patterns/flash_decode_kernels.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "harness/hip_check.h"
#include "port/matrix_unit.h"

namespace tk {

namespace {

// ---- split_kv ---------------------------------------------------------------------------------------------------
//
// 8 waves. Per KV block of 64 tokens: S = Q K^T (16 padded head rows x 64 tokens) on the matrix units, online
// softmax on the rows (threads), O = O * rescale + P V on the matrix units (16 x head_dim). K and V of the next
// block are loaded into registers (16-byte coalesced loads) while the current block is computed. Rows at or beyond
// heads_per_workgroup are zero queries: computed (the matrix unit's 16 rows), never stored.

constexpr int kSplitWaves = 8;
constexpr int kSplitThreads = kSplitWaves * kWaveSize;
constexpr int kRows = kFlashDecodeBlockH;              // 16
constexpr int kBlockN = kFlashDecodeBlockN;            // 64
constexpr int kThreadsPerRow = kSplitThreads / kRows;  // softmax threads per head row: 16 (NVIDIA), 32 (AMD)
constexpr int kColumnsPerThread = kBlockN / kThreadsPerRow;
constexpr int kScoreLd = kBlockN + 4;  // floats
constexpr int kProbLd = kBlockN + 8;   // halves
static_assert(kBlockN % kThreadsPerRow == 0, "softmax columns split evenly");

template <int D>
struct SplitShared {
  static constexpr int kLd = D + 8;  // halves, Q, K and V tiles: rows 16 bytes apart in the banks
  static constexpr int kOutLd = D + 4;  // floats, the P V tile
  static constexpr int kQOffset = 0;
  static constexpr int kKOffset = kQOffset + kRows * kLd * 2;
  static constexpr int kVOffset = kKOffset + kBlockN * kLd * 2;
  // S (16 x 64 fp32) and the P V products (16 x D fp32) are never live together: one region.
  static constexpr int kProductOffset = kVOffset + kBlockN * kLd * 2;
  static constexpr int kProductBytes = std::max(kRows * kScoreLd * 4, kRows * kOutLd * 4);
  static constexpr int kProbOffset = kProductOffset + (kProductBytes + 31) / 32 * 32;
  static constexpr int kPartialOffset = kProbOffset + kRows * kProbLd * 2;  // one float per thread
  static constexpr int kRowScaleOffset = kPartialOffset + kSplitThreads * 4;  // one float per row
  static constexpr int kLseOffset = kRowScaleOffset + kRows * 4;             // one float per row
  static constexpr int kBytes = kLseOffset + kRows * 4;
  static constexpr int kChunksPerRow = D / 8;
  static constexpr int kChunksPerThread = kBlockN * kChunksPerRow / kSplitThreads;
  static constexpr int kOutRowStep = kSplitThreads / D;  // O: thread t owns column t % D, rows t / D + step * i
  static constexpr int kOutRows = kRows / kOutRowStep;
  static_assert(kBlockN * kChunksPerRow % kSplitThreads == 0, "a KV block splits evenly over the threads");
  static_assert(kSplitThreads % D == 0 && kRows % kOutRowStep == 0, "O splits evenly over the threads");
  static_assert(kKOffset % 32 == 0 && kVOffset % 32 == 0 && kProductOffset % 32 == 0 && kProbOffset % 32 == 0,
                "matrix-unit tiles stay 32-byte aligned");
  static_assert(kBytes <= 64 * 1024, "fits the 64 KiB LDS of AMD CDNA");
};

template <int D>
__device__ inline void load_block(uint4 (&chunks)[SplitShared<D>::kChunksPerThread], const __half* rows) {
  const uint4* source = reinterpret_cast<const uint4*>(rows);
#pragma unroll
  for (int u = 0; u < SplitShared<D>::kChunksPerThread; ++u) chunks[u] = source[threadIdx.x + u * kSplitThreads];
}

template <int D>
__device__ inline void store_block(__half* tile, const uint4 (&chunks)[SplitShared<D>::kChunksPerThread]) {
  using S = SplitShared<D>;
#pragma unroll
  for (int u = 0; u < S::kChunksPerThread; ++u) {
    const int chunk = static_cast<int>(threadIdx.x) + u * kSplitThreads;
    *reinterpret_cast<uint4*>(tile + (chunk / S::kChunksPerRow) * S::kLd + (chunk % S::kChunksPerRow) * 8) =
        chunks[u];
  }
}

template <int D>
__global__ void __launch_bounds__(kSplitThreads)
    split_kv_kernel(const __half* __restrict__ q, const __half* __restrict__ k, const __half* __restrict__ v,
                    __half* __restrict__ partials, int q_heads, int kv_heads, int kv_len, int splits,
                    int heads_per_workgroup, float scale_log2) {
  using S = SplitShared<D>;
  constexpr int kDTiles = D / mma::kTile;
  constexpr int kNTiles = kBlockN / mma::kTile;
  extern __shared__ float4 split_shared[];
  unsigned char* shared = reinterpret_cast<unsigned char*>(split_shared);
  __half* q_tile = reinterpret_cast<__half*>(shared + S::kQOffset);
  __half* k_tile = reinterpret_cast<__half*>(shared + S::kKOffset);
  __half* v_tile = reinterpret_cast<__half*>(shared + S::kVOffset);
  float* scores_tile = reinterpret_cast<float*>(shared + S::kProductOffset);
  float* pv_tile = reinterpret_cast<float*>(shared + S::kProductOffset);
  __half* probs_tile = reinterpret_cast<__half*>(shared + S::kProbOffset);
  float* partial = reinterpret_cast<float*>(shared + S::kPartialOffset);
  float* row_scale = reinterpret_cast<float*>(shared + S::kRowScaleOffset);
  float* row_lse = reinterpret_cast<float*>(shared + S::kLseOffset);

  const int tid = static_cast<int>(threadIdx.x);
  const int wave = tid / kWaveSize;
  // Iris's grid (batch, head groups, splits): program_id 0 (the batch) fastest, as Tessera's wg numbering.
  const int b = static_cast<int>(blockIdx.x);
  const int head_group = static_cast<int>(blockIdx.y);
  const int split = static_cast<int>(blockIdx.z);
  const int group = q_heads / kv_heads;
  const int kv_head = head_group / (group / heads_per_workgroup);
  const int first_head = head_group * heads_per_workgroup;
  const int split_tokens = kv_len / splits;
  const int blocks = split_tokens / kBlockN;
  const std::size_t kv_first =
      ((static_cast<std::size_t>(b) * kv_heads + kv_head) * kv_len + static_cast<std::size_t>(split) * split_tokens) *
      D;
  const __half* k_rows = k + kv_first;
  const __half* v_rows = v + kv_first;

  // Q: heads_per_workgroup rows of [batch][q_heads][D], zero rows below them.
  for (int chunk = tid; chunk < kRows * S::kChunksPerRow; chunk += kSplitThreads) {
    const int row = chunk / S::kChunksPerRow;
    const int column = (chunk % S::kChunksPerRow) * 8;
    uint4 value = make_uint4(0u, 0u, 0u, 0u);
    if (row < heads_per_workgroup) {
      value = *reinterpret_cast<const uint4*>(
          q + (static_cast<std::size_t>(b) * q_heads + first_head + row) * D + column);
    }
    *reinterpret_cast<uint4*>(q_tile + row * S::kLd + column) = value;
  }

  const int softmax_row = tid / kThreadsPerRow;
  const int softmax_part = tid % kThreadsPerRow;
  float row_max = -INFINITY;  // log2 units; identical in every thread of the row
  float row_sum = 0.0f;       // this thread's columns only
  const int out_column = tid % D;
  const int out_first_row = tid / D;
  float out[S::kOutRows];
#pragma unroll
  for (int i = 0; i < S::kOutRows; ++i) out[i] = 0.0f;

  uint4 k_next[S::kChunksPerThread];
  uint4 v_next[S::kChunksPerThread];
  load_block<D>(k_next, k_rows);
  load_block<D>(v_next, v_rows);

  for (int block = 0; block < blocks; ++block) {
    __syncthreads();  // the previous block's K, V and P V tiles are no longer read
    store_block<D>(k_tile, k_next);
    store_block<D>(v_tile, v_next);
    if (block + 1 < blocks) {
      const std::size_t next = static_cast<std::size_t>(block + 1) * kBlockN * D;
      load_block<D>(k_next, k_rows + next);
      load_block<D>(v_next, v_rows + next);
    }
    __syncthreads();  // Q, K and V tiles complete

    // S = Q K^T: one 16 x 16 tile of the 16 x 64 scores per wave.
    for (int t = wave; t < kNTiles; t += kSplitWaves) {
      mma::Accumulator acc;
      mma::zero(acc);
#pragma unroll
      for (int kk = 0; kk < kDTiles; ++kk) {
        mma::FragmentA q_fragment;
        mma::FragmentB<mma::ColMajor> k_fragment;
        mma::load_a(q_fragment, q_tile + kk * mma::kTile, S::kLd);
        mma::load_b(k_fragment, k_tile + t * mma::kTile * S::kLd + kk * mma::kTile, S::kLd);
        mma::multiply_add(acc, q_fragment, k_fragment);
      }
      mma::store(scores_tile + t * mma::kTile, kScoreLd, acc);
    }
    __syncthreads();  // S complete

    float scores[kColumnsPerThread];
    float local_max = -INFINITY;
#pragma unroll
    for (int i = 0; i < kColumnsPerThread; ++i) {
      scores[i] = scores_tile[softmax_row * kScoreLd + softmax_part + kThreadsPerRow * i] * scale_log2;
      local_max = fmaxf(local_max, scores[i]);
    }
    partial[tid] = local_max;
    __syncthreads();  // partial maxima published (and every S value read: the P V tile may overwrite S)
    float new_max = row_max;
    for (int p = 0; p < kThreadsPerRow; ++p) new_max = fmaxf(new_max, partial[softmax_row * kThreadsPerRow + p]);
    const float rescale = exp2f(row_max - new_max);  // 0 on the first block (row_max = -inf; scores are finite)
    float local_sum = 0.0f;
#pragma unroll
    for (int i = 0; i < kColumnsPerThread; ++i) {
      const float probability = exp2f(scores[i] - new_max);
      probs_tile[softmax_row * kProbLd + softmax_part + kThreadsPerRow * i] = __float2half(probability);
      local_sum += probability;
    }
    row_sum = row_sum * rescale + local_sum;
    row_max = new_max;
    if (softmax_part == 0) row_scale[softmax_row] = rescale;
    __syncthreads();  // P and the rescale factors complete

    // P V: one 16 x 16 tile of the 16 x D products per wave.
    for (int t = wave; t < kDTiles; t += kSplitWaves) {
      mma::Accumulator acc;
      mma::zero(acc);
#pragma unroll
      for (int kk = 0; kk < kNTiles; ++kk) {
        mma::FragmentA p_fragment;
        mma::FragmentB<mma::RowMajor> v_fragment;
        mma::load_a(p_fragment, probs_tile + kk * mma::kTile, kProbLd);
        mma::load_b(v_fragment, v_tile + kk * mma::kTile * S::kLd + t * mma::kTile, S::kLd);
        mma::multiply_add(acc, p_fragment, v_fragment);
      }
      mma::store(pv_tile + t * mma::kTile, S::kOutLd, acc);
    }
    __syncthreads();  // P V complete
#pragma unroll
    for (int i = 0; i < S::kOutRows; ++i) {
      const int row = out_first_row + S::kOutRowStep * i;
      out[i] = out[i] * row_scale[row] + pv_tile[row * S::kOutLd + out_column];
    }
  }

  // Row sums over the threads of a row; then the record: O / sum, and lse = ln(sum of exp(score)).
  __syncthreads();  // every thread is done with the last block's partial maxima
  partial[tid] = row_sum;
  __syncthreads();
  if (softmax_part == 0) {
    float total = 0.0f;
    for (int p = 0; p < kThreadsPerRow; ++p) total += partial[softmax_row * kThreadsPerRow + p];
    row_scale[softmax_row] = 1.0f / total;
    row_lse[softmax_row] = (row_max + log2f(total)) * 0.69314718055994531f;
  }
  __syncthreads();
  const int record = D + 1;
#pragma unroll
  for (int i = 0; i < S::kOutRows; ++i) {
    const int row = out_first_row + S::kOutRowStep * i;
    if (row < heads_per_workgroup) {
      __half* target =
          partials + ((static_cast<std::size_t>(b) * q_heads + first_head + row) * splits + split) * record;
      target[out_column] = __float2half(out[i] * row_scale[row]);
      if (out_column == 0) target[D] = __float2half(row_lse[row]);
    }
  }
}

template <int D>
void enable_split_shared_memory() {
  HIP_CHECK(hipFuncSetAttribute(reinterpret_cast<const void*>(&split_kv_kernel<D>),
                                hipFuncAttributeMaxDynamicSharedMemorySize, SplitShared<D>::kBytes));
}

// ---- combine ----------------------------------------------------------------------------------------------------

// Grid (batch, q_heads), head_dim threads: thread c merges value c of every split (Iris gqa_local_reduce_fused).
__global__ void combine_kernel(const __half* __restrict__ partials, int q_heads, int splits, int delivery, int rank,
                               int ranks, int staggered, __half* combined, PerRank<__half*> gathered,
                               PerRank<int*> tile_flags, PerRank<int*> pair_flags, int* arrival_counter) {
  const int head_dim = static_cast<int>(blockDim.x);
  const int record = head_dim + 1;
  const int column = static_cast<int>(threadIdx.x);
  const int tiles = static_cast<int>(gridDim.x * gridDim.y);
  const int tile = static_cast<int>(blockIdx.x) * q_heads + static_cast<int>(blockIdx.y);  // b * q_heads + h
  const __half* records = partials + static_cast<std::size_t>(tile) * splits * record;
  float max_lse = -INFINITY, sum = 0.0f, acc = 0.0f;
  for (int s = 0; s < splits; ++s) {
    const float lse = __half2float(records[s * record + head_dim]);
    const float value = __half2float(records[s * record + column]);
    const float new_max = fmaxf(max_lse, lse);
    const float old_scale = expf(max_lse - new_max);
    const float weight = expf(lse - new_max);
    acc = acc * old_scale + weight * value;
    sum = sum * old_scale + weight;
    max_lse = new_max;
  }
  const __half value = __float2half(acc / sum);
  const __half lse = __float2half(max_lse + logf(sum));

  if (delivery == static_cast<int>(CombineDelivery::local)) {
    combined[static_cast<std::size_t>(tile) * record + column] = value;
    if (column == 0) combined[static_cast<std::size_t>(tile) * record + head_dim] = lse;
    return;
  }
  const std::size_t slot = (static_cast<std::size_t>(rank) * tiles + tile) * record;  // gathered[rank][b][h]
  for (int i = 0; i < ranks; ++i) {
    const int destination = staggered ? (rank + i) % ranks : i;
    __half* target = gathered.at[destination] + slot;
    target[column] = value;
    if (column == 0) target[head_dim] = lse;
    if (delivery == static_cast<int>(CombineDelivery::push_per_tile)) {
      __threadfence_system();  // this thread's stores reach the destination before the flag
      __syncthreads();
      if (column == 0) {
        flag_release_system(tile_flags.at[destination] + static_cast<std::size_t>(rank) * tiles + tile, 1);
      }
    }
  }
  if (delivery == static_cast<int>(CombineDelivery::push_coarse)) {
    __threadfence_system();
    __syncthreads();
    if (column == 0) {
      // The last workgroup to arrive (of the whole grid) has seen every other's fenced stores through the
      // counter; it releases the one flag of this source on every destination. No workgroup waits.
      const int arrived = atomicAdd(arrival_counter, 1);
      if (arrived == tiles - 1) {
        __threadfence_system();
        for (int i = 0; i < ranks; ++i) {
          const int destination = staggered ? (rank + i) % ranks : i;
          flag_release_system(pair_flags.at[destination] + rank, 1);
        }
      }
    }
  }
}

// ---- all_gather (one-shot) --------------------------------------------------------------------------------------

constexpr int kAllGatherThreads = 256;

// Channel c copies units [c * units / channels, (c + 1) * units / channels) of this rank's shard into
// gathered[rank] of every rank (its own first), releases flag (rank, c) on every peer, then waits for
// flag (peer, c) from every peer: when all channels return, every shard is in place (Tessera kOneShot).
template <class Unit>
__global__ void all_gather_one_shot_kernel(const Unit* __restrict__ shard, std::size_t shard_units,
                                           PerRank<__half*> gathered, PerRank<int*> flags, int rank, int ranks) {
  const int channel = static_cast<int>(blockIdx.x);
  const int channels = static_cast<int>(gridDim.x);
  const std::size_t first = shard_units * channel / channels;
  const std::size_t last = shard_units * (channel + 1) / channels;
  for (int i = 0; i < ranks; ++i) {
    const int destination = (rank + i) % ranks;
    Unit* slot = reinterpret_cast<Unit*>(gathered.at[destination]) + static_cast<std::size_t>(rank) * shard_units;
    for (std::size_t u = first + threadIdx.x; u < last; u += blockDim.x) slot[u] = shard[u];
  }
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x != 0) return;
  for (int i = 1; i < ranks; ++i) {
    const int peer = (rank + i) % ranks;
    flag_release_system(flags.at[peer] + rank * channels + channel, 1);
  }
  for (int i = 1; i < ranks; ++i) {
    const int peer = (rank + i) % ranks;
    flag_wait_at_least(flags.at[rank] + peer * channels + channel, 1);
  }
}

// ---- global_reduce ----------------------------------------------------------------------------------------------

constexpr int kReduceWaves = 8;
constexpr int kReduceThreads = kReduceWaves * kWaveSize;

// One wave per (b, h) tile at a time, tiles strided over the grid's waves. Lane l holds values l + W * j.
template <int D>
__global__ void __launch_bounds__(kReduceThreads)
    global_reduce_kernel(const __half* __restrict__ gathered, const int* tile_flags, const int* pair_flags,
                         __half* __restrict__ o, int tiles, int rank, int ranks, int staggered, int delivery) {
  constexpr int kPerLane = D / kWaveSize;
  constexpr int kRecord = D + 1;
  const int lane = static_cast<int>(threadIdx.x) % kWaveSize;
  const int wave = static_cast<int>(threadIdx.x) / kWaveSize;
  const int stride = static_cast<int>(gridDim.x) * kReduceWaves;
  for (int tile = static_cast<int>(blockIdx.x) * kReduceWaves + wave; tile < tiles; tile += stride) {
    float max_lse = -INFINITY, sum = 0.0f;
    float acc[kPerLane];
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) acc[j] = 0.0f;
    for (int i = 0; i < ranks; ++i) {
      const int source = staggered ? (rank + i) % ranks : i;
      // Every lane acquires the flag itself, so each lane's own loads below are ordered after the acquire.
      if (delivery == static_cast<int>(CombineDelivery::push_per_tile)) {
        flag_wait_at_least(tile_flags + static_cast<std::size_t>(source) * tiles + tile, 1);
      } else if (delivery == static_cast<int>(CombineDelivery::push_coarse)) {
        flag_wait_at_least(pair_flags + source, 1);
      }
      const __half* record = gathered + (static_cast<std::size_t>(source) * tiles + tile) * kRecord;
      const float lse = __half2float(record[D]);
      const float new_max = fmaxf(max_lse, lse);
      const float old_scale = expf(max_lse - new_max);
      const float weight = expf(lse - new_max);
#pragma unroll
      for (int j = 0; j < kPerLane; ++j) {
        acc[j] = acc[j] * old_scale + weight * __half2float(record[lane + kWaveSize * j]);
      }
      sum = sum * old_scale + weight;
      max_lse = new_max;
    }
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      o[static_cast<std::size_t>(tile) * D + lane + kWaveSize * j] = __float2half(acc[j] / sum);
    }
  }
}

}  // namespace

namespace {

void preload(const void* kernel) {
  hipFuncAttributes attributes;
  HIP_CHECK(hipFuncGetAttributes(&attributes, kernel));
}

}  // namespace

void prepare_flash_decode_kernels(int head_dim) {
  if (head_dim == 64) enable_split_shared_memory<64>();
  else if (head_dim == 128) enable_split_shared_memory<128>();
  else throw std::invalid_argument("head_dim: 64 or 128");
  // Load every kernel into this device's context now. With CUDA's lazy loading (the default since CUDA 12.2) the
  // first launch of a kernel loads it, and that load waits for the kernels already running on the device: the
  // first global_reduce launch queued behind a spinning all_gather of ranks sharing this GPU would then wait for
  // a peer whose launch comes after it on the host (a deadlock seen on an H200 with --devices 0,0).
  preload(reinterpret_cast<const void*>(&split_kv_kernel<64>));
  preload(reinterpret_cast<const void*>(&split_kv_kernel<128>));
  preload(reinterpret_cast<const void*>(&combine_kernel));
  preload(reinterpret_cast<const void*>(&all_gather_one_shot_kernel<uint4>));
  preload(reinterpret_cast<const void*>(&all_gather_one_shot_kernel<unsigned int>));
  preload(reinterpret_cast<const void*>(&all_gather_one_shot_kernel<unsigned short>));
  preload(reinterpret_cast<const void*>(&global_reduce_kernel<64>));
  preload(reinterpret_cast<const void*>(&global_reduce_kernel<128>));
}

void launch_split_kv(const FlashDecodeShape& shape, const __half* q, const __half* k, const __half* v,
                     __half* partials, hipStream_t stream) {
  const dim3 grid(shape.batch, shape.head_groups(), shape.splits);
  const float scale_log2 = static_cast<float>(1.4426950408889634 / std::sqrt(static_cast<double>(shape.head_dim)));
  if (shape.head_dim == 64) {
    hipLaunchKernelGGL(split_kv_kernel<64>, grid, dim3(kSplitThreads), SplitShared<64>::kBytes, stream, q, k, v,
                       partials, shape.q_heads, shape.kv_heads, shape.kv_len, shape.splits,
                       shape.heads_per_workgroup(), scale_log2);
  } else {
    hipLaunchKernelGGL(split_kv_kernel<128>, grid, dim3(kSplitThreads), SplitShared<128>::kBytes, stream, q, k, v,
                       partials, shape.q_heads, shape.kv_heads, shape.kv_len, shape.splits,
                       shape.heads_per_workgroup(), scale_log2);
  }
}

void launch_combine(const FlashDecodeShape& shape, CombineDelivery delivery, int rank, bool staggered,
                    const __half* partials, __half* combined, const PerRank<__half*>& gathered,
                    const PerRank<int*>& tile_flags, const PerRank<int*>& pair_flags, int* arrival_counter,
                    hipStream_t stream) {
  hipLaunchKernelGGL(combine_kernel, dim3(shape.batch, shape.q_heads), dim3(shape.head_dim), 0, stream, partials,
                     shape.q_heads, shape.splits, static_cast<int>(delivery), rank, shape.ranks, staggered ? 1 : 0,
                     combined, gathered, tile_flags, pair_flags, arrival_counter);
}

namespace {

std::size_t copy_unit_bytes(std::size_t shard_bytes) {
  if (shard_bytes % 16 == 0) return 16;
  if (shard_bytes % 4 == 0) return 4;
  return 2;  // records are fp16: always a multiple of 2
}

}  // namespace

int all_gather_channels(std::size_t shard_bytes, int channels) {
  const std::size_t units = shard_bytes / copy_unit_bytes(shard_bytes);
  return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(static_cast<std::size_t>(channels), units)));
}

void launch_all_gather_one_shot(int rank, int ranks, const __half* shard, std::size_t shard_bytes,
                                const PerRank<__half*>& gathered, const PerRank<int*>& flags, int channels,
                                hipStream_t stream) {
  const std::size_t unit = copy_unit_bytes(shard_bytes);
  const dim3 grid(all_gather_channels(shard_bytes, channels));
  const std::size_t units = shard_bytes / unit;
  if (unit == 16) {
    hipLaunchKernelGGL(all_gather_one_shot_kernel<uint4>, grid, dim3(kAllGatherThreads), 0, stream,
                       reinterpret_cast<const uint4*>(shard), units, gathered, flags, rank, ranks);
  } else if (unit == 4) {
    hipLaunchKernelGGL(all_gather_one_shot_kernel<unsigned int>, grid, dim3(kAllGatherThreads), 0, stream,
                       reinterpret_cast<const unsigned int*>(shard), units, gathered, flags, rank, ranks);
  } else {
    hipLaunchKernelGGL(all_gather_one_shot_kernel<unsigned short>, grid, dim3(kAllGatherThreads), 0, stream,
                       reinterpret_cast<const unsigned short*>(shard), units, gathered, flags, rank, ranks);
  }
}

int global_reduce_grid(const FlashDecodeShape& shape, int workgroups) {
  const int needed = (shape.tiles() + kReduceWaves - 1) / kReduceWaves;
  return std::max(1, std::min(needed, workgroups));
}

void launch_global_reduce(const FlashDecodeShape& shape, CombineDelivery delivery, int rank, bool staggered,
                          const __half* gathered, const int* tile_flags, const int* pair_flags, __half* o,
                          int workgroups, hipStream_t stream) {
  const dim3 grid(global_reduce_grid(shape, workgroups));
  if (shape.head_dim == 64) {
    hipLaunchKernelGGL(global_reduce_kernel<64>, grid, dim3(kReduceThreads), 0, stream, gathered, tile_flags,
                       pair_flags, o, shape.tiles(), rank, shape.ranks, staggered ? 1 : 0, static_cast<int>(delivery));
  } else {
    hipLaunchKernelGGL(global_reduce_kernel<128>, grid, dim3(kReduceThreads), 0, stream, gathered, tile_flags,
                       pair_flags, o, shape.tiles(), rank, shape.ranks, staggered ? 1 : 0, static_cast<int>(delivery));
  }
}

}  // namespace tk

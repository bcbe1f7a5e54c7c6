// attention: Flash-Attention-2 forward on one GPU (Tessera kind `attention`, docs/workloads.md; the NUMA paper,
// arXiv 2511.02132). O = softmax(Q K^T / sqrt(d)) V per (batch, q head), fp16 Q, K, V, O in Tessera's layout
// [batch][heads][seq_len][head_dim] (K and V with kv_heads heads; q head h reads KV head h / (q_heads / kv_heads)),
// fp32 accumulation, online softmax.
//
// One workgroup per 128-row Q block of one (batch, q head) (block_m 128), chosen from the launched id by Tessera's
// mapping (attention_mapping.h); it streams its KV head's K and V in 64-row blocks (block_n 64): per block, load K,
// S = Q K^T on the matrix units, online softmax, load V, O += P V on the matrix units; then it stores its O block.
// causal=1 streams only the KV blocks up to the diagonal (the diagonal ones computed whole and masked), as Tessera's
// `causal: true`.
//
// Work split inside the workgroup: 8 waves, each owns 16 query rows (one matrix-unit strip). Its Q fragments and
// its O accumulator stay in registers for the whole KV loop. The accumulator of the matrix unit is opaque per lane,
// so each wave stores S to its shared-memory strip for the row-wise softmax, and the P V products to a scratch
// (its whole 16 x head_dim strip at once where shared memory allows, else one tile at a time) from which each lane
// updates the O values it owns (O = O * rescale[row] + PV). K and V of a block share
// one shared-memory tile (K, then V), loaded from registers that were prefetched during the previous phase, so the
// HBM latency overlaps the matrix work. Waves synchronise with __syncthreads (every wave runs the same loop).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/device_data.h"
#include "harness/timing.h"
#include "patterns/attention_cases.h"
#include "patterns/attention_mapping.h"
#include "patterns/attention_reference.h"
#include "port/matrix_unit.h"

namespace tk {

namespace {

constexpr int kBlockM = 128;              // Q rows per workgroup (Tessera block_m)
constexpr int kBlockN = 64;               // K/V rows per KV block (Tessera block_n)
constexpr int kStrip = mma::kTile;        // query rows of one wave
constexpr int kWaves = kBlockM / kStrip;  // 8
constexpr int kThreads = kWaves * kWaveSize;
constexpr int kLanesPerRow = kWaveSize / kStrip;        // lanes sharing one softmax row: 2 (NVIDIA), 4 (AMD)
constexpr int kColumnsPerLane = kBlockN / kLanesPerRow;  // score columns per lane: 32, 16
constexpr int kOutPerTile = kStrip * kStrip / kWaveSize;  // O values a lane owns per 16x16 tile: 8, 4
// Per-wave shared strip: S (16 x 64 fp32, padded rows against bank conflicts), then P (fp16) written over it once
// every lane holds its scores in registers, and behind P the scratch tiles (16 x 16 fp32) of the P V products.
constexpr int kScoreLd = kBlockN + 4;  // floats
constexpr int kProbLd = kBlockN + 8;   // halves
constexpr int kScoreBytes = kStrip * kScoreLd * 4;
constexpr int kProbBytes = kStrip * kProbLd * 2;
constexpr int kScratchFloats = kStrip * kStrip;
// The P V products of a wave go through the scratch in rounds, one barrier per round. Where the shared memory
// allows (NVIDIA: 227 KiB per block), one round holds the wave's whole 16 x D strip; within AMD CDNA's 64 KiB of
// LDS a round is one 16 x 16 tile, in two scratch tiles used alternately.
constexpr int kSharedBudget = kWaveSize == 32 ? 227 * 1024 : 64 * 1024;
constexpr bool kWholeStripRounds = kWaveSize == 32;
static_assert(kProbBytes % 32 == 0, "matrix-unit tiles stay 32-byte aligned");

template <int D>
struct AttentionShared {
  static constexpr int kDTiles = D / mma::kTile;
  static constexpr int kRoundTiles = kWholeStripRounds ? kDTiles : 1;
  static constexpr int kScratchTiles = kRoundTiles == kDTiles ? kDTiles : 2 * kRoundTiles;
  static constexpr int kWaveBytes = std::max(kScoreBytes, kProbBytes + kScratchTiles * kScratchFloats * 4);
  static constexpr int kKvLd = D + 8;  // halves: rows 16 bytes apart in the banks
  static constexpr int kKvBytes = kBlockN * kKvLd * 2;
  static constexpr int kWavesOffset = kKvBytes;
  static constexpr int kPartialOffset = kWavesOffset + kWaves * kWaveBytes;    // per wave: one float per lane
  static constexpr int kRowScaleOffset = kPartialOffset + kThreads * 4;        // per wave: one float per row
  static constexpr int kBytes = kRowScaleOffset + kWaves * kStrip * 4;
  static constexpr int kChunksPerRow = D / 8;  // 16-byte chunks of one K/V row
  static constexpr int kChunksPerThread = kBlockN * kChunksPerRow / kThreads;
  static_assert(kBlockN * kChunksPerRow % kThreads == 0, "a KV block splits evenly over the threads");
  static_assert(kKvBytes % 32 == 0 && kWaveBytes % 32 == 0, "matrix-unit tiles stay 32-byte aligned");
  static_assert(kDTiles % kRoundTiles == 0, "rounds of whole tiles");
  static_assert(kBytes <= kSharedBudget, "fits the shared memory of a workgroup");
};

// One KV block (kBlockN consecutive rows of one head: one contiguous range) into registers, 16 bytes per load,
// consecutive threads on consecutive chunks (coalesced).
template <int D>
__device__ inline void load_kv_block(uint4 (&chunks)[AttentionShared<D>::kChunksPerThread], const __half* rows) {
  const uint4* source = reinterpret_cast<const uint4*>(rows);
#pragma unroll
  for (int u = 0; u < AttentionShared<D>::kChunksPerThread; ++u) chunks[u] = source[threadIdx.x + u * kThreads];
}

template <int D>
__device__ inline void store_kv_block(__half* tile, const uint4 (&chunks)[AttentionShared<D>::kChunksPerThread]) {
  using S = AttentionShared<D>;
#pragma unroll
  for (int u = 0; u < S::kChunksPerThread; ++u) {
    const int chunk = static_cast<int>(threadIdx.x) + u * kThreads;
    const int row = chunk / S::kChunksPerRow;
    const int column = (chunk % S::kChunksPerRow) * 8;
    *reinterpret_cast<uint4*>(tile + row * S::kKvLd + column) = chunks[u];
  }
}

// ResidentKv (the attention_step microbenchmark): the same KV loop, but every KV block is block 0 of K and of V,
// held in registers after one global load (the loads of later blocks are skipped; the register -> shared-memory
// stores, the matrix work, the softmax and every barrier stay), and workgroup w writes its O block at w * block_m
// rows of O from Q block 0 of head 0. `seq_len` then only gives the KV blocks streamed (seq_len / block_n).
template <int D, bool ResidentKv = false>
__global__ void __launch_bounds__(kThreads)
    flash_attention_forward_kernel(const __half* __restrict__ q, const __half* __restrict__ k,
                                   const __half* __restrict__ v, __half* __restrict__ o, int batch, int q_heads,
                                   int kv_heads, int seq_len, int dies, AttentionMapping mapping, int causal,
                                   float scale_log2) {
  using S = AttentionShared<D>;
  constexpr int kDTiles = D / mma::kTile;
  constexpr int kNTiles = kBlockN / mma::kTile;
  extern __shared__ float4 attention_shared[];
  unsigned char* shared = reinterpret_cast<unsigned char*>(attention_shared);
  __half* kv_tile = reinterpret_cast<__half*>(shared);
  const int wave = static_cast<int>(threadIdx.x) / kWaveSize;
  const int lane = static_cast<int>(threadIdx.x) % kWaveSize;
  unsigned char* wave_strip = shared + S::kWavesOffset + wave * S::kWaveBytes;
  float* scores_strip = reinterpret_cast<float*>(wave_strip);
  __half* probs_strip = reinterpret_cast<__half*>(wave_strip);
  float* scratch = reinterpret_cast<float*>(wave_strip + kProbBytes);
  float* partial = reinterpret_cast<float*>(shared + S::kPartialOffset) + wave * kWaveSize;
  float* row_scale = reinterpret_cast<float*>(shared + S::kRowScaleOffset) + wave * kStrip;

  const int q_blocks = seq_len / kBlockM;
  const AttentionCoord coord =
      ResidentKv ? AttentionCoord{0, 0, 0} : attention_coord(blockIdx.x, batch, q_heads, q_blocks, dies, mapping);
  const int group = q_heads / kv_heads;
  const std::size_t head_elements = static_cast<std::size_t>(seq_len) * D;
  const std::size_t q_head = static_cast<std::size_t>(coord.batch) * q_heads + coord.head;
  const std::size_t kv_head = static_cast<std::size_t>(coord.batch) * kv_heads + coord.head / group;
  const __half* q_rows = q + q_head * head_elements;
  const __half* k_rows = k + kv_head * head_elements;
  const __half* v_rows = v + kv_head * head_elements;
  __half* o_rows = ResidentKv ? o + static_cast<std::size_t>(blockIdx.x) * kBlockM * D : o + q_head * head_elements;
  const int first_row = coord.q_block * kBlockM + wave * kStrip;

  mma::FragmentA q_fragments[kDTiles];
#pragma unroll
  for (int kk = 0; kk < kDTiles; ++kk) {
    mma::load_a(q_fragments[kk], q_rows + static_cast<std::size_t>(first_row) * D + kk * mma::kTile, D);
  }
  float out[kDTiles][kOutPerTile];
#pragma unroll
  for (int t = 0; t < kDTiles; ++t) {
#pragma unroll
    for (int i = 0; i < kOutPerTile; ++i) out[t][i] = 0.0f;
  }
  // The softmax row of this lane and its share of the row's columns (column = part + kLanesPerRow * i).
  const int softmax_row = lane / kLanesPerRow;
  const int softmax_part = lane % kLanesPerRow;
  const int query = first_row + softmax_row;
  float row_max = -INFINITY;  // running maximum of the row, in log2 units (identical in every lane of the row)
  float row_sum = 0.0f;       // running sum of exp2(score - row_max) over this lane's columns only

  const int kv_blocks = causal ? ((coord.q_block + 1) * kBlockM + kBlockN - 1) / kBlockN : seq_len / kBlockN;
  uint4 k_next[S::kChunksPerThread];
  uint4 v_next[S::kChunksPerThread];
  load_kv_block<D>(k_next, k_rows);
  load_kv_block<D>(v_next, v_rows);

  for (int block = 0; block < kv_blocks; ++block) {
    const std::size_t next_offset = static_cast<std::size_t>(block + 1) * kBlockN * D;
    __syncthreads();  // every wave has finished reading the previous V tile
    store_kv_block<D>(kv_tile, k_next);
    if (!ResidentKv && block + 1 < kv_blocks) load_kv_block<D>(k_next, k_rows + next_offset);
    __syncthreads();  // the K tile is complete

    // S = Q K^T for this wave's 16 rows (K^T: the row-major K tile read column-major).
#pragma unroll
    for (int t = 0; t < kNTiles; ++t) {
      mma::Accumulator acc;
      mma::zero(acc);
#pragma unroll
      for (int kk = 0; kk < kDTiles; ++kk) {
        mma::FragmentB<mma::ColMajor> k_fragment;
        mma::load_b(k_fragment, kv_tile + t * mma::kTile * S::kKvLd + kk * mma::kTile, S::kKvLd);
        mma::multiply_add(acc, q_fragments[kk], k_fragment);
      }
      mma::store(scores_strip + t * mma::kTile, kScoreLd, acc);
    }
    __syncthreads();  // S strips written; every wave is done with the K tile

    store_kv_block<D>(kv_tile, v_next);
    if (!ResidentKv && block + 1 < kv_blocks) load_kv_block<D>(v_next, v_rows + next_offset);

    // Online softmax, in log2 units (scale_log2 = log2(e) / sqrt(d)).
    float scores[kColumnsPerLane];
    float local_max = -INFINITY;
#pragma unroll
    for (int i = 0; i < kColumnsPerLane; ++i) {
      const int column = softmax_part + kLanesPerRow * i;
      float x = scores_strip[softmax_row * kScoreLd + column] * scale_log2;
      if (causal && block * kBlockN + column > query) x = -INFINITY;
      scores[i] = x;
      local_max = fmaxf(local_max, x);
    }
    partial[lane] = local_max;
    __syncthreads();  // partial maxima published; every lane holds its scores, so P may overwrite S
    // Finite: block 0 always has an unmasked key (key 0 <= query), and later blocks keep the earlier maximum.
    float new_max = row_max;
#pragma unroll
    for (int p = 0; p < kLanesPerRow; ++p) new_max = fmaxf(new_max, partial[softmax_row * kLanesPerRow + p]);
    const float rescale = exp2f(row_max - new_max);  // 0 on the first block (row_max = -inf)
    float local_sum = 0.0f;
#pragma unroll
    for (int i = 0; i < kColumnsPerLane; ++i) {
      const int column = softmax_part + kLanesPerRow * i;
      const float probability = exp2f(scores[i] - new_max);
      probs_strip[softmax_row * kProbLd + column] = __float2half(probability);
      local_sum += probability;
    }
    row_sum = row_sum * rescale + local_sum;
    row_max = new_max;
    if (softmax_part == 0) row_scale[softmax_row] = rescale;
    __syncthreads();  // P, the rescale factors and the V tile are complete

    // O = O * rescale + P V, in rounds of kRoundTiles 16-column tiles of O through the scratch. With several
    // rounds per block the two halves of the scratch alternate, so that one barrier per round suffices: a half is
    // rewritten only after the barrier of the next round, which every lane passes after reading it. With one
    // round, the next write comes after the next block's barriers.
    float rescale_of[kOutPerTile];  // the rescale of the row of each O value this lane owns (same in every tile)
#pragma unroll
    for (int i = 0; i < kOutPerTile; ++i) rescale_of[i] = row_scale[(lane + kWaveSize * i) / mma::kTile];
    mma::FragmentA p_fragments[kNTiles];
#pragma unroll
    for (int kk = 0; kk < kNTiles; ++kk) mma::load_a(p_fragments[kk], probs_strip + kk * mma::kTile, kProbLd);
#pragma unroll
    for (int round = 0; round < kDTiles / S::kRoundTiles; ++round) {
      float* round_scratch =
          scratch + (S::kRoundTiles == kDTiles ? 0 : (round % 2) * S::kRoundTiles * kScratchFloats);
#pragma unroll
      for (int r = 0; r < S::kRoundTiles; ++r) {
        const int t = round * S::kRoundTiles + r;
        mma::Accumulator acc;
        mma::zero(acc);
#pragma unroll
        for (int kk = 0; kk < kNTiles; ++kk) {
          mma::FragmentB<mma::RowMajor> v_fragment;
          mma::load_b(v_fragment, kv_tile + kk * mma::kTile * S::kKvLd + t * mma::kTile, S::kKvLd);
          mma::multiply_add(acc, p_fragments[kk], v_fragment);
        }
        mma::store(round_scratch + r * kScratchFloats, mma::kTile, acc);
      }
      __syncthreads();  // this round's products are visible to every lane of the wave
#pragma unroll
      for (int r = 0; r < S::kRoundTiles; ++r) {
        const int t = round * S::kRoundTiles + r;
#pragma unroll
        for (int i = 0; i < kOutPerTile; ++i) {
          out[t][i] = out[t][i] * rescale_of[i] + round_scratch[r * kScratchFloats + lane + kWaveSize * i];
        }
      }
    }
  }

  // The row sums over all lanes of a row, then O / sum as fp16.
  partial[lane] = row_sum;
  __syncthreads();
  if (softmax_part == 0) {
    float total = 0.0f;
#pragma unroll
    for (int p = 0; p < kLanesPerRow; ++p) total += partial[softmax_row * kLanesPerRow + p];
    row_scale[softmax_row] = 1.0f / total;
  }
  __syncthreads();
#pragma unroll
  for (int t = 0; t < kDTiles; ++t) {
#pragma unroll
    for (int i = 0; i < kOutPerTile; ++i) {
      const int element = lane + kWaveSize * i;
      const int row = element / mma::kTile;
      const int column = t * mma::kTile + element % mma::kTile;
      o_rows[static_cast<std::size_t>(first_row + row) * D + column] = __float2half(out[t][i] * row_scale[row]);
    }
  }
}

template <int D, bool ResidentKv = false>
void enable_attention_shared_memory() {
  HIP_CHECK(hipFuncSetAttribute(reinterpret_cast<const void*>(&flash_attention_forward_kernel<D, ResidentKv>),
                                hipFuncAttributeMaxDynamicSharedMemorySize, AttentionShared<D>::kBytes));
}

std::uint64_t mix(std::uint64_t x) {  // splitmix64: the deterministic sample positions of the check
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

constexpr int kSampledRows = 64;
constexpr float kQRange = 4.0f;  // Q in [-4, 4): scores of std ~1.3, a peaked softmax that tests the rescaling

class FlashAttentionForward final : public Case {
 public:
  explicit FlashAttentionForward(const Params& params)
      : batch_(static_cast<int>(params.integer("batch"))),
        q_heads_(static_cast<int>(params.integer("q_heads"))),
        kv_heads_(static_cast<int>(params.integer("kv_heads"))),
        seq_len_(static_cast<int>(params.integer("seq_len"))),
        head_dim_(static_cast<int>(params.integer("head_dim"))),
        causal_(static_cast<int>(params.integer("causal"))),
        dies_(static_cast<int>(params.integer("dies"))) {
    if (params.integer("batch") < 1 || params.integer("batch") > 1024) throw std::invalid_argument("batch: 1 to 1024");
    if (params.integer("q_heads") < 1 || params.integer("q_heads") > 1024) {
      throw std::invalid_argument("q_heads: 1 to 1024");
    }
    if (kv_heads_ < 1 || kv_heads_ > q_heads_ || q_heads_ % kv_heads_ != 0) {
      throw std::invalid_argument("kv_heads: must divide q_heads (each KV head serves q_heads / kv_heads q heads)");
    }
    if (params.integer("seq_len") < kBlockM || params.integer("seq_len") > (1 << 20) || seq_len_ % kBlockM != 0) {
      throw std::invalid_argument("seq_len: a multiple of block_m (128) up to 1048576: no masked edge blocks");
    }
    if (head_dim_ != 64 && head_dim_ != 128) throw std::invalid_argument("head_dim: 64 or 128");
    if (causal_ != 0 && causal_ != 1) throw std::invalid_argument("causal: 0 or 1");
    if (dies_ < 1 || dies_ > 64) throw std::invalid_argument("dies: 1 to 64");
    if (!parse_attention_mapping(params.text("mapping"), mapping_)) {
      throw std::invalid_argument("mapping: naive_block_first, swizzled_block_first, naive_head_first or "
                                  "swizzled_head_first, not '" + params.text("mapping") + "'");
    }
    const std::int64_t workgroups = static_cast<std::int64_t>(batch_) * q_heads_ * (seq_len_ / kBlockM);
    if (workgroups > 0x7FFFFFFF) throw std::invalid_argument("seq_len: more workgroups than a grid holds");
    workgroups_ = static_cast<int>(workgroups);
    const bool swizzled = mapping_ == AttentionMapping::swizzled_block_first ||
                          mapping_ == AttentionMapping::swizzled_head_first;
    if (swizzled && workgroups_ % dies_ != 0) {
      throw std::invalid_argument("mapping: the swizzle needs the grid (" + std::to_string(workgroups_) +
                                  " workgroups) to be a multiple of dies (" + std::to_string(dies_) + ")");
    }
  }

  void setup(Context& context) override {
    q_elements_ = static_cast<std::size_t>(batch_) * q_heads_ * seq_len_ * head_dim_;
    kv_elements_ = static_cast<std::size_t>(batch_) * kv_heads_ * seq_len_ * head_dim_;
    q_ = context.allocate<__half>(0, q_elements_);
    k_ = context.allocate<__half>(0, kv_elements_);
    v_ = context.allocate<__half>(0, kv_elements_);
    o_ = context.allocate<__half>(0, q_elements_);
    fill_uniform(context, 0, q_, q_elements_, context.seed() * 4 + 1, -kQRange, kQRange);
    fill_uniform(context, 0, k_, kv_elements_, context.seed() * 4 + 2, -1.0f, 1.0f);
    fill_uniform(context, 0, v_, kv_elements_, context.seed() * 4 + 3, -1.0f, 1.0f);
    context.use(0);
    if (head_dim_ == 64) enable_attention_shared_memory<64>();
    else enable_attention_shared_memory<128>();
  }

  void poison_outputs(Context& context) override { poison(context, 0, o_, q_elements_ * sizeof(__half)); }

  void enqueue(Context& context, int /*rank*/) override {
    const float scale_log2 = static_cast<float>(1.4426950408889634 / std::sqrt(static_cast<double>(head_dim_)));
    if (head_dim_ == 64) {
      hipLaunchKernelGGL(flash_attention_forward_kernel<64>, dim3(workgroups_), dim3(kThreads),
                         AttentionShared<64>::kBytes, context.stream(0), q_, k_, v_, o_, batch_, q_heads_, kv_heads_,
                         seq_len_, dies_, mapping_, causal_, scale_log2);
    } else {
      hipLaunchKernelGGL(flash_attention_forward_kernel<128>, dim3(workgroups_), dim3(kThreads),
                         AttentionShared<128>::kBytes, context.stream(0), q_, k_, v_, o_, batch_, q_heads_,
                         kv_heads_, seq_len_, dies_, mapping_, causal_, scale_log2);
    }
  }

  // A stratified deterministic sample of output rows: the batch x q_heads x seq_len rows cut into kSampledRows
  // equal strata, one pseudo-random row in each (so every head is hit when there are at most 64 of them, at
  // varying rows of the Q block), each compared in full against softmax(q K^T / sqrt(d)) V in double.
  CheckResult check(Context& context) override {
    struct Sample {
      std::int64_t kv_head;  // b * kv_heads + KV head: samples are processed one KV head at a time
      std::int64_t q_row;    // (b * q_heads + h) * seq_len + row
    };
    const std::int64_t rows = static_cast<std::int64_t>(batch_) * q_heads_ * seq_len_;
    const std::int64_t count = std::min<std::int64_t>(kSampledRows, rows);
    const std::int64_t stratum = rows / count;
    std::vector<Sample> samples;
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t q_row = i * stratum + static_cast<std::int64_t>(mix(static_cast<std::uint64_t>(i)) %
                                                                         static_cast<std::uint64_t>(stratum));
      const std::int64_t bh = q_row / seq_len_;
      const std::int64_t kv_head = (bh / q_heads_) * kv_heads_ + (bh % q_heads_) / (q_heads_ / kv_heads_);
      samples.push_back({kv_head, q_row});
    }
    std::stable_sort(samples.begin(), samples.end(),
                     [](const Sample& a, const Sample& b) { return a.kv_head < b.kv_head; });

    const std::size_t head_elements = static_cast<std::size_t>(seq_len_) * head_dim_;
    const double scale = 1.0 / std::sqrt(static_cast<double>(head_dim_));
    std::vector<float> got;
    std::vector<double> expected;
    std::vector<double> row_out(static_cast<std::size_t>(head_dim_));
    std::int64_t loaded_head = -1;
    std::vector<float> k_head, v_head;
    for (const Sample& sample : samples) {
      if (sample.kv_head != loaded_head) {
        const std::size_t offset = static_cast<std::size_t>(sample.kv_head) * head_elements;
        k_head = copy_to_host(context, 0, k_ + offset, head_elements);
        v_head = copy_to_host(context, 0, v_ + offset, head_elements);
        loaded_head = sample.kv_head;
      }
      const std::size_t row_offset = static_cast<std::size_t>(sample.q_row) * head_dim_;
      const std::vector<float> q_row = copy_to_host(context, 0, q_ + row_offset, head_dim_);
      const std::vector<float> o_row = copy_to_host(context, 0, o_ + row_offset, head_dim_);
      const std::size_t query = static_cast<std::size_t>(sample.q_row % seq_len_);
      const std::size_t keys = causal_ ? query + 1 : static_cast<std::size_t>(seq_len_);
      reference_attention_row(q_row.data(), k_head.data(), v_head.data(), keys, head_dim_, scale, row_out.data());
      got.insert(got.end(), o_row.begin(), o_row.end());
      expected.insert(expected.end(), row_out.begin(), row_out.end());
    }
    // Inputs are exact in both; the kernel's errors: scores in fp32 (relative ~1e-6), P rounded to fp16 before
    // P V (relative 2^-11 per weight, independent, so the row's error averages down), fp32 accumulation over
    // seq_len terms, and the fp16 output (2^-11 relative, at most ~2.5e-4 of the largest value). Expected error
    // below ~5e-4 of the largest reference value; 5e-3 leaves a 10x margin and still fails on any real bug
    // (a wrong head, block, mask or rescale changes outputs by their own magnitude).
    CheckResult result = compare_relative(got, expected, 5e-3, "O");
    result.detail = std::to_string(count) + " sampled rows (all head_dim values; one per stratum of " +
                    std::to_string(stratum) + " rows) vs double softmax(QK^T/sqrt(d))V; " + result.detail;
    return result;
  }

  void derive_metrics(const Context& /*context*/, const Timing& timing, nlohmann::json& metrics) const override {
    // Tessera's count: 4 * block_m * block_n * head_dim per streamed KV block (diagonal blocks whole when causal).
    double kv_blocks = 0;
    const int q_blocks = seq_len_ / kBlockM;
    for (int m = 0; m < q_blocks; ++m) {
      kv_blocks += causal_ ? ((m + 1) * kBlockM + kBlockN - 1) / kBlockN : seq_len_ / kBlockN;
    }
    const double flops = 4.0 * kBlockM * kBlockN * head_dim_ * kv_blocks * batch_ * q_heads_;
    metrics["counted_flops"] = flops;
    metrics["workgroups"] = workgroups_;
    metrics["shared_memory_bytes"] = head_dim_ == 64 ? AttentionShared<64>::kBytes : AttentionShared<128>::kBytes;
    metrics["throughput_TFLOPs_median"] = flops / timing.median_ns * 1e-3;
    metrics["throughput_TFLOPs_mean"] = flops / timing.mean_ns * 1e-3;
    metrics["time_median_ns"] = timing.median_ns;
  }

 private:
  int batch_, q_heads_, kv_heads_, seq_len_, head_dim_, causal_, dies_;
  AttentionMapping mapping_ = AttentionMapping::naive_head_first;
  int workgroups_ = 0;
  std::size_t q_elements_ = 0, kv_elements_ = 0;
  __half* q_ = nullptr;
  __half* k_ = nullptr;
  __half* v_ = nullptr;
  __half* o_ = nullptr;
};


// attention_step (microbenchmark, 1 rank): the achieved matrix rate of the attention kernel's KV step (load K tile
// into shared memory, S = Q K^T, online softmax through shared memory, V tile, O = O * rescale + P V, with every
// barrier) on one KV block held in registers, so that no global memory traffic is timed: the attention pattern's
// inner loop at its occupancy (workgroups 0: as many as the GPU holds at once, which is what the pattern's grid of
// thousands of workgroups keeps resident). What it calibrates: Tessera's per-kernel matrix efficiency of the
// `attention` kernel (gpu.compute.kernel_efficiency.attention); it is never run as a Tessera workload.
//
// Check: every KV block is the same (K0, V0), so the online softmax over `iterations` copies of block 0 gives
// exactly the attention of Q over the 64 keys of block 0: each workgroup's O block must equal the double reference
// softmax(Q K0^T / sqrt(d)) V0, all rows, all workgroups.
constexpr int kStepHeadDim = 128;

class AttentionStep final : public Case {
 public:
  explicit AttentionStep(const Params& params)
      : iterations_(static_cast<int>(params.integer("iterations"))),
        workgroups_(static_cast<int>(params.integer("workgroups"))) {
    if (params.integer("iterations") < 1 || params.integer("iterations") > (1 << 20) / kBlockN) {
      throw std::invalid_argument("iterations: 1 to 16384 KV blocks per workgroup");
    }
    if (params.integer("workgroups") < 0 || params.integer("workgroups") > (1 << 16)) {
      throw std::invalid_argument("workgroups: 0 to 65536");
    }
  }

  void setup(Context& context) override {
    context.use(0);
    enable_attention_shared_memory<kStepHeadDim, true>();
    int per_cu = 0;
    HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_cu, flash_attention_forward_kernel<kStepHeadDim, true>, kThreads, AttentionShared<kStepHeadDim>::kBytes));
    hipDeviceProp_t props{};
    HIP_CHECK(hipGetDeviceProperties(&props, context.device(0)));
    resident_ = per_cu * props.multiProcessorCount;
    if (workgroups_ == 0) workgroups_ = resident_;
    q_ = context.allocate<__half>(0, static_cast<std::size_t>(kBlockM) * kStepHeadDim);
    k_ = context.allocate<__half>(0, static_cast<std::size_t>(kBlockN) * kStepHeadDim);
    v_ = context.allocate<__half>(0, static_cast<std::size_t>(kBlockN) * kStepHeadDim);
    o_ = context.allocate<__half>(0, out_count());
    fill_uniform(context, 0, q_, static_cast<std::size_t>(kBlockM) * kStepHeadDim, context.seed() * 4 + 1, -kQRange, kQRange);
    fill_uniform(context, 0, k_, static_cast<std::size_t>(kBlockN) * kStepHeadDim, context.seed() * 4 + 2, -1.0f, 1.0f);
    fill_uniform(context, 0, v_, static_cast<std::size_t>(kBlockN) * kStepHeadDim, context.seed() * 4 + 3, -1.0f, 1.0f);
  }

  void poison_outputs(Context& context) override { poison(context, 0, o_, out_count() * sizeof(__half)); }

  void enqueue(Context& context, int /*rank*/) override {
    const float scale_log2 = static_cast<float>(1.4426950408889634 / std::sqrt(static_cast<double>(kStepHeadDim)));
    hipLaunchKernelGGL((flash_attention_forward_kernel<kStepHeadDim, true>), dim3(workgroups_), dim3(kThreads),
                       AttentionShared<kStepHeadDim>::kBytes, context.stream(0), q_, k_, v_, o_, 1, 1, 1,
                       iterations_ * kBlockN, 1, AttentionMapping::naive_head_first, 0, scale_log2);
  }

  CheckResult check(Context& context) override {
    const std::vector<float> q = copy_to_host(context, 0, q_, static_cast<std::size_t>(kBlockM) * kStepHeadDim);
    const std::vector<float> k = copy_to_host(context, 0, k_, static_cast<std::size_t>(kBlockN) * kStepHeadDim);
    const std::vector<float> v = copy_to_host(context, 0, v_, static_cast<std::size_t>(kBlockN) * kStepHeadDim);
    std::vector<double> block(static_cast<std::size_t>(kBlockM) * kStepHeadDim);
    const double scale = 1.0 / std::sqrt(static_cast<double>(kStepHeadDim));
    for (int row = 0; row < kBlockM; ++row) {
      reference_attention_row(q.data() + static_cast<std::size_t>(row) * kStepHeadDim, k.data(), v.data(), kBlockN,
                              kStepHeadDim, scale, block.data() + static_cast<std::size_t>(row) * kStepHeadDim);
    }
    std::vector<double> expected;
    expected.reserve(out_count());
    for (int w = 0; w < workgroups_; ++w) expected.insert(expected.end(), block.begin(), block.end());
    // As the attention check (5e-3 of the largest value); here the fp32 sums run over iterations x 64 equal terms.
    CheckResult result = compare_relative(copy_to_host(context, 0, o_, out_count()), expected, 5e-3, "O");
    result.detail = "every workgroup's O block (all rows) vs double softmax(Q K0^T/sqrt(d)) V0 (iterations copies of "
                    "KV block 0 = the attention over block 0); " + result.detail;
    return result;
  }

  void derive_metrics(const Context& /*context*/, const Timing& timing, nlohmann::json& metrics) const override {
    // Tessera's count: 4 * block_m * block_n * head_dim per KV block (S = Q K^T and P V).
    const double flops = 4.0 * kBlockM * kBlockN * kStepHeadDim * static_cast<double>(iterations_) * workgroups_;
    metrics["counted_flops"] = flops;
    metrics["matrix_TFLOPs_median"] = flops / timing.median_ns / 1e3;
    metrics["matrix_TFLOPs_mean"] = flops / timing.mean_ns / 1e3;
    metrics["workgroups"] = workgroups_;
    metrics["resident_workgroups"] = resident_;
    metrics["shared_memory_bytes"] = AttentionShared<kStepHeadDim>::kBytes;
  }

 private:
  std::size_t out_count() const { return static_cast<std::size_t>(workgroups_) * kBlockM * kStepHeadDim; }

  int iterations_;
  int workgroups_;
  int resident_ = 0;
  __half* q_ = nullptr;
  __half* k_ = nullptr;
  __half* v_ = nullptr;
  __half* o_ = nullptr;
};

}  // namespace

CaseInfo attention_case() {
  CaseInfo info;
  info.name = "attention";
  info.kind = "pattern";
  info.description =
      "Flash-Attention-2 forward, fp16, one workgroup per 128-row Q block streaming its head's K and V in 64-row "
      "blocks on the matrix units; Tessera's four workgroup mappings";
  info.params = {
      {"batch", ParamType::integer, "1", "sequences"},
      {"q_heads", ParamType::integer, "32", "query heads"},
      {"kv_heads", ParamType::integer, "32", "key/value heads; divides q_heads (q head h reads KV head h / group)"},
      {"seq_len", ParamType::integer, "8192", "tokens of Q and of K/V; a multiple of 128"},
      {"head_dim", ParamType::integer, "128", "elements per head row: 64 or 128"},
      {"causal", ParamType::integer, "0", "1: each Q block streams only the KV blocks up to its diagonal (masked)"},
      {"mapping", ParamType::text, "naive_head_first",
       "workgroup id -> (batch, head, Q block): naive_block_first, swizzled_block_first, naive_head_first, "
       "swizzled_head_first (Tessera attention_mapping)"},
      {"dies", ParamType::integer, "2",
       "D of the swizzle (wg % D) * (G / D) + wg / D: Tessera's num_dies of the compared system (2: h100-*, h200-*; "
       "8: mi300x-*)"}};
  info.make = [](const Params& params, int) { return std::make_unique<FlashAttentionForward>(params); };
  info.tessera_workload = [](const Params& params, int ranks) {
    return nlohmann::json{{"kind", "attention"},
                          {"batch", params.integer("batch")},
                          {"q_heads", params.integer("q_heads")},
                          {"kv_heads", params.integer("kv_heads")},
                          {"seq_len", params.integer("seq_len")},
                          {"head_dim", params.integer("head_dim")},
                          {"block_m", kBlockM},
                          {"block_n", kBlockN},
                          {"dtype", "fp16"},
                          {"causal", params.integer("causal") != 0},
                          {"mapping", params.text("mapping")},
                          {"ranks", ranks}};
  };
  return info;
}

}  // namespace tk

namespace tk {

CaseInfo attention_step_case() {
  CaseInfo info;
  info.name = "attention_step";
  info.kind = "microbenchmark";
  info.description =
      "achieved fp16 matrix rate of the attention kernel's KV step (Q K^T, online softmax, P V; 128 x 64 blocks, "
      "head_dim 128) on one KV block held in registers: no global memory traffic";
  info.params = {
      {"iterations", ParamType::integer, "2048", "KV blocks per workgroup (at most 16384)"},
      {"workgroups", ParamType::integer, "0", "grid; 0: as many as the GPU holds at once (the pattern's occupancy)"},
  };
  info.make = [](const Params& params, int) { return std::make_unique<AttentionStep>(params); };
  info.tessera_workload = [](const Params& /*params*/, int) {
    return nlohmann::json{
        {"kind", "attention_step"},
        {"calibrates", "gpu.compute.kernel_efficiency.attention"},
        {"note", "not a Tessera workload: the KV step of the attention kernel (block_m 128, block_n 64, head_dim 128, "
                 "fp16, fp32 accumulation) on one resident KV block, repeated; efficiency = achieved / peak FLOP/s"},
        {"dtype", "fp16"},
        {"kernel", "attention"},
        {"block_m", kBlockM},
        {"block_n", kBlockN},
        {"head_dim", kStepHeadDim}};
  };
  return info;
}

}  // namespace tk

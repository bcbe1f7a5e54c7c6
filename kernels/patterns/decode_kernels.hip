// The kernels of one transformer decode step; decode_kernels.h describes the operators, their tasks and buffers.
//
// Every task is one workgroup of kDecodeThreads threads running a device function of this file. kernel_per_op
// launches op_kernel<op> with one workgroup per task; the persistent decode_megakernel runs the same functions in a
// loop over layers, operators and its share of each operator's tasks, waiting for producers and publishing each task
// through per-operator counters (decode_schedule.h's protocol).
#include "patterns/decode_kernels.h"

#include <algorithm>
#include <initializer_list>
#include <stdexcept>

#include "harness/hip_check.h"
#include "port/matrix_unit.h"

namespace tk {

namespace {

constexpr int kThreads = kDecodeThreads;
constexpr int kWaves = kThreads / kWaveSize;
constexpr int kTile = mma::kTile;

// Bytes each workgroup keeps in flight while streaming from HBM. A linear task loads a piece of its weight tile and
// the same K range of its input rows (kPieceVectors 16-byte loads per thread, all issued together) while it
// multiplies the piece before; an attention task does the same with a stage of K and V tokens. One SM's share of
// the H200's 4.8 TB/s at ~1 us of loaded latency is ~36 KB in flight: NVIDIA takes up to 96 KiB a piece (64 KiB of
// weights at batch 1, about Tessera's default weight_piece) and 48 KiB of K and V (what an attention task's
// registers hold besides its softmax without spilling). On AMD a piece and its shared-memory stage must fit the
// 64 KiB of LDS: 48 KiB, and 32 KiB of K and V.
#if defined(TK_PLATFORM_NVIDIA)
constexpr int kPieceVectors = 24;
constexpr int kKvStageHalves = 24576;
#else
constexpr int kPieceVectors = 6;
constexpr int kKvStageHalves = 16384;
#endif
constexpr int kPieceHalves = kThreads * kPieceVectors * 8;
constexpr int kScratchLd = kTile + 4;  // floats: a wave's 16 x 16 partial sums (wmma's fp32 leading-dimension rule)
constexpr int kOutputsPerThread = kDecodeBlockM * 128 / kThreads;  // a tile's outputs (block_n <= 128) per thread
static_assert(kPieceHalves >= (128 + kDecodeBlockM) * kTile, "a piece holds a 16-wide K step of the widest tile");
static_assert(kWaves == 8, "the waves split evenly over the 16-column slices of a 128-wide tile");

__host__ __device__ constexpr int round_up(int value, int multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

__host__ __device__ constexpr bool is_linear(DecodeOp op) {
  return op == DecodeOp::qkv_proj || op == DecodeOp::o_proj || op == DecodeOp::gate_up || op == DecodeOp::down;
}

__device__ inline uint4 load_vector(const __half* source) { return *reinterpret_cast<const uint4*>(source); }
__device__ inline void store_vector(__half* target, const uint4& value) { *reinterpret_cast<uint4*>(target) = value; }

__device__ inline void unpack(const uint4& vector, float (&out)[8]) {
  const __half2* pairs = reinterpret_cast<const __half2*>(&vector);
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const float2 pair = __half22float2(pairs[j]);
    out[2 * j] = pair.x;
    out[2 * j + 1] = pair.y;
  }
}

__device__ inline uint4 pack(const float (&in)[8]) {
  uint4 vector;
  __half2* pairs = reinterpret_cast<__half2*>(&vector);
#pragma unroll
  for (int j = 0; j < 4; ++j) pairs[j] = __floats2half2_rn(in[2 * j], in[2 * j + 1]);
  return vector;
}

// A task function of the megakernel. On NVIDIA each is compiled on its own: one register allocation over every
// operator inlined into the megakernel spilled inside the linear and attention loops (nvcc 13, sm_90), while the
// calls cost a few saved registers per task. AMD's compiler allocates the inlined megakernel without spills, and its
// calls would save registers to scratch memory at every task.
#if defined(TK_PLATFORM_NVIDIA)
#define TK_DECODE_TASK __noinline__
#else
#define TK_DECODE_TASK
#endif

// The sum of `value` over the workgroup: a tree in shared memory (the suite maps no warp shuffles).
__device__ float block_sum(float value, float* scratch) {
  const int tid = static_cast<int>(threadIdx.x);
  scratch[tid] = value;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (tid < stride) scratch[tid] += scratch[tid + stride];
    __syncthreads();
  }
  const float total = scratch[0];
  __syncthreads();  // the scratch is free for the next sum
  return total;
}

// ---- element-wise operators -------------------------------------------------------------------------------------

// The element-wise operators are row functions of pointers and sizes (TK_DECODE_TASK, like the linear and attention
// tasks); their callers below only find the rows.

__device__ TK_DECODE_TASK void copy_row(const __half* source, __half* target, int size) {
  for (int v = static_cast<int>(threadIdx.x); v < size / 8; v += kThreads) {
    store_vector(target + v * 8, load_vector(source + v * 8));
  }
}

// out = x * rsqrt(mean(x^2) + eps) * weight, in fp32: one pass for the sum of squares, a second that reads the row
// again (from this SM's L1) and stores it normed.
__device__ TK_DECODE_TASK void rms_norm_row(const __half* x, const __half* weight, __half* out, int size,
                                            float* scratch) {
  float squares = 0.0f;
  for (int v = static_cast<int>(threadIdx.x); v < size / 8; v += kThreads) {
    float values[8];
    unpack(load_vector(x + v * 8), values);
#pragma unroll
    for (int j = 0; j < 8; ++j) squares += values[j] * values[j];
  }
  const float scale = rsqrtf(block_sum(squares, scratch) / static_cast<float>(size) + kDecodeRmsEps);
  for (int v = static_cast<int>(threadIdx.x); v < size / 8; v += kThreads) {
    float values[8], weights[8];
    unpack(load_vector(x + v * 8), values);
    unpack(load_vector(weight + v * 8), weights);
#pragma unroll
    for (int j = 0; j < 8; ++j) values[j] = values[j] * scale * weights[j];
    store_vector(out + v * 8, pack(values));
  }
}

// One head of `dim` values at x: with a weight, the RMSNorm over the head (Qwen3's q/k norm); then the rotary
// embedding at `position` on the pairs (i, i + dim/2) (rotate-half, as Qwen3 and Llama apply it); into out.
__device__ TK_DECODE_TASK void norm_rope_head(const __half* x, const __half* weight, int dim, int position, __half* out,
                                              float* scratch) {
  const int tid = static_cast<int>(threadIdx.x);
  const int half_dim = dim / 2;
  float first = 0.0f, second = 0.0f;
  if (tid < half_dim) {
    first = __half2float(x[tid]);
    second = __half2float(x[tid + half_dim]);
  }
  if (weight != nullptr) {
    const float scale =
        rsqrtf(block_sum(first * first + second * second, scratch) / static_cast<float>(dim) + kDecodeRmsEps);
    if (tid < half_dim) {
      first = first * scale * __half2float(weight[tid]);
      second = second * scale * __half2float(weight[tid + half_dim]);
    }
  }
  if (tid < half_dim) {
    // The angle in double: position * theta^(-2i/dim) runs to thousands of radians, where fp32 keeps only ~1e-4.
    const double angle = position * pow(kDecodeRopeTheta, -2.0 * tid / dim);
    const float c = static_cast<float>(cos(angle));
    const float s = static_cast<float>(sin(angle));
    out[tid] = __float2half(first * c - second * s);
    out[tid + half_dim] = __float2half(second * c + first * s);
  }
}

// out = silu(gate) * up over `size` values, up = gate + size.
__device__ TK_DECODE_TASK void act_row(const __half* gate, __half* out, int size) {
  const __half* up = gate + size;
  for (int v = static_cast<int>(threadIdx.x); v < size / 8; v += kThreads) {
    float g[8], u[8];
    unpack(load_vector(gate + v * 8), g);
    unpack(load_vector(up + v * 8), u);
#pragma unroll
    for (int j = 0; j < 8; ++j) g[j] = g[j] / (1.0f + expf(-g[j])) * u[j];
    store_vector(out + v * 8, pack(g));
  }
}

// Thread c merges value c of a head's `splits` records (dim values, then the log-sum-exp) with the weights
// exp(lse_s - max).
__device__ TK_DECODE_TASK void combine_head(const __half* records, int splits, int dim, __half* out) {
  const int column = static_cast<int>(threadIdx.x);
  if (column >= dim) return;
  const int record = dim + 1;
  float max_lse = -INFINITY, sum = 0.0f, acc = 0.0f;
  for (int s = 0; s < splits; ++s) {
    const float lse = __half2float(records[s * record + dim]);
    const float value = __half2float(records[s * record + column]);
    const float new_max = fmaxf(max_lse, lse);
    const float old_scale = expf(max_lse - new_max);
    const float weight = expf(lse - new_max);
    acc = acc * old_scale + weight * value;
    sum = sum * old_scale + weight;
    max_lse = new_max;
  }
  out[column] = __float2half(acc / sum);
}

__device__ inline std::size_t qkv_width(const DecodeArgs& a) {
  return static_cast<std::size_t>(a.heads + 2 * a.kv_heads) * a.head_dim;
}

// Sequence b's token is row b of the table (Tessera reads row b: any row, the bytes are what count).
__device__ void embedding_task(const DecodeArgs& a, int b) {
  const std::size_t row = static_cast<std::size_t>(b) * a.hidden_size;
  copy_row(a.embedding + row, a.hidden + row, a.hidden_size);
}

// xn[b] = RMSNorm(hidden[b]) with norms[layer][which].
__device__ void rms_norm_task(const DecodeArgs& a, int layer, int b, int which, float* scratch) {
  const std::size_t row = static_cast<std::size_t>(b) * a.hidden_size;
  rms_norm_row(a.hidden + row, a.norms + (static_cast<std::size_t>(layer) * 2 + which) * a.hidden_size, a.xn + row,
               a.hidden_size, scratch);
}

// Task b + B * head; the new token sits at position `context` (the cached tokens are 0 .. context - 1).
__device__ void rope_q_task(const DecodeArgs& a, int layer, int task, float* scratch) {
  const int b = task % a.batch;
  const int head = task / a.batch;
  const int dim = a.head_dim;
  const __half* weight = a.qk_norm ? a.qk_norms + static_cast<std::size_t>(layer) * 2 * dim : nullptr;
  norm_rope_head(a.qkv + b * qkv_width(a) + static_cast<std::size_t>(head) * dim, weight, dim, a.context,
                 a.q + (static_cast<std::size_t>(b) * a.heads + head) * dim, scratch);
}

// Task b + B * kv_head: the new token's key (normed, rotated) and value, into this layer's k_new and v_new.
__device__ void kv_write_task(const DecodeArgs& a, int layer, int task, float* scratch) {
  const int b = task % a.batch;
  const int kv_head = task / a.batch;
  const int dim = a.head_dim;
  const __half* k = a.qkv + b * qkv_width(a) + static_cast<std::size_t>(a.heads + kv_head) * dim;
  const __half* v = k + static_cast<std::size_t>(a.kv_heads) * dim;
  const std::size_t slot =
      (static_cast<std::size_t>(layer) * a.batch + b) * a.kv_heads * dim + static_cast<std::size_t>(kv_head) * dim;
  const __half* weight = a.qk_norm ? a.qk_norms + (static_cast<std::size_t>(layer) * 2 + 1) * dim : nullptr;
  norm_rope_head(k, weight, dim, a.context, a.k_new + slot, scratch);
  for (int c = static_cast<int>(threadIdx.x); c < dim; c += kThreads) a.v_new[slot + c] = v[c];
}

// act[b] = silu(gate) * up, gate = gate_up[b][0, I), up = gate_up[b][I, 2I).
__device__ void act_task(const DecodeArgs& a, int b) {
  act_row(a.gate_up + static_cast<std::size_t>(b) * 2 * a.intermediate,
          a.act + static_cast<std::size_t>(b) * a.intermediate, a.intermediate);
}

// Task b + B * head: the head's split records into attn_out[b][head].
__device__ void combine_task(const DecodeArgs& a, int task) {
  const int b = task % a.batch;
  const int head = task / a.batch;
  const std::size_t at = static_cast<std::size_t>(b) * a.heads + head;
  combine_head(a.partials + at * a.splits * (a.head_dim + 1), a.splits, a.head_dim, a.attn_out + at * a.head_dim);
}

// ---- linear -----------------------------------------------------------------------------------------------------
//
// Task (m, n) of C = X . W^T: X's rows [16 m, 16 m + rows) (rows = the batch's sequences left, at most 16), W's rows
// [block_n n, block_n (n + 1)) (the tile, block_n x K, contiguous). The tile streams in pieces of ks columns of K,
// each with the same K range of X's rows, as wide as kPieceVectors loads per thread allow (the fewer the rows, the
// more of the piece is weights): the next piece's loads are issued into registers, then the current piece (in
// shared memory) is multiplied. The waves split the piece: wave w takes the tile's 16-column slice w mod
// (block_n / 16) and every (waves / slices)-th 16-wide K step, accumulating one 16 x 16 fp32 tile on the matrix
// units; at the end the waves' partial tiles are summed through shared memory.
//
// X's block is stored without padding rows, as [K step][row][16 halves]: the matrix unit's A tile of step s starts
// at s * rows * 16 with rows 16 halves apart, so its rows past `rows` read the next step's rows (or, past the last
// step, (16 - rows) * 16 halves of slack): garbage in the output rows past the batch, which are never stored. That
// keeps padding rows out of the loads, the registers and shared memory (at batch 1, 15/16 of the block).

// What a linear task reads and writes, by value: a reference into the kernel's arguments, passed to a function
// compiled on its own (TK_DECODE_TASK), would copy the whole argument block to local memory.
struct LinearJob {
  const __half* input;
  const __half* weight;  // this layer's [n][k]
  __half* output;
  int n, k, block_n, residual, batch, tiles_m;
};

struct LinearLayout {
  int ks;     // K columns per piece: 16 times a power of two; the last piece may be narrower
  int shift;  // log2(ks / 8): a piece row's 16-byte vectors, so that a vector's row and column are a shift and a mask
  int pieces;
  int ld_w;          // halves per weight row in shared memory (16 bytes of padding: rows 4 banks apart)
  int input_offset;  // bytes: X's block after the weight piece (whose memory the partial tiles reuse at the end)
  int bytes;
};

// The widest piece of 16 x 2^j columns that kPieceVectors loads per thread hold. A power of two keeps the per-vector
// index arithmetic to shifts and masks: with a division by a run-time width per vector, the H200 profile showed 119
// instructions issued per 512 bytes loaded and the linears streaming at 9% of the HBM rate (issue-bound at one
// workgroup per SM).
__host__ __device__ inline LinearLayout linear_layout(int block_n, int rows, int k) {
  LinearLayout layout{};
  layout.ks = kTile;
  while (2 * layout.ks * (block_n + rows) <= kPieceHalves && layout.ks < k) layout.ks *= 2;
  layout.shift = 1;  // ks / 8 >= 2
  while ((1 << layout.shift) < layout.ks / 8) ++layout.shift;
  layout.pieces = (k + layout.ks - 1) / layout.ks;
  layout.ld_w = layout.ks + 8;
  const int weight_bytes = block_n * layout.ld_w * 2;
  const int partial_bytes = kWaves * kTile * kScratchLd * 4;
  layout.input_offset = round_up(weight_bytes > partial_bytes ? weight_bytes : partial_bytes, 128);
  layout.bytes = layout.input_offset + (rows * layout.ks + (kTile - rows) * kTile) * 2;
  return layout;
}

// Vector v = tid + i * kThreads of a piece: below block_n * ks / 8, weight row v / (ks / 8), halves 8 (v mod ks/8)
// of the piece; then X's vectors, u = v - block_n * ks / 8 the u-th 16 bytes of the [step][row][16] block:
// u = (step * rows + row) * 2 + half. Past K (the last piece): zeros, never multiplied.
__device__ inline void fetch_piece(const LinearJob& job, const __half* weight_tile, const __half* input_rows, int rows,
                                   const LinearLayout& layout, int piece, uint4 (&staged)[kPieceVectors]) {
  const int tid = static_cast<int>(threadIdx.x);
  const int k0 = piece * layout.ks;
  const int row_vectors = layout.ks / 8;
  const int weight_vectors = job.block_n * row_vectors;
  const int vectors = weight_vectors + rows * row_vectors;
#pragma unroll
  for (int i = 0; i < kPieceVectors; ++i) {
    const int v = tid + i * kThreads;
    if (v >= vectors) continue;
    staged[i] = make_uint4(0u, 0u, 0u, 0u);
    if (v < weight_vectors) {
      const int column = k0 + (v & (row_vectors - 1)) * 8;
      if (column < job.k)
        staged[i] = load_vector(weight_tile + static_cast<std::size_t>(v >> layout.shift) * job.k + column);
    } else {
      const int u = v - weight_vectors;
      const int column = k0 + u / (2 * rows) * kTile + (u % 2) * 8;
      if (column < job.k) staged[i] = load_vector(input_rows + static_cast<std::size_t>(u / 2 % rows) * job.k + column);
    }
  }
}

__device__ TK_DECODE_TASK void linear_task(LinearJob job, int task, unsigned char* shared) {
  const int tid = static_cast<int>(threadIdx.x);
  const int wave = tid / kWaveSize;
  const int m = task % job.tiles_m;
  const int n = task / job.tiles_m;
  const int rows = min(kDecodeBlockM, job.batch - m * kDecodeBlockM);
  const int block_n = job.block_n;
  const LinearLayout layout = linear_layout(block_n, rows, job.k);
  __half* weight_stage = reinterpret_cast<__half*>(shared);
  __half* input_stage = reinterpret_cast<__half*>(shared + layout.input_offset);
  const __half* weight_tile = job.weight + static_cast<std::size_t>(n) * block_n * job.k;
  const __half* input_rows = job.input + static_cast<std::size_t>(m) * kDecodeBlockM * job.k;
  __half* output_rows =
      job.output + static_cast<std::size_t>(m) * kDecodeBlockM * job.n + static_cast<std::size_t>(n) * block_n;
  const int slices = block_n / kTile;
  const int phases = kWaves / slices;
  const int slice = wave % slices;
  const int phase = wave / slices;
  const int outputs = rows * block_n;

  // The residual's rows are loaded with the first piece (hidden += C in the epilogue); 0 without one.
  float sums[kOutputsPerThread];
#pragma unroll
  for (int i = 0; i < kOutputsPerThread; ++i) {
    const int o = tid + i * kThreads;
    sums[i] = job.residual && o < outputs
                  ? __half2float(output_rows[static_cast<std::size_t>(o / block_n) * job.n + o % block_n])
                  : 0.0f;
  }

  uint4 staged[kPieceVectors];
  fetch_piece(job, weight_tile, input_rows, rows, layout, 0, staged);
  mma::Accumulator acc;
  mma::zero(acc);
  const int row_vectors = layout.ks / 8;
  const int weight_vectors = block_n * row_vectors;
  const int vectors = weight_vectors + rows * row_vectors;
  for (int piece = 0; piece < layout.pieces; ++piece) {
    __syncthreads();  // the previous piece is no longer read
#pragma unroll
    for (int i = 0; i < kPieceVectors; ++i) {
      const int v = tid + i * kThreads;
      if (v < weight_vectors) {
        store_vector(weight_stage + (v >> layout.shift) * layout.ld_w + (v & (row_vectors - 1)) * 8, staged[i]);
      } else if (v < vectors) {
        store_vector(input_stage + (v - weight_vectors) * 8, staged[i]);
      }
    }
    if (piece + 1 < layout.pieces) fetch_piece(job, weight_tile, input_rows, rows, layout, piece + 1, staged);
    __syncthreads();  // the piece is in shared memory
    const int steps = min(layout.ks, job.k - piece * layout.ks) / kTile;
    for (int step = phase; step < steps; step += phases) {
      mma::FragmentA x;
      mma::FragmentB<mma::ColMajor> w;  // W^T's 16 x 16 block: column j is tile row 16 slice + j
      mma::load_a(x, input_stage + step * rows * kTile, kTile);
      mma::load_b(w, weight_stage + slice * kTile * layout.ld_w + step * kTile, layout.ld_w);
      mma::multiply_add(acc, x, w);
    }
  }

  __syncthreads();  // every wave is done with the pieces: their memory takes the partial tiles
  float* partial = reinterpret_cast<float*>(shared);
  mma::store(partial + wave * kTile * kScratchLd, kScratchLd, acc);
  __syncthreads();
#pragma unroll
  for (int i = 0; i < kOutputsPerThread; ++i) {
    const int o = tid + i * kThreads;
    if (o >= outputs) continue;
    const int row = o / block_n;
    const int column = o % block_n;
    float sum = sums[i];
    for (int p = 0; p < phases; ++p) {
      sum += partial[((column / kTile + p * slices) * kTile + row) * kScratchLd + column % kTile];
    }
    output_rows[static_cast<std::size_t>(row) * job.n + column] = __float2half(sum);
  }
}

__device__ inline LinearJob linear_job(const DecodeArgs& a, DecodeLinear op, int layer) {
  return LinearJob{op.input,    op.weight + static_cast<std::size_t>(layer) * op.n * op.k,
                   op.output,   op.n,
                   op.k,        op.block_n,
                   op.residual, a.batch,
                   a.tiles_m};
}

// ---- attention --------------------------------------------------------------------------------------------------
//
// Task (b, kv_head, split): the group's query heads (rows of a 16-row matrix tile, zero rows below them: computed,
// never stored) against the split's cached tokens and, in the last split, the new token (one more token after
// them, from k_new / v_new). Per stage of kTokens tokens: the next stage's K and V are loaded into registers, then
// S = Q K^T (16 x kTokens) on the matrix units, the online softmax on the rows (scores scaled by 1/sqrt(D), in
// log2 units), P (fp16) and O = O * rescale + P V (16 x D, fp32 in registers). Tokens past the task's end are zero
// K and V with score -inf. The output per query head: O / sum and lse = ln(sum of exp(score)) as a partial record,
// or O / sum into attn_out with one split (as flash_decode's split_kv, with Tessera's decode tasks).

template <int D>
struct AttentionLayout {
  static constexpr int kTokens = kKvStageHalves / (2 * D);
  static constexpr int kLd = D + 8;  // halves: Q, K and V rows 16 bytes apart in the banks
  static constexpr int kScoreLd = kTokens + 4;
  static constexpr int kProbLd = kTokens + 8;
  static constexpr int kOutLd = D + 4;
  static constexpr int kQOffset = 0;
  static constexpr int kKOffset = kQOffset + kTile * kLd * 2;
  static constexpr int kVOffset = kKOffset + kTokens * kLd * 2;
  static constexpr int kScoreOffset = kVOffset + kTokens * kLd * 2;
  static constexpr int kProbOffset = kScoreOffset + kTile * kScoreLd * 4;
  static constexpr int kProductOffset = kProbOffset + kTile * kProbLd * 2;
  static constexpr int kPartialOffset = kProductOffset + kTile * kOutLd * 4;  // one float per thread
  static constexpr int kRowScaleOffset = kPartialOffset + kThreads * 4;       // one float per row
  static constexpr int kLseOffset = kRowScaleOffset + kTile * 4;              // one float per row
  static constexpr int kBytes = kLseOffset + kTile * 4;
  static constexpr int kChunksPerRow = D / 8;
  static constexpr int kVectors = kTokens * kChunksPerRow / kThreads;  // K (and V) vectors per thread per stage
  static constexpr int kThreadsPerRow = kThreads / kTile;              // softmax threads per query row
  static constexpr int kColumns = kTokens / kThreadsPerRow;
  static constexpr int kOutRowStep = kThreads / D;  // O: thread t owns column t mod D, rows t / D + step * i
  static constexpr int kOutRows = kTile / kOutRowStep;
  static_assert(kVectors * kThreads == kTokens * kChunksPerRow, "a stage splits evenly over the threads");
  static_assert(kTokens % kThreadsPerRow == 0 && kThreads % D == 0, "softmax and O split evenly");
  static_assert(kKOffset % 32 == 0 && kVOffset % 32 == 0 && kScoreOffset % 32 == 0 && kProbOffset % 32 == 0 &&
                    kProductOffset % 32 == 0,
                "matrix-unit tiles stay 32-byte aligned");
};

// What an attention task reads and writes, by value as LinearJob.
struct AttentionJob {
  const __half* q;
  const __half* k_cache;
  const __half* v_cache;
  const __half* k_new;
  const __half* v_new;
  __half* attn_out;
  __half* partials;
  int batch, heads, kv_heads, context, partition, splits;
};

template <int D>
__device__ TK_DECODE_TASK void attention_task(AttentionJob job, int layer, int task, unsigned char* shared) {
  using L = AttentionLayout<D>;
  __half* q_tile = reinterpret_cast<__half*>(shared + L::kQOffset);
  __half* k_tile = reinterpret_cast<__half*>(shared + L::kKOffset);
  __half* v_tile = reinterpret_cast<__half*>(shared + L::kVOffset);
  float* scores_tile = reinterpret_cast<float*>(shared + L::kScoreOffset);
  __half* probs_tile = reinterpret_cast<__half*>(shared + L::kProbOffset);
  float* pv_tile = reinterpret_cast<float*>(shared + L::kProductOffset);
  float* partial = reinterpret_cast<float*>(shared + L::kPartialOffset);
  float* row_scale = reinterpret_cast<float*>(shared + L::kRowScaleOffset);
  float* row_lse = reinterpret_cast<float*>(shared + L::kLseOffset);

  const int tid = static_cast<int>(threadIdx.x);
  const int wave = tid / kWaveSize;
  const int b = task % job.batch;
  const int kv_head = task / job.batch % job.kv_heads;
  const int split = task / (job.batch * job.kv_heads);
  const int group = job.heads / job.kv_heads;
  const int first_token = split * job.partition;
  const int cached = min(job.partition, job.context - first_token);
  const bool last = split == job.splits - 1;
  const int tokens = cached + (last ? 1 : 0);
  const int stages = (tokens + L::kTokens - 1) / L::kTokens;
  const std::size_t first_row =
      ((static_cast<std::size_t>(layer) * job.batch + b) * job.kv_heads + kv_head) * job.context + first_token;
  const __half* k_rows = job.k_cache + first_row * D;
  const __half* v_rows = job.v_cache + first_row * D;
  const std::size_t new_slot =
      (static_cast<std::size_t>(layer) * job.batch + b) * job.kv_heads * D + static_cast<std::size_t>(kv_head) * D;
  const float scale_log2 = 1.4426950408889634f * rsqrtf(static_cast<float>(D));

  uint4 k_next[L::kVectors];
  uint4 v_next[L::kVectors];
  auto fetch = [&](int stage) {
#pragma unroll
    for (int i = 0; i < L::kVectors; ++i) {
      const int vector = tid + i * kThreads;
      const int token = stage * L::kTokens + vector / L::kChunksPerRow;
      const int column = (vector % L::kChunksPerRow) * 8;
      if (token < cached) {
        k_next[i] = load_vector(k_rows + static_cast<std::size_t>(token) * D + column);
        v_next[i] = load_vector(v_rows + static_cast<std::size_t>(token) * D + column);
      } else if (token == cached && last) {
        k_next[i] = load_vector(job.k_new + new_slot + column);
        v_next[i] = load_vector(job.v_new + new_slot + column);
      } else {
        k_next[i] = make_uint4(0u, 0u, 0u, 0u);
        v_next[i] = make_uint4(0u, 0u, 0u, 0u);
      }
    }
  };
  fetch(0);
  // Q, loaded while the first stage's K and V are on their way.
  for (int chunk = tid; chunk < kTile * L::kChunksPerRow; chunk += kThreads) {
    const int row = chunk / L::kChunksPerRow;
    const int column = (chunk % L::kChunksPerRow) * 8;
    const uint4 value =
        row < group
            ? load_vector(job.q + (static_cast<std::size_t>(b) * job.heads + kv_head * group + row) * D + column)
            : make_uint4(0u, 0u, 0u, 0u);
    store_vector(q_tile + row * L::kLd + column, value);
  }

  const int softmax_row = tid / L::kThreadsPerRow;
  const int softmax_part = tid % L::kThreadsPerRow;
  float row_max = -INFINITY;  // log2 units; the same in every thread of the row
  float row_sum = 0.0f;       // this thread's columns only
  const int out_column = tid % D;
  const int out_first_row = tid / D;
  float out[L::kOutRows];
#pragma unroll
  for (int i = 0; i < L::kOutRows; ++i) out[i] = 0.0f;

  for (int stage = 0; stage < stages; ++stage) {
    __syncthreads();  // the previous stage's K, V, P and P V tiles are no longer read
#pragma unroll
    for (int i = 0; i < L::kVectors; ++i) {
      const int vector = tid + i * kThreads;
      const int at = vector / L::kChunksPerRow * L::kLd + (vector % L::kChunksPerRow) * 8;
      store_vector(k_tile + at, k_next[i]);
      store_vector(v_tile + at, v_next[i]);
    }
    if (stage + 1 < stages) fetch(stage + 1);
    __syncthreads();  // Q, K and V complete

    for (int t = wave; t < L::kTokens / kTile; t += kWaves) {
      mma::Accumulator acc;
      mma::zero(acc);
#pragma unroll
      for (int kk = 0; kk < D / kTile; ++kk) {
        mma::FragmentA q_fragment;
        mma::FragmentB<mma::ColMajor> k_fragment;
        mma::load_a(q_fragment, q_tile + kk * kTile, L::kLd);
        mma::load_b(k_fragment, k_tile + t * kTile * L::kLd + kk * kTile, L::kLd);
        mma::multiply_add(acc, q_fragment, k_fragment);
      }
      mma::store(scores_tile + t * kTile, L::kScoreLd, acc);
    }
    __syncthreads();  // S complete

    float scores[L::kColumns];
    float local_max = -INFINITY;
#pragma unroll
    for (int i = 0; i < L::kColumns; ++i) {
      const int column = softmax_part + L::kThreadsPerRow * i;
      scores[i] = stage * L::kTokens + column < tokens ? scores_tile[softmax_row * L::kScoreLd + column] * scale_log2
                                                       : -INFINITY;
      local_max = fmaxf(local_max, scores[i]);
    }
    partial[tid] = local_max;
    __syncthreads();  // partial maxima published
    float new_max = row_max;
    for (int p = 0; p < L::kThreadsPerRow; ++p) new_max = fmaxf(new_max, partial[softmax_row * L::kThreadsPerRow + p]);
    const float rescale = exp2f(row_max - new_max);  // 0 on the first stage (row_max = -inf; a stage has a token)
    float local_sum = 0.0f;
#pragma unroll
    for (int i = 0; i < L::kColumns; ++i) {
      const float probability = exp2f(scores[i] - new_max);
      probs_tile[softmax_row * L::kProbLd + softmax_part + L::kThreadsPerRow * i] = __float2half(probability);
      local_sum += probability;
    }
    row_sum = row_sum * rescale + local_sum;
    row_max = new_max;
    if (softmax_part == 0) row_scale[softmax_row] = rescale;
    __syncthreads();  // P and the rescale factors complete

    for (int t = wave; t < D / kTile; t += kWaves) {
      mma::Accumulator acc;
      mma::zero(acc);
#pragma unroll
      for (int kk = 0; kk < L::kTokens / kTile; ++kk) {
        mma::FragmentA p_fragment;
        mma::FragmentB<mma::RowMajor> v_fragment;
        mma::load_a(p_fragment, probs_tile + kk * kTile, L::kProbLd);
        mma::load_b(v_fragment, v_tile + kk * kTile * L::kLd + t * kTile, L::kLd);
        mma::multiply_add(acc, p_fragment, v_fragment);
      }
      mma::store(pv_tile + t * kTile, L::kOutLd, acc);
    }
    __syncthreads();  // P V complete
#pragma unroll
    for (int i = 0; i < L::kOutRows; ++i) {
      const int row = out_first_row + L::kOutRowStep * i;
      out[i] = out[i] * row_scale[row] + pv_tile[row * L::kOutLd + out_column];
    }
  }

  __syncthreads();  // every thread is done with the last stage's partial maxima
  partial[tid] = row_sum;
  __syncthreads();
  if (softmax_part == 0) {
    float total = 0.0f;
    for (int p = 0; p < L::kThreadsPerRow; ++p) total += partial[softmax_row * L::kThreadsPerRow + p];
    row_scale[softmax_row] = 1.0f / total;
    row_lse[softmax_row] = (row_max + log2f(total)) * 0.69314718055994531f;
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < L::kOutRows; ++i) {
    const int row = out_first_row + L::kOutRowStep * i;
    if (row >= group) continue;
    const std::size_t head = static_cast<std::size_t>(b) * job.heads + kv_head * group + row;
    const __half value = __float2half(out[i] * row_scale[row]);
    if (job.splits == 1) {
      job.attn_out[head * D + out_column] = value;
    } else {
      __half* record = job.partials + (head * job.splits + split) * (D + 1);
      record[out_column] = value;
      if (out_column == 0) record[D] = __float2half(row_lse[row]);
    }
  }
}

__device__ inline AttentionJob attention_job(const DecodeArgs& a) {
  return AttentionJob{a.q,     a.k_cache, a.v_cache,  a.k_new,   a.v_new,     a.attn_out, a.partials,
                      a.batch, a.heads,   a.kv_heads, a.context, a.partition, a.splits};
}

// ---- tasks, kernels ---------------------------------------------------------------------------------------------
//
// The operator is a template parameter down to the fields it reads: every field of the arguments is then read at a
// constant offset (indexed at run time, AMD's compiler copies the whole argument block to scratch memory).

template <DecodeOp Op, int D>
__device__ inline void run_task(const DecodeArgs& a, int layer, int task, unsigned char* shared) {
  float* scratch = reinterpret_cast<float*>(shared);
  switch (Op) {
    case DecodeOp::embedding:
      embedding_task(a, task);
      return;
    case DecodeOp::rms_norm_attn:
      rms_norm_task(a, layer, task, 0, scratch);
      return;
    case DecodeOp::qkv_proj:
      linear_task(linear_job(a, a.qkv_proj, layer), task, shared);
      return;
    case DecodeOp::rope_q:
      rope_q_task(a, layer, task, scratch);
      return;
    case DecodeOp::kv_write:
      kv_write_task(a, layer, task, scratch);
      return;
    case DecodeOp::attention:
      attention_task<D>(attention_job(a), layer, task, shared);
      return;
    case DecodeOp::attn_combine:
      combine_task(a, task);
      return;
    case DecodeOp::o_proj:
      linear_task(linear_job(a, a.o_proj, layer), task, shared);
      return;
    case DecodeOp::rms_norm_mlp:
      rms_norm_task(a, layer, task, 1, scratch);
      return;
    case DecodeOp::gate_up:
      linear_task(linear_job(a, a.gate_up_proj, layer), task, shared);
      return;
    case DecodeOp::act:
      act_task(a, task);
      return;
    case DecodeOp::down:
      linear_task(linear_job(a, a.down_proj, layer), task, shared);
      return;
    case DecodeOp::count:
      return;
  }
}

// kernel_per_op: one workgroup per task of operator Op in `layer`.
template <DecodeOp Op, int D>
__global__ void __launch_bounds__(kThreads) op_kernel(DecodeArgs a, int layer) {
  extern __shared__ float4 decode_shared[];
  run_task<Op, D>(a, layer, static_cast<int>(blockIdx.x), reinterpret_cast<unsigned char*>(decode_shared));
}

// Thread 0 spins (acquiring) until Producer has finished its tasks `runs` times (its counter counts over layers).
template <DecodeOp Producer>
__device__ inline void wait_done(const DecodeArgs& a, int runs) {
  constexpr int kIndex = static_cast<int>(Producer);
  flag_wait_at_least(a.counters + kIndex * kDecodeCounterStride, a.tasks[kIndex] * runs);
}

// Before a task's first load of produced data: every task of each operator it depends on has finished in this
// layer (rms_norm_attn: the embedding, and `down` of the layer before), as decode_step.cc's plan_decode_step lists
// them. Later layers' tasks of the same operators overwrite buffers that earlier ones read; the chain of these
// dependencies orders those too.
template <DecodeOp Op>
__device__ inline void wait_for_producers(const DecodeArgs& a, int layer) {
  if (threadIdx.x == 0) {
    const int runs = layer + 1;
    switch (Op) {
      case DecodeOp::embedding:
        break;
      case DecodeOp::rms_norm_attn:
        wait_done<DecodeOp::embedding>(a, 1);
        wait_done<DecodeOp::down>(a, layer);
        break;
      case DecodeOp::qkv_proj:
        wait_done<DecodeOp::rms_norm_attn>(a, runs);
        break;
      case DecodeOp::rope_q:
      case DecodeOp::kv_write:
        wait_done<DecodeOp::qkv_proj>(a, runs);
        break;
      case DecodeOp::attention:
        wait_done<DecodeOp::rope_q>(a, runs);
        wait_done<DecodeOp::kv_write>(a, runs);
        break;
      case DecodeOp::attn_combine:
        wait_done<DecodeOp::attention>(a, runs);
        break;
      case DecodeOp::o_proj:
        if (a.splits > 1)
          wait_done<DecodeOp::attn_combine>(a, runs);
        else
          wait_done<DecodeOp::attention>(a, runs);
        break;
      case DecodeOp::rms_norm_mlp:
        wait_done<DecodeOp::o_proj>(a, runs);
        break;
      case DecodeOp::gate_up:
        wait_done<DecodeOp::rms_norm_mlp>(a, runs);
        break;
      case DecodeOp::act:
        wait_done<DecodeOp::gate_up>(a, runs);
        break;
      case DecodeOp::down:
        wait_done<DecodeOp::act>(a, runs);
        break;
      case DecodeOp::count:
        break;
    }
  }
  // The barrier passes thread 0's acquisition on to the workgroup, and frees the previous task's shared memory.
  __syncthreads();
}

// After a task's stores: each thread fences its own stores (device scope: on a GPU of several dies, its die's L2
// writes back), the barrier gathers the workgroup, and one atomic counts the task done.
template <DecodeOp Op>
__device__ inline void publish(const DecodeArgs& a) {
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(a.counters + static_cast<int>(Op) * kDecodeCounterStride, 1);
}

// Where a persistent worker takes its tasks: on die `die` (of `dies`), as worker `index` of that die's `count`.
struct Worker {
  int die;
  int index;
  int count;
};

// chiplet_tasks: this worker's die and its place among the die's workers.
//   AMD: workgroups are dispatched round robin over the XCDs, so worker w runs on die w mod D (Tessera's die() with
//   a dispatch chunk of 1) and is worker w / D of it.
//   NVIDIA: the dies are the two L2 partitions, which no dispatcher order follows, so a worker reads its SM id. The
//   map from SM to L2 partition is not published: die = SM id mod 2 stands in for it, which deals the tasks to two
//   halves of the SMs as Tessera deals them to two dies, without the knowledge that a half shares one partition.
//   As the halves' sizes are only known once every worker has placed itself, each takes the next index of its die
//   (an atomic) and waits until all have arrived (a grid barrier: the workers are co-resident). Should a die get no
//   worker, every worker falls back to AMD's round-robin places.
__device__ Worker chiplet_worker(const DecodeArgs& a) {
  const int worker = static_cast<int>(blockIdx.x);
  const int workers = static_cast<int>(gridDim.x);
#if defined(TK_PLATFORM_NVIDIA)
  __shared__ int place[3];
  if (threadIdx.x == 0) {
    unsigned sm = 0;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    int die = static_cast<int>(sm % static_cast<unsigned>(a.dies));
    int index = atomicAdd(a.registry + die, 1);
    __threadfence();  // the index is taken before the arrival counts
    atomicAdd(a.registry + a.dies, 1);
    flag_wait_at_least(a.registry + a.dies, workers);
    int count = flag_acquire_system(a.registry + die);
    bool every_die = true;
    for (int d = 0; d < a.dies; ++d) every_die = every_die && flag_acquire_system(a.registry + d) > 0;
    if (!every_die) {
      die = worker % a.dies;
      index = worker / a.dies;
      count = (workers - die + a.dies - 1) / a.dies;
    }
    place[0] = die;
    place[1] = index;
    place[2] = count;
  }
  __syncthreads();
  return Worker{place[0], place[1], place[2]};
#else
  const int die = worker % a.dies;
  return Worker{die, worker / a.dies, (workers - die + a.dies - 1) / a.dies};
#endif
}

// One operator's tasks of this worker in one layer. An operator's column tiles n = die + dies * c belong to die
// `die`; its tasks there, u = c * tiles_m + m (all row blocks of a tile one after another), go to its workers in
// turn (u = index, index + count, ...). With one die and every worker on it this is the megakernel's device-wide
// order: task t = n * tiles_m + m to worker t mod W.
template <DecodeOp Op, int D>
__device__ inline void run_operator(const DecodeArgs& a, int layer, const Worker& worker, int dies,
                                    unsigned char* shared) {
  const int tiles_m = is_linear(Op) ? a.tiles_m : 1;
  const int tiles_n = a.tasks[static_cast<int>(Op)] / tiles_m;
  const int units = (tiles_n - worker.die + dies - 1) / dies * tiles_m;
  for (int u = worker.index; u < units; u += worker.count) {
    const int task = ((u / tiles_m) * dies + worker.die) * tiles_m + u % tiles_m;
    wait_for_producers<Op>(a, layer);
    run_task<Op, D>(a, layer, task, shared);
    publish<Op>(a);
  }
}

// megakernel (chiplet = 0) and chiplet_tasks (chiplet = 1): every worker runs the embedding, then every operator of
// every layer in order, each over its share of the tasks (attn_combine has none with one split).
template <int D>
__global__ void __launch_bounds__(kThreads) decode_megakernel(DecodeArgs a, int chiplet) {
  extern __shared__ float4 decode_shared[];
  unsigned char* shared = reinterpret_cast<unsigned char*>(decode_shared);
  const int dies = chiplet ? a.dies : 1;
  const Worker worker =
      chiplet ? chiplet_worker(a) : Worker{0, static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x)};
  run_operator<DecodeOp::embedding, D>(a, 0, worker, dies, shared);
  for (int layer = 0; layer < a.layers; ++layer) {
    run_operator<DecodeOp::rms_norm_attn, D>(a, layer, worker, dies, shared);
    run_operator<DecodeOp::qkv_proj, D>(a, layer, worker, dies, shared);
    run_operator<DecodeOp::rope_q, D>(a, layer, worker, dies, shared);
    run_operator<DecodeOp::kv_write, D>(a, layer, worker, dies, shared);
    run_operator<DecodeOp::attention, D>(a, layer, worker, dies, shared);
    run_operator<DecodeOp::attn_combine, D>(a, layer, worker, dies, shared);
    run_operator<DecodeOp::o_proj, D>(a, layer, worker, dies, shared);
    run_operator<DecodeOp::rms_norm_mlp, D>(a, layer, worker, dies, shared);
    run_operator<DecodeOp::gate_up, D>(a, layer, worker, dies, shared);
    run_operator<DecodeOp::act, D>(a, layer, worker, dies, shared);
    run_operator<DecodeOp::down, D>(a, layer, worker, dies, shared);
  }
}

using OpKernel = void (*)(DecodeArgs, int);

template <int D>
OpKernel op_kernel_of(DecodeOp op) {
  switch (op) {
    case DecodeOp::embedding:
      return op_kernel<DecodeOp::embedding, D>;
    case DecodeOp::rms_norm_attn:
      return op_kernel<DecodeOp::rms_norm_attn, D>;
    case DecodeOp::qkv_proj:
      return op_kernel<DecodeOp::qkv_proj, D>;
    case DecodeOp::rope_q:
      return op_kernel<DecodeOp::rope_q, D>;
    case DecodeOp::kv_write:
      return op_kernel<DecodeOp::kv_write, D>;
    case DecodeOp::attention:
      return op_kernel<DecodeOp::attention, D>;
    case DecodeOp::attn_combine:
      return op_kernel<DecodeOp::attn_combine, D>;
    case DecodeOp::o_proj:
      return op_kernel<DecodeOp::o_proj, D>;
    case DecodeOp::rms_norm_mlp:
      return op_kernel<DecodeOp::rms_norm_mlp, D>;
    case DecodeOp::gate_up:
      return op_kernel<DecodeOp::gate_up, D>;
    case DecodeOp::act:
      return op_kernel<DecodeOp::act, D>;
    case DecodeOp::down:
      return op_kernel<DecodeOp::down, D>;
    case DecodeOp::count:
      break;
  }
  throw std::invalid_argument("decode: no kernel for this operator");
}

template <int D>
void set_shared_limit(std::size_t bytes) {
  const int limit = static_cast<int>(bytes);
  for (int op = 0; op < kDecodeOps; ++op) {
    HIP_CHECK(hipFuncSetAttribute(reinterpret_cast<const void*>(op_kernel_of<D>(static_cast<DecodeOp>(op))),
                                  hipFuncAttributeMaxDynamicSharedMemorySize, limit));
  }
  HIP_CHECK(hipFuncSetAttribute(reinterpret_cast<const void*>(&decode_megakernel<D>),
                                hipFuncAttributeMaxDynamicSharedMemorySize, limit));
}

}  // namespace

const char* decode_op_name(DecodeOp op) {
  switch (op) {
    case DecodeOp::embedding:
      return "embedding";
    case DecodeOp::rms_norm_attn:
      return "rms_norm_attn";
    case DecodeOp::qkv_proj:
      return "qkv_proj";
    case DecodeOp::rope_q:
      return "rope_q";
    case DecodeOp::kv_write:
      return "kv_write";
    case DecodeOp::attention:
      return "attention";
    case DecodeOp::attn_combine:
      return "attn_combine";
    case DecodeOp::o_proj:
      return "o_proj";
    case DecodeOp::rms_norm_mlp:
      return "rms_norm_mlp";
    case DecodeOp::gate_up:
      return "gate_up";
    case DecodeOp::act:
      return "act";
    case DecodeOp::down:
      return "down";
    case DecodeOp::count:
      break;
  }
  return "?";
}

int decode_sync_ints(int dies) { return kDecodeOps * kDecodeCounterStride + dies + 1; }

int decode_block_n(int n, int tiles_m, int compute_units) {
  int narrowest = 0;
  for (const int block : {128, 64, 32, 16}) {
    if (n % block != 0) continue;
    if (static_cast<long long>(tiles_m) * (n / block) >= compute_units) return block;
    narrowest = block;
  }
  return narrowest;
}

std::size_t decode_shared_bytes(const DecodeArgs& args, DecodeOp op) {
  if (is_linear(op)) {
    // Every row block but the last has 16 rows; the last has the rest.
    const DecodeLinear& linear = op == DecodeOp::qkv_proj  ? args.qkv_proj
                                 : op == DecodeOp::o_proj  ? args.o_proj
                                 : op == DecodeOp::gate_up ? args.gate_up_proj
                                                           : args.down_proj;
    const int last_rows = args.batch - (args.tiles_m - 1) * kDecodeBlockM;
    return static_cast<std::size_t>(
        std::max(linear_layout(linear.block_n, std::min(args.batch, kDecodeBlockM), linear.k).bytes,
                 linear_layout(linear.block_n, last_rows, linear.k).bytes));
  }
  switch (op) {
    case DecodeOp::attention:
      return args.head_dim == 64 ? AttentionLayout<64>::kBytes : AttentionLayout<128>::kBytes;
    case DecodeOp::rms_norm_attn:
    case DecodeOp::rms_norm_mlp:
    case DecodeOp::rope_q:
    case DecodeOp::kv_write:
      return kThreads * sizeof(float);  // block_sum's scratch
    default:
      return 0;
  }
}

std::size_t decode_megakernel_shared_bytes(const DecodeArgs& args) {
  std::size_t bytes = 0;
  for (int op = 0; op < kDecodeOps; ++op) {
    if (args.tasks[op] > 0) bytes = std::max(bytes, decode_shared_bytes(args, static_cast<DecodeOp>(op)));
  }
  return bytes;
}

void prepare_decode_kernels(int head_dim, std::size_t shared_bytes) {
  if (head_dim == 64)
    set_shared_limit<64>(shared_bytes);
  else
    set_shared_limit<128>(shared_bytes);
}

int decode_megakernel_per_cu(int head_dim, std::size_t shared_bytes) {
  int per_cu = 0;
  if (head_dim == 64) {
    HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, decode_megakernel<64>, kThreads, shared_bytes));
  } else {
    HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, decode_megakernel<128>, kThreads, shared_bytes));
  }
  return per_cu;
}

void launch_decode_op(const DecodeArgs& args, DecodeOp op, int layer, hipStream_t stream) {
  const OpKernel kernel = args.head_dim == 64 ? op_kernel_of<64>(op) : op_kernel_of<128>(op);
  hipLaunchKernelGGL(kernel, dim3(args.tasks[static_cast<int>(op)]), dim3(kThreads), decode_shared_bytes(args, op),
                     stream, args, layer);
}

void launch_decode_megakernel(const DecodeArgs& args, bool chiplet, int workers, std::size_t shared_bytes,
                              hipStream_t stream) {
  if (args.head_dim == 64) {
    hipLaunchKernelGGL(decode_megakernel<64>, dim3(workers), dim3(kThreads), shared_bytes, stream, args,
                       chiplet ? 1 : 0);
  } else {
    hipLaunchKernelGGL(decode_megakernel<128>, dim3(workers), dim3(kThreads), shared_bytes, stream, args,
                       chiplet ? 1 : 0);
  }
}

}  // namespace tk

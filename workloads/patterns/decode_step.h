#pragma once
// One decode step of a transformer (kind `decode`) as a list of operators, each a set of
// independent tasks (tile programs), and the program of one task. The variants of decode.h
// differ only in how they launch the tasks: a kernel per operator, or a persistent kernel whose
// workers take the tasks in a static order (decode_schedule.h).
//
// The operators, per layer, as a serving engine runs them at batch B (B query tokens, one per
// sequence; every sequence attends to `context` cached tokens plus its new one):
//
//   rms_norm_attn   task b: load hidden[b], the norm weight; store xn[b]
//   qkv_proj        linear xn (B x H) . W_qkv^T -> qkv (B x (Hq + 2 Hkv) D)
//   rope_q          task (b, head): load its q slice of qkv [and the q-norm weight]; store q[b, head]
//   kv_write        task (b, kv head): load its k and v slices [the k-norm weight]; store them as
//                   the new token's cache entries (k_new, v_new: the slot after the context)
//   attention       task (b, kv head, split): load the group's q rows, the split's K and V tokens
//                   (and, in the last split, the new token); 4 x rows x tokens x D FLOPs; store a
//                   partial record (D + 1 values) per query head, or the output when there is one split
//   attn_combine    task (b, head): load its splits' records; store attn_out[b, head]
//   o_proj          linear attn_out . W_o^T, the residual added in its epilogue (hidden += ...)
//   rms_norm_mlp    as rms_norm_attn
//   gate_up         linear xn . W_gate_up^T -> gate_up (B x 2I)
//   act             task b: load gate_up[b]; store act[b] = silu(gate) * up (B x I)
//   down            linear act . W_down^T, the residual added in its epilogue
//
// before the layers `embedding` (task b: load the token's row of the embedding table; store
// hidden[b]) and after them `final_norm` and `lm_head` (linear into logits, B x vocab).
//
// Tensor parallel over `ranks` GPUs (Megatron's split, as vLLM runs it): every rank holds
// heads / ranks query heads and kv_heads / ranks KV heads (their columns of W_qkv, their rows of
// W_o, their KV cache), intermediate / ranks of the MLP and vocab / ranks of the LM head. o_proj
// and down then produce partial sums (into attn_partial, mlp_partial) and each is followed by
//
//   tp_reduce_attn, tp_reduce_mlp   task b: for every rank r, wait until r's producer has
//                   finished this layer (its counter, on r), load r's partial row b; then add
//                   the sum into hidden[b] (a one-shot all-reduce that reads the peers' buffers,
//                   as vLLM's custom all-reduce does, fused with the residual add)
//
// so the producers count their finished tasks in every variant. Each reduction has its own
// partial buffer, so a rank never overwrites a partial a peer may still read: its next write to
// it comes after its next reduction, which waits for that peer. The logits stay split (sampling
// is not modelled).
//
// A linear's task is an output tile of block_m rows (sequences) by block_n columns: it loads
// its rows of the input (rows x K; with the residual, its rows of hidden too) while its weight
// tile's first piece arrives, streams the weight tile (block_n x K, packed so that the tile is
// contiguous, as decode GEMV kernels pre-shuffle weights) in pieces of at least
// weight_piece_bytes, each prefetched while the previous one is multiplied (the piece's share of
// 2 x block_m x block_n x K FLOPs: the matrix units compute the padded rows), and stores its
// rows of the output (hidden, with the residual added). Element-wise work (norms, RoPE, SiLU) issues
// no matrix FLOPs: those operators are bound by memory and latency.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/compute/compute_timing.h"
#include "models/system/system_spec.h"
#include "workloads/patterns/decode_model.h"
#include "workloads/trace/builder.h"

namespace tessera::workloads::patterns {

// What fixes the step's shapes (decode.h's parameters, resolved).
struct DecodeShape {
  DecodeModel model;
  std::uint32_t batch = 1;
  std::uint64_t context = 4096;  // cached tokens per sequence before this step
  models::compute::Dtype dtype = models::compute::Dtype::kBf16;
  std::uint32_t block_m = 16;
  std::uint64_t weight_piece_bytes = 64 << 10;  // a linear's weight tile streams in pieces of at least this
  std::uint64_t kv_partition = 512;  // tokens per attention split
  bool lm_head = true;
  std::uint64_t compute_units = 0;  // the GPU's CUs: block_n is chosen to give every CU a task
  std::uint32_t ranks = 1;          // tensor parallel: `model` holds one rank's share (tensor_parallel_share)
};

enum class DecodeOpKind : std::uint8_t {
  kEmbedding,
  kRmsNorm,
  kLinear,
  kRopeQ,
  kKvWrite,
  kAttention,
  kCombine,
  kActivation,
  kTpReduce
};

// An operator this op waits for, in the megakernels: every task of `op` in this layer, or in
// the previous one (the first operator of a layer waits for the last of the layer before).
struct DecodeDep {
  std::size_t op = 0;
  bool previous_layer = false;
};

struct DecodeOp {
  std::string name;
  DecodeOpKind kind = DecodeOpKind::kRmsNorm;
  bool per_layer = true;  // runs once per layer (else once per step)
  // Tasks: tiles_m x tiles_n, task t = n * tiles_m + m. Only linears have tiles_m > 1.
  std::uint64_t tiles_m = 1;
  std::uint64_t tiles_n = 1;
  // Linears: C (batch x n) = input (batch x k) . weight^T (n x k per layer).
  std::uint64_t n = 0;
  std::uint64_t k = 0;
  std::uint32_t block_n = 0;
  std::uint64_t weight_pieces = 1;  // the weight tile's pieces (decode_weight_pieces)
  std::uint32_t input = trace::kNoBuffer;
  std::uint32_t weight = trace::kNoBuffer;
  std::uint32_t output = trace::kNoBuffer;
  std::uint64_t weight_offset = 0;  // norms: which vector of the layer's norm weights
  bool residual = false;            // the epilogue adds into hidden instead of storing `output`
  std::vector<DecodeDep> deps;
  // Tensor parallel: tp_reduce's producer (waited for on every rank, inside the task); a producer
  // whose tasks other ranks wait for counts them even when launched as its own kernel.
  std::size_t reduces = 0;
  bool counted_by_peers = false;

  std::uint64_t tasks() const { return tiles_m * tiles_n; }
};

struct DecodeBuffers {
  std::uint32_t hidden, xn, qkv, q, partials, attn_out, gate_up, act, logits;
  std::uint32_t attn_partial, mlp_partial;  // tensor parallel: o_proj's and down's partial sums
  std::uint32_t embedding, w_qkv, w_o, w_gate_up, w_down, norms, qk_norms, final_norm, w_lm_head;
  std::uint32_t k_cache, v_cache;  // the context: read by this step
  std::uint32_t k_new, v_new;      // this step's tokens: written, then read (a cache's next slot)
};

struct DecodeStep {
  DecodeShape shape;
  DecodeBuffers buffers{};
  std::uint64_t splits = 1;  // attention splits per (sequence, KV head)
  std::vector<DecodeOp> ops;

  std::uint32_t elem_bytes() const;
  std::uint64_t record_bytes() const { return (std::uint64_t{shape.model.head_dim} + 1) * elem_bytes(); }
  std::uint64_t layer_cache_bytes() const;  // K (or V) cache of one layer: the context
  std::uint64_t layer_new_bytes() const;    // K (or V) of one layer's new tokens
};

// The pieces a weight tile of `tile_elements` streams in: the most halvings that keep every piece
// at least `piece_bytes` and a whole number of elements (1 when the tile is smaller).
std::uint64_t decode_weight_pieces(std::uint64_t tile_elements, std::uint32_t elem_bytes, std::uint64_t piece_bytes);

// One rank's share of the model under tensor parallelism over `ranks`: heads, KV heads,
// intermediate and vocabulary divided (the caller checks that they divide), hidden kept.
DecodeModel tensor_parallel_share(const DecodeModel& model, std::uint32_t ranks);

// The largest of 128, 64, 32, 16 that divides n and gives every CU a task (tiles_m x n / block_n
// >= compute_units), else the narrowest that divides n (the most tasks); 0 when 16 does not divide n.
std::uint32_t decode_block_n(std::uint64_t n, std::uint64_t tiles_m, std::uint64_t compute_units);

// The operators of the step and their buffers (added to `builder`); throws std::invalid_argument
// naming the key when a shape does not tile.
DecodeStep plan_decode_step(const DecodeShape& shape, trace::TraceBuilder& builder);

// Where a task's program finds its tile: r1 = m, r2 = n (the task of an operator with one row
// block) must be set before the task's ops; the task uses r3..r6 and loops at `depth` (not nested
// deeper). r0 and r7 are the schedule's.
inline constexpr int kDecodeRegM = 1;
inline constexpr int kDecodeRegN = 2;

// The task's layer, where its loops nest, and a hook before its first load of produced data.
// `before_input` is called once, right before the task's first load of what an earlier
// operator produced, with that range (a megakernel waits for the producers there).
struct DecodeTaskContext {
  trace::Expr layer;
  int depth = 0;
  std::function<void(trace::ProgramBuilder&, std::uint32_t buffer, const trace::Expr& offset, const trace::Expr& bytes)>
      before_input;
};

// Appends one task of `op` to `program`.
void append_decode_task(trace::ProgramBuilder& program, const DecodeStep& step, const DecodeOp& op,
                        const DecodeTaskContext& context);

}  // namespace tessera::workloads::patterns

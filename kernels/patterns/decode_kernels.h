// The kernels of one transformer decode step on one GPU (patterns/decode.hip), as Tessera's kind `decode` describes
// them (workloads/patterns/decode_step.h: the operators and their tasks; decode_schedule.h: the three variants).
//
// Every operator is a set of independent tasks; a task is the work of one workgroup of kDecodeThreads threads:
//
//   embedding      task b: row b of the embedding table -> hidden[b]
//   rms_norm_attn  task b: hidden[b] -> xn[b] = hidden[b] / rms(hidden[b]) * norms[layer][0]
//   qkv_proj       linear xn . W_qkv^T -> qkv
//   rope_q         task b + B * head: q slice of qkv[b] [-> q-norm] -> RoPE -> q[b][head]
//   kv_write       task b + B * kv_head: k slice [-> k-norm] -> RoPE -> k_new; v slice -> v_new (the new token)
//   attention      task b + B * (kv_head + kv_heads * split): the group's query heads against the split's cached
//                  tokens (the last split also the new token), online softmax on the matrix units; a partial record
//                  per query head, or attn_out directly when there is one split
//   attn_combine   task b + B * head (more than one split only): the splits' records -> attn_out[b][head]
//   o_proj         linear attn_out . W_o^T, added into hidden
//   rms_norm_mlp   as rms_norm_attn with norms[layer][1]
//   gate_up        linear xn . W_gate_up^T -> gate_up (gate: columns [0, I), up: [I, 2I))
//   act            task b: act[b] = silu(gate) * up
//   down           linear act . W_down^T, added into hidden
//
// A linear's task t = n * tiles_m + m computes rows [16 m, 16 m + 16) (sequences; rows past the batch are padding,
// computed by the matrix units, never stored) by columns [block_n n, block_n (n + 1)) of C = X . W^T, W stored
// [N][K] row-major per layer (PyTorch's Linear weight), so that a task's weight tile is block_n whole rows of W:
// contiguous. It streams the tile, with the same K range of its input rows, in pieces (up to 96 KiB on NVIDIA, 48 KiB
// on AMD), each loaded into registers while the one before is multiplied out of shared memory, with fp32
// accumulation (decode_kernels.hip says why).
//
// Buffers (fp16): hidden, xn [B][H]; qkv [B][(heads + 2 kv_heads) D]; q, attn_out [B][heads D];
// partials [B][heads][splits][D + 1] (the record: D values divided by their softmax sum, then the log-sum-exp);
// gate_up [B][2I]; act [B][I]; k_cache, v_cache [layer][B][kv_head][context][D]; k_new, v_new
// [layer][B][kv_heads D]; norms [layer][2][H]; qk_norms [layer][2][D] (q, then k); weights [layer][N][K].
#pragma once

#include <cstddef>

#include "port/hip_port.h"

namespace tk {

// Every task's workgroup: 8 waves (256 threads on NVIDIA, 512 on AMD). Few threads, many registers each: the bytes a
// workgroup keeps in flight sit in registers, and what every thread needs besides (addresses, fragments) costs less.
inline constexpr int kDecodeThreads = 8 * kWaveSize;
inline constexpr int kDecodeBlockM = 16;         // sequences per linear tile (the matrix unit's rows; Tessera block_m)
inline constexpr int kDecodeMaxGroup = 16;       // query heads per KV head: one 16-row matrix tile per attention task
inline constexpr float kDecodeRmsEps = 1e-6f;    // Qwen3 and Llama 3 rms_norm_eps
inline constexpr double kDecodeRopeTheta = 1e6;  // Qwen3 rope_theta
// Operator counters are this many ints apart (128 bytes), so that spinning on one never contends with another's
// atomic adds.
inline constexpr int kDecodeCounterStride = 32;

// The operators, in the order of a layer (embedding once before the layers); the value is the counter index.
enum class DecodeOp : int {
  embedding,
  rms_norm_attn,
  qkv_proj,
  rope_q,
  kv_write,
  attention,
  attn_combine,
  o_proj,
  rms_norm_mlp,
  gate_up,
  act,
  down,
  count
};
inline constexpr int kDecodeOps = static_cast<int>(DecodeOp::count);

const char* decode_op_name(DecodeOp op);

// One linear layer: output (batch x n) = input (batch x k) . weight[layer]^T, or output += that (residual).
struct DecodeLinear {
  const __half* input = nullptr;
  const __half* weight = nullptr;  // [layers][n][k]
  __half* output = nullptr;
  int n = 0;
  int k = 0;
  int block_n = 0;
  int residual = 0;
};

// Everything a task needs: shapes, buffers, the linears, task counts and the persistent kernels' counters. Passed
// by value to every kernel.
struct DecodeArgs {
  int batch = 1;
  int hidden_size = 0;
  int heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  int intermediate = 0;
  int layers = 0;
  int context = 0;
  int partition = 0;  // cached tokens per attention split (the last split may hold fewer)
  int splits = 1;
  int qk_norm = 0;
  int tiles_m = 1;  // row blocks of every linear

  const __half* embedding = nullptr;
  const __half* norms = nullptr;
  const __half* qk_norms = nullptr;  // null without qk_norm
  const __half* k_cache = nullptr;
  const __half* v_cache = nullptr;
  __half* hidden = nullptr;
  __half* xn = nullptr;
  __half* qkv = nullptr;
  __half* q = nullptr;
  __half* partials = nullptr;  // null with one split
  __half* attn_out = nullptr;
  __half* gate_up = nullptr;
  __half* act = nullptr;
  __half* k_new = nullptr;
  __half* v_new = nullptr;

  DecodeLinear qkv_proj, o_proj, gate_up_proj, down_proj;
  int tasks[kDecodeOps] = {};  // 0: the operator does not run (attn_combine with one split)

  // Persistent kernels: kDecodeOps counters kDecodeCounterStride ints apart, counting finished tasks over the
  // layers; then (chiplet_tasks on NVIDIA) `dies` per-die worker counts and an arrival count.
  int* counters = nullptr;
  int* registry = nullptr;
  int dies = 1;
};

// The ints the counters and the registry take (zeroed before every run).
int decode_sync_ints(int dies);

// Tessera's decode_block_n (workloads/patterns/decode_step.cc): the widest of 128, 64, 32, 16 that divides n and
// gives every compute unit a task (tiles_m * n / block_n >= compute_units), else the narrowest that divides n;
// 0 when 16 does not divide n.
int decode_block_n(int n, int tiles_m, int compute_units);

// Dynamic shared memory of one operator's task, and of the megakernel (every operator that runs).
std::size_t decode_shared_bytes(const DecodeArgs& args, DecodeOp op);
std::size_t decode_megakernel_shared_bytes(const DecodeArgs& args);

// On the current device, before the first launch: lets every kernel of this head_dim use `shared_bytes` of dynamic
// shared memory.
void prepare_decode_kernels(int head_dim, std::size_t shared_bytes);
// Workgroups of the megakernel one compute unit holds at once with `shared_bytes` (the bound on workers_per_cu).
int decode_megakernel_per_cu(int head_dim, std::size_t shared_bytes);

// kernel_per_op: one operator of one layer, grid = its tasks (task = blockIdx.x).
void launch_decode_op(const DecodeArgs& args, DecodeOp op, int layer, hipStream_t stream);
// megakernel / chiplet_tasks: one persistent kernel of `workers` workgroups over every operator of every layer.
void launch_decode_megakernel(const DecodeArgs& args, bool chiplet, int workers, std::size_t shared_bytes,
                              hipStream_t stream);

}  // namespace tk

#pragma once
// Flash-Attention-2 forward on one GPU (kind `attention`, BRIEF §4; the NUMA paper, arXiv
// 2511.02132): O = softmax(Q K^T / sqrt(d)) V per (batch, q head).
//
// Trace: buffers Q, K, V, O in their real layouts, [batch][heads][seq_len][head_dim] row-major
// (K and V with kv_heads heads), so one head's rows are contiguous and a block of rows of one
// head is ONE contiguous range (no tile addressing question: a row is the whole head_dim).
// One kernel "attention" of batch x q_heads x (seq_len / block_m) workgroups, one per Q block
// of one (batch, q head) (attention_mapping.h says which launched id computes which), each:
//
//   load the Q block (block_m rows)
//   request K and V of the first group of KV blocks (block_n rows each) of its KV head
//   for each group of kv_blocks_per_op KV blocks:
//     wait for its K; request K of the next group; compute Q K^T
//     wait for its V; request V of the next group; compute P V
//   store the O block
//
// Prefetch (`prefetch`, on by default): K and V are non-blocking loads (trace op load_async)
// issued one group ahead, so a workgroup's loads overlap its products, as FA2 kernels pipeline
// them and as the suite's attention kernel (kernels/patterns/attention.hip) does: it loads the
// next K and V blocks into registers while the matrix units work on the current ones. With
// `prefetch: false` every load blocks the workgroup before its product (load K, compute, load
// V, compute), a kernel without software pipelining.
//
// FLOPs: 4 * block_m * block_n * head_dim per KV block (2 for Q K^T, 2 for P V): the two matrix
// products the matrix cores run. The online softmax (row max, exp, row sum, rescaling the O
// accumulator) is vector work, a few operations per score; it is not counted, because the
// compute model times matrix work only (models/compute/README.md, Limits).
//
// Causal (off by default: BRIEF §4's sizes name no mask): Q block m streams only the KV
// blocks up to its diagonal, ceil((m + 1) * block_m / block_n) of them; the diagonal blocks
// are computed whole and masked, as FA2 does, so they cost full FLOPs. Q blocks run in their
// natural order (no reversed or zig-zag order for load balance).
//
// Coarsening (`kv_blocks_per_op`, c; why: replay speed). FA2 at 128 heads x 128K tokens is
// 131 072 workgroups x 2048 KV blocks = 268 M loop iterations, ~1 G operations at one op per
// load and per product. One op therefore moves (or computes) c consecutive KV blocks at once.
// Bytes, addresses and FLOPs stay exact (one group of a workgroup takes the remainder: the first
// with the prefetch, the last without);
// what is coarser: (1) a workgroup requests c blocks of K (and of V) at once, so its L2
// footprint grows in steps of c blocks and the cache sees the c blocks at the request; (2) with
// blocking loads (`prefetch: false`) each op pays one load latency, so the latency a workgroup
// exposes between its products is charged once per c blocks instead of once per block: that is
// what made coarse blocking traces fast (128 heads x 16K: makespan -15% at c = 8). With the
// prefetch the latency hides under the products at any c, so the makespan moves little; but
// the prefetch runs one group ahead, so a workgroup's footprint in flight is 2c blocks of K and
// of V where the kernel's is 2, and the L2 hit rate drifts as c grows. Measured on mi300x-1
// against c = 1 (docs/performance.md, round 4): at c = 4 the makespan is within +1.2% and the
// L2 hit rate within 0.015 on every case measured (16 to 128 heads at 8K to 32K, GQA, causal,
// all four mappings) except the cache-thrashing 128-head swizzled block-first at 8K (hit rate
// 0.18 -> 0.03, makespan -4%); at c = 8 the makespans still hold (+1.7%) but hit rates move by
// up to 0.31 (128 heads x 8K naive block-first: 0.93 -> 0.62). The default, 4, keeps the hit
// rates the mapping studies compare; c = 1 is the uncoarsened kernel.
//
// ranks > 1: every rank runs the same attention on its own copy of the buffers (independent
// replicas, e.g. data parallel); nothing moves between GPUs.
#include <cstdint>
#include <optional>

#include "models/compute/compute_timing.h"
#include "models/system/system_spec.h"
#include "sim/config/schema.h"
#include "workloads/patterns/attention_mapping.h"
#include "workloads/patterns/param_problem.h"
#include "workloads/trace/trace.h"

namespace tessera::workloads::patterns {

struct AttentionParams {
  // The paper's largest MHA case (BRIEF §4: HQ = HK in {8..128}, head dim 128, sequence
  // 8K-128K, batch 1-8, tiles 128 x 64).
  std::uint32_t batch = 1;
  std::uint32_t q_heads = 128;
  std::uint32_t kv_heads = 0;  // 0: as many as q_heads (MHA); the paper's GQA runs use 8
  std::uint64_t seq_len = 131072;
  std::uint32_t head_dim = 128;
  std::uint32_t block_m = 128;  // Q rows per workgroup
  std::uint32_t block_n = 64;   // K/V rows per KV block
  models::compute::Dtype dtype = models::compute::Dtype::kFp16;
  bool causal = false;
  // The usual FA2 launch order (consecutive workgroups take consecutive Q blocks of one head):
  // the conventional schedule the paper measures against.
  AttentionMapping mapping = AttentionMapping::kNaiveHeadFirst;
  // KV blocks per load / compute op (see above): the largest that keeps makespan and L2 hit
  // rate within a few percent of the uncoarsened trace in the measurements.
  std::uint32_t kv_blocks_per_op = 4;
  bool prefetch = true;  // K/V of the next group loaded during the current one (see above)
  std::uint32_t ranks = 1;  // independent replicas; 0: every GPU of the system
};

// The `workload:` keys of kind `attention` (besides `kind`).
const sim::config::Schema<AttentionParams>& attention_schema();

// Sizes derived from the parameters.
struct AttentionShape {
  AttentionGrid grid;               // batch x q_heads x q_blocks
  std::uint64_t kv_heads = 1;       // resolved (q_heads when 0)
  std::uint64_t group = 1;          // q heads per KV head
  std::uint64_t kv_blocks = 1;      // KV blocks of a whole sequence: seq_len / block_n
  std::uint64_t elem_bytes = 2;
  std::uint64_t head_bytes = 0;     // seq_len x head_dim x elem: one head of Q, K, V or O
  std::uint64_t q_block_bytes = 0;  // block_m rows
  std::uint64_t kv_block_bytes = 0; // block_n rows
  double flops_per_kv_block = 0;    // 4 x block_m x block_n x head_dim

  std::uint64_t q_bytes() const { return grid.batch * grid.q_heads * head_bytes; }  // Q and O
  std::uint64_t kv_bytes() const { return grid.batch * kv_heads * head_bytes; }     // K and V
};
AttentionShape shape_of(const AttentionParams& params);

// The KV blocks Q block `q_block` streams: all of them, or up to its diagonal when causal.
std::uint64_t kv_blocks_of(const AttentionParams& params, std::uint64_t q_block);

std::uint32_t ranks_of(const AttentionParams& params, const models::SystemSpec& system);

// What the parameters or the system make impossible, naming the key.
std::optional<ParamProblem> check_against_system(const AttentionParams& params, const models::SystemSpec& system);

// The trace; throws std::invalid_argument naming the key of an impossible parameter.
trace::Trace make_attention(const AttentionParams& params, const models::SystemSpec& system);

}  // namespace tessera::workloads::patterns

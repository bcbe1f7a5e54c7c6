#pragma once
// Flash-Attention-2 forward on one GPU (kind `attention`; the NUMA paper, arXiv
// 2511.02132): O = softmax(Q K^T / sqrt(d)) V per (batch, q head).
//
// Trace: buffers Q, K, V, O in their real layouts, [batch][heads][seq_len][head_dim] row-major
// (K and V with kv_heads heads), so one head's rows are contiguous and a block of rows of one
// head is ONE contiguous range (no tile addressing question: a row is the whole head_dim).
// One kernel "attention" of batch x q_heads x (seq_len / block_m) workgroups, one per Q block
// of one (batch, q head) (attention_mapping.h says which launched id computes which), each:
//
//   load the Q block (block_m rows)
//   request K and V of KV block 0 (block_n rows each) of its KV head
//   for each KV block j:
//     wait for K of block j; request K of block j + 1; compute Q K^T
//     wait for V of block j; request V of block j + 1; compute P V
//   store the O block
//
// Prefetch (`prefetch`, on by default): K and V are non-blocking loads (trace op load_async)
// issued one KV block ahead, so a workgroup's loads overlap its products, as FA2 kernels
// pipeline them and as the suite's attention kernel (kernels/patterns/attention.hip) does: it
// loads the next K and V blocks into registers while the matrix units work on the current ones.
// With `prefetch: false` every load blocks the workgroup before its product (load K, compute,
// load V, compute), a kernel without software pipelining.
//
// FLOPs: 4 * block_m * block_n * head_dim per KV block (2 for Q K^T, 2 for P V): the two matrix
// products the matrix cores run. The online softmax (row max, exp, row sum, rescaling the O
// accumulator) is vector work, a few operations per score; it is not counted, because the
// compute model times matrix work only (models/compute/README.md, Limits).
//
// Causal (off by default: the NUMA paper's cases name no mask): Q block m streams only the KV
// blocks up to its diagonal, ceil((m + 1) * block_m / block_n) of them; the diagonal blocks
// are computed whole and masked, as FA2 does, so they cost full FLOPs. Q blocks run in their
// natural order (no reversed or zig-zag order for load balance).
//
// Coarsening (`kv_blocks_per_op`, c; why: replay speed). FA2 at 128 heads x 128K tokens is
// 131 072 workgroups x 2048 KV blocks = 268 M loop iterations, ~1 G operations at one op per
// load and per product. One op therefore moves (or computes) c consecutive KV blocks at once.
// Bytes, addresses and FLOPs stay exact (one group of a workgroup takes the remainder: the
// last). What is coarser: (1) a workgroup requests c blocks of K (and of V) at once, so the
// cache sees them at the request; (2) with blocking loads (`prefetch: false`) each op pays one
// load latency, so the latency a workgroup exposes between its products is charged once per c
// blocks instead of once per block: that is what made coarse blocking traces fast (128 heads x
// 16K: makespan -15% at c = 8). With the prefetch the latency hides under the products at any
// c, so the makespan moves little. The prefetch keeps the kernel's distance of one block: the
// step that computes blocks [g c, g c + c) requests [g c + 1, g c + c + 1) (the first request
// is block 0 alone), so a workgroup holds c + 1 blocks of K (and of V) in flight or in use
// where the kernel holds 2, and each block is requested at most c - 1 blocks' products early.
// (Round 4 requested the whole next group: 2c blocks.) What the coarsening then moves is the L2
// hit rate, through that footprint: the workgroups resident on a die stream S distinct KV heads
// (those of one head stream the same blocks in step), holding S (c + 1) blocks of K and of V.
// Measured on mi300x-1 against c = 1 (docs/performance.md, round 5: 25 cases, 8K to 64K tokens,
// 16 to 128 heads, GQA, causal, all four mappings, c = 2 to 16): without a causal mask, every
// point whose footprint stayed within 1.52 L2s of a die kept the L2 hit rate within 0.010 and
// the makespan within 0.5%, every point from 2.12 L2s on moved the hit rate by 0.022 to 0.75. The default (`kv_blocks_per_op: 0`) therefore takes the largest power of two up to 16
// whose footprint fits in 1.5 L2s (kv_blocks_per_op_of): 16 for head-first mappings at long
// sequences (a die's workgroups share a few heads), 2 to 8 at 8K-16K, 4 for swizzled
// block-first (every head on every die), 1 where even the kernel's footprint overflows. Causal
// kernels take at most 4: their workgroups differ in length, and 16 heads x 64K moved by 0.028
// at c = 8 with a footprint of 0.9 L2s (at c = 4 every causal case stayed within 0.003, with
// makespans 1.8% to 3.6% short). c = 1 is the uncoarsened kernel, op for op.
//
// ranks > 1: every rank runs the same attention on its own copy of the buffers (independent
// replicas, e.g. data parallel); nothing moves between GPUs.
#include <cstdint>
#include <optional>

#include "models/compute/compute_timing.h"
#include "models/compute/occupancy.h"
#include "models/system/system_spec.h"
#include "sim/config/schema.h"
#include "workloads/patterns/attention_mapping.h"
#include "workloads/patterns/param_problem.h"
#include "workloads/trace/trace.h"

namespace tessera::workloads::patterns {

struct AttentionParams {
  // The paper's largest MHA case (its sweep: HQ = HK in {8..128}, head dim 128, sequence
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
  // KV blocks per load / compute op (see above); 0: automatic, kv_blocks_per_op_of().
  std::uint32_t kv_blocks_per_op = 0;
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

// What each of a KV block's two products asks of the CU besides its matrix work, as the suite's
// kernel runs them (kernels/patterns/attention.hip; waves of 16 Q rows, W = block_m / 16, K and V
// staged in shared memory, fragments 16 x 16):
//   S = Q K^T and the softmax: the K block stored (block_n D e bytes) and read by every wave
//     (W block_n D e), S written as fp32 (4 block_m block_n, at two bank cycles: below), read back
//     by the softmax and P written (below); one exp2 per score and one per row rescale
//     (block_m block_n + block_m sfu ops); scale, max, subtract and sum per score (4 block_m block_n
//     vector ops).
//   O += P V: the V block stored and read by every wave (block_n D e + W block_n D e), P read as
//     fragments (block_m block_n e), the products through the fp32 scratch (4 block_m D written at
//     two bank cycles, read at one); the rescale of O (block_m D fused multiply-adds).
// Phases (stretches between the kernel's barriers): four in the first (before and after the K
// store, after S, after the row maxima), two in the second (after P, after the products' round).
// Shared memory is charged by the bank cycles an access takes (128 bytes each): the softmax reads
// S one 4-byte score per lane with the rows of a wave's strip 8 apart on the same banks (rows
// padded by 4 floats), two cycles per 128 bytes (2 x 4 block_m block_n); it writes P one 2-byte
// value per lane, likewise two-way, two cycles per 64 bytes (4 x block_m block_n e). A 16 x 16 fp32
// accumulator fragment is stored as 8 bytes per lane, four rows of 32 bytes per half-warp, and the
// rows of S (68 floats apart) and of the scratch (16 apart) overlap in the banks: two cycles per 128
// bytes. Nsight Compute on an H200 counts exactly these stores: 720 per KV block taking 2320 bank
// cycles, 1024 of them conflicts (validation/data/h200-1-ncu/).
// e = element bytes, D = head_dim. A group of c blocks asks c times as much.
struct ProductDemand {
  std::int64_t lds_bytes = 0;
  std::int64_t sfu_ops = 0;
  std::int64_t vector_ops = 0;
  std::int64_t phases = 0;
};
struct KvBlockDemand {
  ProductDemand scores;  // S = Q K^T and the softmax
  ProductDemand values;  // O += P V
};
KvBlockDemand kv_block_demand(const AttentionParams& params);

// What one workgroup of the suite's kernel takes of an SM (trace::Kernel's footprint): block_m / 16
// waves; its shared memory (the K/V tile of block_n rows padded to head_dim + 8 halves, per wave
// the larger of S in fp32 and P with the products' fp32 scratch, the row maxima and rescales); and
// its registers as ptxas reports them for sm_90 (nvcc 13): 255 per lane at head_dim 128, 197 at 64
// (0, not given, at other head dims). At 255 x 256 lanes one workgroup fills an SM's registers.
models::compute::Footprint attention_footprint(const AttentionParams& params);

// The coarsening c in use on `system` (see "Coarsening" above): kv_blocks_per_op when set, else
// the largest power of two up to 16 (4 when causal; 1 at least) for which S (c + 1) KV blocks
// of K and as many of V fit in 1.5 L2s of a die, S = resident_kv_heads().
std::uint32_t kv_blocks_per_op_of(const AttentionParams& params, const models::SystemSpec& system);

// The most distinct KV heads that the workgroups resident on one die at once stream: each die's
// workgroups, in dispatch order, fill its compute_units_per_die x workgroup_slots_per_cu slots,
// each for as long as it streams KV blocks (so causal workgroups, shorter, turn over faster);
// the first 64 x slots workgroups of each die.
std::uint64_t resident_kv_heads(const AttentionParams& params, const models::SystemSpec& system);

// The KV blocks Q block `q_block` streams: all of them, or up to its diagonal when causal.
std::uint64_t kv_blocks_of(const AttentionParams& params, std::uint64_t q_block);

std::uint32_t ranks_of(const AttentionParams& params, const models::SystemSpec& system);

// What the parameters or the system make impossible, naming the key.
std::optional<ParamProblem> check_against_system(const AttentionParams& params, const models::SystemSpec& system);

// The trace; throws std::invalid_argument naming the key of an impossible parameter.
trace::Trace make_attention(const AttentionParams& params, const models::SystemSpec& system);

}  // namespace tessera::workloads::patterns

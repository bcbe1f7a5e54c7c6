#include "workloads/patterns/attention.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "workloads/patterns/gemm_tiling.h"

namespace tessera::workloads::patterns {

using trace::Expr;

namespace {

// Registers of the attention program (r0 = the logical id, kRegPid, from the kernel argument).
constexpr int kRegBh = 1;        // batch * q_heads + q head
constexpr int kRegBlock = 2;     // Q block
constexpr int kRegQOffset = 3;   // first byte of the Q (and O) block
constexpr int kRegKvOffset = 4;  // first byte of the KV head's rows
constexpr int kRegKvBlocks = 5;  // KV blocks this workgroup streams
constexpr int kRegLeft = 6;      // (KV blocks % c) + c - 1: the remainder group's count and size

constexpr double kMaxSeq = 1 << 24;
// Above any count of KV blocks (seq_len <= kMaxSeq, block_n >= 1): (x + d - 1) / d is 1 for
// 1 <= x < d and 0 for x = 0.
constexpr std::uint32_t kHasDivisor = 1u << 30;
constexpr std::uint64_t kMaxDivisor = 0xFFFF'FFFFULL;
// The automatic coarsening (attention.h): at most this many KV blocks per op (the largest
// measured against the uncoarsened trace), and at most the second when causal.
constexpr std::uint32_t kMaxAutoKvBlocksPerOp = 16;
constexpr std::uint32_t kMaxAutoKvBlocksPerOpCausal = 4;
// Workgroups per die, in units of its slots, that resident_kv_heads follows.
constexpr std::uint64_t kResidentSpan = 64;

std::int64_t i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

std::optional<ParamProblem> params_problem(const AttentionParams& p) {
  if (p.batch == 0 || p.q_heads == 0 || p.head_dim == 0) {
    return ParamProblem{p.batch == 0 ? "batch" : p.q_heads == 0 ? "q_heads" : "head_dim", "must be positive"};
  }
  if (p.block_m == 0 || p.block_n == 0) {
    return ParamProblem{p.block_m == 0 ? "block_m" : "block_n", "must be positive"};
  }
  const std::uint32_t kv_heads = p.kv_heads == 0 ? p.q_heads : p.kv_heads;
  if (p.q_heads % kv_heads != 0) {
    return ParamProblem{"kv_heads", fmt::format("q_heads ({}) must be a multiple of kv_heads ({}): each KV head "
                                                "serves q_heads / kv_heads query heads", p.q_heads, kv_heads)};
  }
  if (p.seq_len == 0 || p.seq_len % p.block_m != 0 || p.seq_len % p.block_n != 0) {
    return ParamProblem{"seq_len", fmt::format("seq_len ({}) must be a positive multiple of block_m ({}) and "
                                               "block_n ({}): the kernel has no masked edge blocks",
                                               p.seq_len, p.block_m, p.block_n)};
  }
  const AttentionShape s = shape_of(p);
  if (s.grid.workgroups() > kMaxDivisor / 2) {
    return ParamProblem{"seq_len", fmt::format("{} workgroups are more than a trace can index", s.grid.workgroups())};
  }
  if (s.q_bytes() > (1ULL << 56)) return ParamProblem{"seq_len", "a buffer of more than 2^56 bytes"};
  return std::nullopt;
}

struct Buffers {
  std::uint32_t q = 0, k = 0, v = 0, o = 0;
};

// One of a group's two products: `blocks` KV blocks' worth of matrix work and pipe demand.
void append_product(trace::ProgramBuilder& prog, models::compute::Dtype dtype, const Expr& blocks,
                    std::int64_t block_flops, const ProductDemand& demand) {
  prog.compute(blocks * block_flops, dtype, blocks * demand.lds_bytes, blocks * demand.sfu_ops,
               blocks * demand.vector_ops, blocks * demand.phases);
}

// The KV loop with K and V prefetched one KV block ahead (attention.h, "Prefetch"), as the
// kernel does: block j + 1 is requested when the product of block j starts. Coarse, a step
// computes a group of c blocks [g c, g c + c) and requests the next c blocks shifted by one,
// [g c + 1, g c + c + 1), so the blocks in flight or in use are c + 1, not the 2c of a whole
// group ahead. With n KV blocks: block 0 first, H = (n - 1) / c full groups, then the last
// group of P = n - H c blocks (1..c), whose own blocks after its first, P - 1 of them, arrive
// during it and are waited for before the store. Expressions are linear and loops have no
// conditions, so "P >= 2" is a register T, the count of a loop that runs once or not at all
// (no zero-byte load is issued). c = 1 is the kernel's loop, op for op.
void append_pipelined_kv_loop(trace::ProgramBuilder& prog, const AttentionParams& p, const AttentionShape& s,
                              const Buffers& b, std::uint32_t c32) {
  constexpr std::uint8_t kSlotK = 0;
  constexpr std::uint8_t kSlotV = 1;
  // Registers free once the offsets are set (r1 and r2 only served to compute them).
  constexpr int kRegFull = kRegBh;     // H: full groups before the last
  constexpr int kRegLast = kRegBlock;  // P: blocks of the last group
  constexpr int kRegHasTail = kRegLeft;  // T = 1 when P >= 2, else 0
  const auto c = static_cast<std::int64_t>(c32);
  const std::int64_t kv_block = i64(s.kv_block_bytes);
  const auto block_flops = static_cast<std::int64_t>(s.flops_per_kv_block / 2);  // one of the two products
  const Expr kv = trace::reg(kRegKvOffset);
  const Expr last = trace::reg(kRegLast);

  // (A division applies to one register: set the dividend first.)
  prog.set(kRegFull, trace::reg(kRegKvBlocks) - Expr(1));
  prog.set(kRegFull, trace::div(trace::reg(kRegFull), c32));
  prog.set(kRegLast, trace::reg(kRegKvBlocks) - trace::reg(kRegFull) * c);
  if (c > 1) {
    prog.set(kRegHasTail, trace::reg(kRegLast) + Expr(kHasDivisor - 2));
    prog.set(kRegHasTail, trace::div(trace::reg(kRegHasTail), kHasDivisor));
  }
  const auto prefetch = [&](std::uint8_t slot, std::uint32_t buffer, const Expr& offset, const Expr& bytes) {
    prog.load_async(buffer, trace::rank(), offset, bytes, slot);
  };
  // One step: the group in the tiles is computed while the next blocks arrive (as the suite's
  // kernel does: the next K is requested before S = Q K^T, the next V before O += P V).
  const KvBlockDemand demand = kv_block_demand(p);
  const auto step = [&](const Expr& blocks, const std::optional<Expr>& next_offset, const Expr& next_bytes) {
    prog.wait_load(kSlotK);
    if (next_offset) prefetch(kSlotK, b.k, *next_offset, next_bytes);
    append_product(prog, p.dtype, blocks, block_flops, demand.scores);  // S = Q K^T
    prog.wait_load(kSlotV);
    if (next_offset) prefetch(kSlotV, b.v, *next_offset, next_bytes);
    append_product(prog, p.dtype, blocks, block_flops, demand.values);  // O += P V
  };

  prefetch(kSlotK, b.k, kv, Expr(kv_block));
  prefetch(kSlotV, b.v, kv, Expr(kv_block));
  // Full group g = 0..H-1: blocks [g c, g c + c), with [g c + 1, g c + c + 1) arriving.
  prog.loop(trace::reg(kRegFull));
  step(Expr(c), kv + (trace::loop(0) * c + Expr(1)) * kv_block, Expr(c * kv_block));
  prog.end_loop();
  // The last group: blocks [H c, n), with [H c + 1, n) arriving (nothing at c = 1).
  if (c == 1) {
    step(last, std::nullopt, Expr(0));
    return;
  }
  prog.loop(trace::reg(kRegHasTail));
  step(last, kv + (trace::reg(kRegFull) * c + Expr(1)) * kv_block, (last - Expr(1)) * kv_block);
  prog.end_loop();
  prog.loop(Expr(1) - trace::reg(kRegHasTail));
  step(last, std::nullopt, Expr(0));
  prog.end_loop();
  prog.wait_load(kSlotK);
  prog.wait_load(kSlotV);
}

// The program of one workgroup (see attention.h), c32 KV blocks per op.
trace::ProgramBuilder attention_program(const AttentionParams& p, const AttentionShape& s, const Buffers& b,
                                        std::uint32_t c32) {
  const auto c = static_cast<std::int64_t>(c32);
  const std::int64_t kv_block = i64(s.kv_block_bytes);
  const auto block_flops = static_cast<std::int64_t>(s.flops_per_kv_block / 2);  // one of the two products
  const Expr kv_offset = trace::reg(kRegKvOffset);

  trace::ProgramBuilder prog("attention");
  append_attention_coord(prog, s.grid, p.mapping, kRegBh, kRegBlock);
  prog.set(kRegQOffset, trace::reg(kRegBh) * i64(s.head_bytes) + trace::reg(kRegBlock) * i64(s.q_block_bytes));
  // q head h of batch b reads KV head b * kv_heads + h / group = bh / group (q_heads is a
  // multiple of group).
  prog.set(kRegKvOffset, trace::div(trace::reg(kRegBh), static_cast<std::uint32_t>(s.group)) * i64(s.head_bytes));
  if (p.causal) {
    // ceil((m + 1) * block_m / block_n) = (m * block_m + block_m + block_n - 1) / block_n.
    prog.set(kRegKvBlocks, trace::reg(kRegBlock) * p.block_m + Expr(i64(p.block_m) + p.block_n - 1));
    prog.set(kRegKvBlocks, trace::div(trace::reg(kRegKvBlocks), p.block_n));
  } else {
    prog.set(kRegKvBlocks, i64(s.kv_blocks));
  }

  prog.load(b.q, trace::rank(), trace::reg(kRegQOffset), i64(s.q_block_bytes));
  if (p.prefetch) {
    append_pipelined_kv_loop(prog, p, s, b, c32);
    prog.store(b.o, trace::rank(), trace::reg(kRegQOffset), i64(s.q_block_bytes));
    return prog;
  }
  const KvBlockDemand demand = kv_block_demand(p);
  const auto group_ops = [&](const Expr& first, const Expr& bytes, const Expr& blocks) {
    prog.load(b.k, trace::rank(), first, bytes);
    append_product(prog, p.dtype, blocks, block_flops, demand.scores);  // S = Q K^T
    prog.load(b.v, trace::rank(), first, bytes);
    append_product(prog, p.dtype, blocks, block_flops, demand.values);  // O += P V
  };
  // Whole groups of c KV blocks.
  prog.loop(trace::div(trace::reg(kRegKvBlocks), c32));
  group_ops(kv_offset + trace::loop(0) * (c * kv_block), c * kv_block, Expr(c));
  prog.end_loop();
  // The remainder r = blocks % c, as a loop of (r + c - 1) / c = (r > 0 ? 1 : 0) iterations, so
  // that no zero-byte op is issued.
  prog.set(kRegLeft, trace::mod(trace::reg(kRegKvBlocks), c32) + Expr(c - 1));
  prog.loop(trace::div(trace::reg(kRegLeft), c32));
  const Expr left = trace::reg(kRegLeft) - Expr(c - 1);
  group_ops(kv_offset + trace::div(trace::reg(kRegKvBlocks), c32) * (c * kv_block), left * kv_block, left);
  prog.end_loop();
  prog.store(b.o, trace::rank(), trace::reg(kRegQOffset), i64(s.q_block_bytes));
  return prog;
}

// The suite's kernel: a wave of 32 lanes per 16 Q rows of the workgroup's block.
constexpr std::int64_t kStripRows = 16;
constexpr std::int64_t kWaveLanes = 32;
constexpr std::int64_t kFp32Bytes = 4;

std::int64_t waves_of(const AttentionParams& p) { return std::max<std::int64_t>(1, p.block_m / kStripRows); }

}  // namespace

KvBlockDemand kv_block_demand(const AttentionParams& p) {
  constexpr std::int64_t kScoreReadCycles = 2;        // per 128 bytes: two-way bank conflicts
  constexpr std::int64_t kProbStoreCycles = 4;         // per 128 bytes: 64 bytes per access, two-way
  constexpr std::int64_t kAccumulatorStoreCycles = 2;  // per 128 bytes: fragment rows overlapping in the banks
  const auto bm = static_cast<std::int64_t>(p.block_m);
  const auto bn = static_cast<std::int64_t>(p.block_n);
  const auto d = static_cast<std::int64_t>(p.head_dim);
  const auto e = static_cast<std::int64_t>(shape_of(p).elem_bytes);
  const std::int64_t waves = waves_of(p);
  const std::int64_t kv_tile = bn * d * e;
  KvBlockDemand k;
  k.scores.lds_bytes = kv_tile + waves * kv_tile + kAccumulatorStoreCycles * kFp32Bytes * bm * bn +
                       kScoreReadCycles * kFp32Bytes * bm * bn + kProbStoreCycles * bm * bn * e;
  k.scores.sfu_ops = bm * bn + bm;
  k.scores.vector_ops = 4 * bm * bn;
  k.scores.phases = 4;
  k.values.lds_bytes = kv_tile + waves * kv_tile + bm * bn * e + (kAccumulatorStoreCycles + 1) * kFp32Bytes * bm * d;
  k.values.vector_ops = bm * d;
  k.values.phases = 2;
  return k;
}

models::compute::Footprint attention_footprint(const AttentionParams& p) {
  const auto bn = static_cast<std::int64_t>(p.block_n);
  const auto d = static_cast<std::int64_t>(p.head_dim);
  const std::int64_t waves = waves_of(p);
  const std::int64_t scores = kStripRows * (bn + 4) * kFp32Bytes;  // S, padded rows
  const std::int64_t probs_and_scratch = kStripRows * (bn + 8) * 2 + (d / kStripRows) * kStripRows * kStripRows * kFp32Bytes;
  models::compute::Footprint f;
  f.waves = static_cast<std::uint32_t>(waves);
  f.registers = d == 128 ? 255 : d == 64 ? 197 : 0;
  f.lds_bytes = static_cast<std::uint64_t>(bn * (d + 8) * 2 + waves * std::max(scores, probs_and_scratch) +
                                           waves * kWaveLanes * kFp32Bytes + waves * kStripRows * kFp32Bytes);
  return f;
}

const sim::config::Schema<AttentionParams>& attention_schema() {
  using S = sim::config::Schema<AttentionParams>;
  static const S s =
      S("attention",
        "Flash-Attention-2 forward on one GPU: one workgroup per block_m-row Q block of a (batch, head), streaming "
        "its head's K and V (arXiv 2511.02132)")
          .count("batch", &AttentionParams::batch, "sequences").range(1, 1 << 16)
          .count("q_heads", &AttentionParams::q_heads, "query heads").range(1, 1 << 16)
          .count("kv_heads", &AttentionParams::kv_heads,
                 "key/value heads; q_heads must be a multiple; 0: q_heads (MHA)")
          .range(0, 1 << 16)
          .count("seq_len", &AttentionParams::seq_len,
                 "tokens of Q and of K/V; a multiple of block_m and block_n")
          .range(1, kMaxSeq)
          .count("head_dim", &AttentionParams::head_dim, "elements per head row").range(1, 4096)
          .count("block_m", &AttentionParams::block_m, "Q rows per workgroup").range(1, 4096)
          .count("block_n", &AttentionParams::block_n, "K/V rows per KV block (one loop iteration)").range(1, 4096)
          .choice("dtype", &AttentionParams::dtype, dtype_choices(), "element type of Q, K, V and O")
          .boolean("causal", &AttentionParams::causal,
                   "Q block m streams only the KV blocks up to its diagonal (computed whole and masked)")
          .choice("mapping", &AttentionParams::mapping, attention_mapping_choices(),
                  "which launched workgroup computes which (batch, head, Q block); workgroup i runs on die i mod D. "
                  "naive_head_first: consecutive ids take consecutive Q blocks of one head (the usual FA2 grid); "
                  "naive_block_first: consecutive ids take one Q block of consecutive heads; swizzled_*: the same "
                  "orders after the chiplet swizzle, so that each die gets a contiguous range of them "
                  "(swizzled_head_first: every block of a head on one die, one head at a time)")
          .boolean("prefetch", &AttentionParams::prefetch,
                   "K and V are loaded one KV block ahead of the products (software pipelining, as FA2 kernels and "
                   "the suite's attention kernel do); false: every load blocks the workgroup before its product")
          .count("kv_blocks_per_op", &AttentionParams::kv_blocks_per_op,
                 "KV blocks moved or computed by one trace op (coarsening for replay speed; bytes and FLOPs stay "
                 "exact, loads and products interleave in steps of this many blocks); 1: one op per block; 0: "
                 "automatic, the largest power of two up to 16 (4 when causal) whose added K/V footprint of the "
                 "workgroups resident on a die fits in 1.5 of its L2s (docs/performance.md, round 5)")
          .range(0, 1 << 20)
          .count("ranks", &AttentionParams::ranks,
                 "GPUs each running the same attention on its own buffers; 0: all GPUs of the system")
          .range(0, 1 << 16)
          .check([](const AttentionParams& p) -> std::optional<std::string> {
            if (auto problem = params_problem(p)) return problem->key + ": " + problem->message;
            return std::nullopt;
          });
  return s;
}

AttentionShape shape_of(const AttentionParams& p) {
  AttentionShape s;
  s.grid.batch = p.batch;
  s.grid.q_heads = p.q_heads;
  s.grid.q_blocks = p.block_m == 0 ? 0 : p.seq_len / p.block_m;
  s.kv_heads = p.kv_heads == 0 ? p.q_heads : p.kv_heads;
  s.group = s.kv_heads == 0 ? 1 : p.q_heads / s.kv_heads;
  s.kv_blocks = p.block_n == 0 ? 0 : p.seq_len / p.block_n;
  s.elem_bytes = element_bytes(p.dtype);
  const std::uint64_t row_bytes = std::uint64_t{p.head_dim} * s.elem_bytes;
  s.head_bytes = p.seq_len * row_bytes;
  s.q_block_bytes = p.block_m * row_bytes;
  s.kv_block_bytes = p.block_n * row_bytes;
  s.flops_per_kv_block = 4.0 * p.block_m * p.block_n * p.head_dim;
  return s;
}

std::uint64_t resident_kv_heads(const AttentionParams& p, const models::SystemSpec& system) {
  const AttentionShape s = shape_of(p);
  const models::ComputeSpec& compute = system.gpu.compute;
  const std::uint32_t dies = std::max<std::uint32_t>(compute.num_dies, 1);
  const std::uint64_t slots = std::max<std::uint64_t>(
      std::uint64_t{compute.compute_units_per_die} * compute.workgroup_slots_per_cu, 1);
  const std::uint64_t grid = s.grid.workgroups();
  // Per die, its workgroups in dispatch order fill `slots` slots, each for as long as it streams
  // KV blocks (one unit per block), the next one taking the first slot to free. The mappings are
  // periodic in the heads, so the first kResidentSpan x slots workgroups of a die show its steady
  // state (the whole grid at the speed target) and an absurd grid costs milliseconds.
  const std::uint64_t span = kResidentSpan * slots;
  struct Resident {
    std::uint64_t end;
    std::uint64_t order;  // ties: the earlier dispatched frees first
    std::uint64_t kv_head;
    bool operator>(const Resident& o) const { return end != o.end ? end > o.end : order > o.order; }
  };
  std::uint64_t most = 0;
  std::vector<Resident> heap;
  std::unordered_map<std::uint64_t, std::uint64_t> held;  // KV head -> its resident workgroups
  for (std::uint32_t die = 0; die < dies; ++die) {
    heap.clear();
    held.clear();
    std::uint64_t now = 0;
    std::uint64_t order = 0;
    for (std::uint64_t k = 0, wg = die; k < span && wg < grid; ++k, wg += dies) {
      if (heap.size() == slots) {
        std::pop_heap(heap.begin(), heap.end(), std::greater<>{});
        now = heap.back().end;
        if (--held[heap.back().kv_head] == 0) held.erase(heap.back().kv_head);
        heap.pop_back();
      }
      const AttentionCoord c = attention_coord(s.grid, dies, p.mapping, wg);
      const std::uint64_t kv_head = (c.batch * s.grid.q_heads + c.head) / s.group;
      heap.push_back({now + kv_blocks_of(p, c.q_block), order++, kv_head});
      std::push_heap(heap.begin(), heap.end(), std::greater<>{});
      ++held[kv_head];
      most = std::max<std::uint64_t>(most, held.size());
    }
  }
  return most;
}

std::uint32_t kv_blocks_per_op_of(const AttentionParams& p, const models::SystemSpec& system) {
  if (p.kv_blocks_per_op != 0) return p.kv_blocks_per_op;
  const AttentionShape s = shape_of(p);
  const std::uint64_t heads = resident_kv_heads(p, system);
  const std::uint64_t l2 = system.gpu.memory.l2.capacity_bytes;
  // S (c + 1) blocks of K and as many of V within 1.5 L2s, for c doubled.
  const auto fits = [&](std::uint64_t c) { return 2 * (heads * (c + 1) * 2 * s.kv_block_bytes) <= 3 * l2; };
  const std::uint32_t most = p.causal ? kMaxAutoKvBlocksPerOpCausal : kMaxAutoKvBlocksPerOp;
  std::uint32_t c = 1;
  while (c < most && fits(2 * std::uint64_t{c})) c *= 2;
  return c;
}

std::uint64_t kv_blocks_of(const AttentionParams& p, std::uint64_t q_block) {
  if (!p.causal) return p.seq_len / p.block_n;
  return ((q_block + 1) * p.block_m + p.block_n - 1) / p.block_n;
}

std::uint32_t ranks_of(const AttentionParams& p, const models::SystemSpec& system) {
  return p.ranks != 0 ? p.ranks : system.num_gpus;
}

std::optional<ParamProblem> check_against_system(const AttentionParams& p, const models::SystemSpec& system) {
  const std::uint32_t ranks = ranks_of(p, system);
  if (auto problem = ranks_problem(ranks, system)) return problem;
  if (auto problem = params_problem(p)) return problem;
  const AttentionShape s = shape_of(p);
  if (auto problem = attention_mapping_problem(s.grid, system.gpu.compute.num_dies, p.mapping)) {
    return ParamProblem{"mapping", *problem};
  }
  return std::nullopt;
}

trace::Trace make_attention(const AttentionParams& p, const models::SystemSpec& system) {
  throw_if_problem("attention", check_against_system(p, system));
  const AttentionShape s = shape_of(p);
  const std::uint32_t ranks = ranks_of(p, system);

  trace::TraceBuilder tb(ranks);
  Buffers b;
  b.q = tb.buffer("Q", s.q_bytes());
  b.k = tb.buffer("K", s.kv_bytes());
  b.v = tb.buffer("V", s.kv_bytes());
  b.o = tb.buffer("O", s.q_bytes());
  const std::uint32_t program = tb.program(attention_program(p, s, b, kv_blocks_per_op_of(p, system)));
  const std::uint64_t grid = s.grid.workgroups();
  for (std::uint32_t rank = 0; rank < ranks; ++rank) {
    trace::Kernel k;
    k.name = "attention";
    k.rank = rank;
    k.grid = grid;
    k.program = program;
    k.args = {attention_logical_id_expr(s.grid, system.gpu.compute.num_dies, p.mapping)};
    k.footprint = attention_footprint(p);
    tb.launch(std::move(k));
  }
  tb.sync_all();
  return std::move(tb).build();
}

}  // namespace tessera::workloads::patterns

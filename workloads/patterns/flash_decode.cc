#include "workloads/patterns/flash_decode.h"

#include <fmt/format.h>

#include "workloads/patterns/flash_decode_kernels.h"
#include "workloads/patterns/gemm_tiling.h"

namespace tessera::workloads::patterns {

namespace {

constexpr double kMaxHeads = 1 << 16;

CombineDelivery delivery_of(FlashDecodeVariant v) {
  switch (v) {
    case FlashDecodeVariant::kBsp: return CombineDelivery::kLocal;
    case FlashDecodeVariant::kFusedCoarse: return CombineDelivery::kPushCoarse;
    case FlashDecodeVariant::kFused: return CombineDelivery::kPushPerTile;
  }
  return CombineDelivery::kLocal;
}

}  // namespace

const std::vector<std::pair<std::string, FlashDecodeVariant>>& flash_decode_variant_choices() {
  static const std::vector<std::pair<std::string, FlashDecodeVariant>> names{
      {"bsp", FlashDecodeVariant::kBsp},
      {"fused_coarse", FlashDecodeVariant::kFusedCoarse},
      {"fused", FlashDecodeVariant::kFused}};
  return names;
}

const sim::config::Schema<FlashDecodeParams>& flash_decode_schema() {
  using S = sim::config::Schema<FlashDecodeParams>;
  static const S s =
      S("flash_decode",
        "Distributed flash decode: KV cache sharded along the sequence, split-KV attention per rank, "
        "partials exchanged and reduced on every rank (Iris examples, arXiv 2511.12500)")
          .count("batch", &FlashDecodeParams::batch, "sequences, one query token each").range(1, 1 << 16)
          .count("q_heads", &FlashDecodeParams::q_heads, "query heads").range(1, kMaxHeads)
          .count("kv_heads", &FlashDecodeParams::kv_heads, "K/V heads; q_heads / kv_heads is the GQA group")
          .range(1, kMaxHeads)
          .count("head_dim", &FlashDecodeParams::head_dim, "elements per head").range(1, 4096)
          .count("kv_len_per_rank", &FlashDecodeParams::kv_len_per_rank,
                 "KV tokens of every sequence on each rank; a multiple of kv_splits x block_n")
          .range(1, 1ULL << 32)
          .count("kv_splits", &FlashDecodeParams::kv_splits, "splits of each rank's KV per (sequence, KV head)")
          .range(1, 1 << 16)
          .count("ranks", &FlashDecodeParams::ranks, "GPUs taking part; 0: all GPUs of the system").range(0, 1 << 16)
          .choice("dtype", &FlashDecodeParams::dtype, dtype_choices(), "element type of Q, K, V, partials and output")
          .count("block_n", &FlashDecodeParams::block_n, "KV tokens per block of the split-KV loop").range(1, 1 << 16)
          .count("block_h", &FlashDecodeParams::block_h,
                 "query-head rows of the matrix tile; a workgroup takes min(block_h, group) heads of one KV head")
          .range(1, 4096)
          .count("blocks_per_op", &FlashDecodeParams::blocks_per_op,
                 "KV blocks per load/compute op of the trace (coarsening; 1: one op per block)")
          .range(1, 1 << 20)
          .boolean("shared_kv", &FlashDecodeParams::shared_kv,
                   "every sequence reads the same KV cache, as the Iris benchmark's block table does")
          .choice("variant", &FlashDecodeParams::variant, flash_decode_variant_choices(),
                  "bsp: combine, all-gather kernel, global reduce; fused_coarse: push, one flag per rank pair; "
                  "fused: push, one flag per (source, batch, head)")
          .choice("peer_order", &FlashDecodeParams::peer_order, peer_order_choices(),
                  "order of the destinations a combine pushes to and of the sources the reduce reads")
          .choice("collective", &FlashDecodeParams::collective, bsp_collective_choices(),
                  "bsp: the all-gather: Tessera's ring or one_shot kernel, or NCCL's or RCCL's own choice")
          .count("collective_workgroups", &FlashDecodeParams::collective_workgroups,
                 "bsp: all-gather channels of Tessera's kernels")
          .range(1, 1 << 16)
          .bytes("collective_chunk", &FlashDecodeParams::collective_chunk_bytes,
                 "bsp: the largest piece an all-gather channel of Tessera's kernels moves at once")
          .range(128, 1ULL << 40)
          .choice("host", &FlashDecodeParams::host, bsp_host_choices(),
                  "bsp: none, kernels back to back; pytorch, the system's host.framework_op / "
                  "framework_collective before each launch, one process per GPU")
          .check([](const FlashDecodeParams& p) -> std::optional<std::string> {
            if (auto problem = layout_problem(layout_of(p, 1))) return problem->key + ": " + problem->message;
            return std::nullopt;
          });
  return s;
}

std::uint32_t ranks_of(const FlashDecodeParams& p, const models::SystemSpec& system) {
  return p.ranks != 0 ? p.ranks : system.num_gpus;
}

FlashDecodeLayout layout_of(const FlashDecodeParams& p, std::uint32_t ranks) {
  FlashDecodeLayout l;
  l.ranks = ranks;
  l.batch = p.batch;
  l.q_heads = p.q_heads;
  l.kv_heads = p.kv_heads;
  l.head_dim = p.head_dim;
  l.kv_len = p.kv_len_per_rank;
  l.splits = p.kv_splits;
  l.block_n = p.block_n;
  l.block_h = p.block_h;
  l.blocks_per_op = p.blocks_per_op;
  l.elem_bytes = element_bytes(p.dtype);
  l.shared_kv = p.shared_kv;
  return l;
}

std::optional<ParamProblem> check_against_system(const FlashDecodeParams& p, const models::SystemSpec& system) {
  const std::uint32_t ranks = ranks_of(p, system);
  if (auto problem = ranks_problem(ranks, system)) return problem;
  if (p.variant == FlashDecodeVariant::kBsp) {
    if (auto problem = host_problem(p.host, system)) return problem;
  }
  return layout_problem(layout_of(p, ranks));
}

trace::Trace make_flash_decode(const FlashDecodeParams& p, const models::SystemSpec& system) {
  throw_if_problem("flash_decode", check_against_system(p, system));
  const FlashDecodeLayout l = layout_of(p, ranks_of(p, system));

  trace::TraceBuilder tb(l.ranks);
  FlashDecodeBuffers buf;
  buf.q = tb.buffer("Q", l.q_bytes());
  buf.k = tb.buffer("K", l.kv_bytes());
  buf.v = tb.buffer("V", l.kv_bytes());
  buf.partials = tb.buffer("partials", l.partials_bytes());
  if (p.variant == FlashDecodeVariant::kBsp) buf.combined = tb.buffer("combined", l.combined_bytes());
  buf.gathered = tb.buffer("gathered", l.gathered_bytes());
  buf.o = tb.buffer("O", l.q_bytes());
  tb.rank_barrier();

  CombineSpec combine;
  combine.delivery = delivery_of(p.variant);
  combine.stagger_peers = p.peer_order == PeerOrder::kStaggered;
  // host: pytorch applies to bsp only (host is BspHost::kNone otherwise).
  const BspHost host = p.variant == FlashDecodeVariant::kBsp ? p.host : BspHost::kNone;
  append_framework_op(tb, l.ranks, system, host);
  append_split_kv(tb, l, buf, p.dtype);
  append_framework_op(tb, l.ranks, system, host);
  append_combine(tb, l, buf, combine);
  if (p.variant == FlashDecodeVariant::kBsp) {
    append_framework_collective(tb, l.ranks, system, host);
    if (runs_library(p.collective)) {
      LibraryCollectiveSpec ag;
      ag.name = "all_gather";
      ag.op = CollectiveOp::kAllGather;
      ag.library = p.collective;
      ag.dtype = p.dtype;
      ag.size_bytes = l.ranks * l.combined_bytes();
      ag.input_buffer = buf.combined;
      ag.output_buffer = buf.gathered;
      append_library_collective(tb, l.ranks, system, ag);
    } else {
      AllGatherSpec ag;
      ag.algorithm = tessera_all_gather(p.collective);
      ag.input_buffer = buf.combined;
      ag.output_buffer = buf.gathered;
      ag.shard_bytes = l.combined_bytes();
      ag.channels = p.collective_workgroups;
      ag.chunk_bytes = p.collective_chunk_bytes;
      append_all_gather(tb, l.ranks, ag);
    }
  }
  append_framework_op(tb, l.ranks, system, host);
  append_global_reduce(tb, l, buf, combine);
  tb.sync_all();
  return std::move(tb).build();
}

}  // namespace tessera::workloads::patterns

#include "workloads/patterns/decode.h"

#include <algorithm>

#include <fmt/format.h>

#include "workloads/patterns/gemm_tiling.h"

namespace tessera::workloads::patterns {

const sim::config::Schema<DecodeParams>& decode_schema() {
  using S = sim::config::Schema<DecodeParams>;
  constexpr double kMaxShape = 1 << 20;
  static const S s =
      S("decode",
        "One decode step of a transformer on one GPU: kernel per operator, a persistent megakernel, or chiplet-scoped "
        "tasks")
          .choice("model", &DecodeParams::model, decode_model_choices(),
                  "the transformer: a public config, or custom with every shape below given")
          .count("hidden", &DecodeParams::hidden, "hidden size; 0: the model's").range(0, kMaxShape)
          .count("heads", &DecodeParams::heads, "query heads; 0: the model's").range(0, 1 << 14)
          .count("kv_heads", &DecodeParams::kv_heads, "key/value heads (grouped-query attention); 0: the model's")
          .range(0, 1 << 14)
          .count("head_dim", &DecodeParams::head_dim, "elements per head; 0: the model's").range(0, 4096)
          .count("intermediate", &DecodeParams::intermediate, "MLP intermediate size; 0: the model's")
          .range(0, kMaxShape)
          .count("layers", &DecodeParams::layers, "decoder layers; 0: the model's").range(0, 1024)
          .count("vocab", &DecodeParams::vocab, "vocabulary (the LM head's outputs); 0: the model's")
          .range(0, 1 << 24)
          .boolean("qk_norm", &DecodeParams::qk_norm, "an RMSNorm over each query and key head before RoPE (Qwen3 has it; true adds it to another model)")
          .count("batch", &DecodeParams::batch, "sequences, one new token each").range(1, 1 << 16)
          .count("context", &DecodeParams::context, "cached tokens per sequence before this step").range(1, 1ULL << 24)
          .count("ranks", &DecodeParams::ranks,
                 "GPUs the model is split over, tensor parallel (heads, KV heads, intermediate and vocabulary "
                 "divided; o_proj and down summed over the ranks); 0: all GPUs of the system")
          .range(0, 1 << 16)
          .choice("dtype", &DecodeParams::dtype, dtype_choices(), "weights, activations and KV cache")
          .choice("variant", &DecodeParams::variant, decode_variant_choices(),
                  "kernel_per_op: a kernel per operator and layer; megakernel: one persistent kernel, tasks in a "
                  "device-wide order; chiplet_tasks: per-chiplet queues, a weight tile's tasks on one die")
          .choice("host", &DecodeParams::host, bsp_host_choices(),
                  "none: launches back to back (a captured graph); pytorch: the system's host.framework_op before "
                  "every launch (an eager engine)")
          .count("workers_per_cu", &DecodeParams::workers_per_cu, "megakernel, chiplet_tasks: persistent workers per CU")
          .range(1, 64)
          .count("block_m", &DecodeParams::block_m, "sequences per tile of a linear layer (the matrix unit's rows)")
          .range(1, 4096)
          .bytes("weight_piece", &DecodeParams::weight_piece_bytes,
                 "a linear layer's task streams its weight tile in pieces of at least this, one in flight while "
                 "the one before is multiplied (a GEMV kernel's loads in flight per workgroup)")
          .range(1024, 1ULL << 30)
          .count("kv_partition", &DecodeParams::kv_partition, "cached tokens per attention split")
          .range(1, 1ULL << 24)
          .boolean("lm_head", &DecodeParams::lm_head, "the final norm and the LM head after the layers");
  return s;
}

DecodeModel model_of(const DecodeParams& p) {
  DecodeModel m = preset_model(p.model).value_or(DecodeModel{});
  m.qk_norm = m.qk_norm || p.qk_norm;
  const auto over = [](std::uint32_t& field, std::uint32_t value) {
    if (value != 0) field = value;
  };
  over(m.hidden, p.hidden);
  over(m.heads, p.heads);
  over(m.kv_heads, p.kv_heads);
  over(m.head_dim, p.head_dim);
  over(m.intermediate, p.intermediate);
  over(m.layers, p.layers);
  over(m.vocab, p.vocab);
  return m;
}

std::uint32_t ranks_of(const DecodeParams& p, const models::SystemSpec& system) {
  return p.ranks != 0 ? p.ranks : system.num_gpus;
}

DecodeShape shape_of(const DecodeParams& p, const models::SystemSpec& system) {
  DecodeShape s;
  s.ranks = ranks_of(p, system);
  s.model = tensor_parallel_share(model_of(p), s.ranks);
  s.batch = p.batch;
  s.context = p.context;
  s.dtype = p.dtype;
  s.block_m = p.block_m;
  s.weight_piece_bytes = p.weight_piece_bytes;
  s.kv_partition = std::min(p.kv_partition, p.context);
  s.lm_head = p.lm_head;
  s.compute_units = models::total_compute_units(system.gpu);
  return s;
}

DecodeSchedule schedule_of(const DecodeParams& p) {
  return DecodeSchedule{.variant = p.variant, .host = p.host, .workers_per_cu = p.workers_per_cu};
}

std::optional<ParamProblem> check_against_system(const DecodeParams& p, const models::SystemSpec& system) {
  if (auto problem = model_problem(model_of(p))) return problem;
  if (auto problem = schedule_problem(schedule_of(p), system)) return problem;
  const std::uint32_t ranks = ranks_of(p, system);
  if (auto problem = ranks_problem(ranks, system)) return problem;
  const DecodeModel whole = model_of(p);
  for (const auto& [name, n] : {std::pair<const char*, std::uint32_t>{"heads", whole.heads},
                                {"kv_heads", whole.kv_heads}, {"intermediate", whole.intermediate},
                                {"vocab", whole.vocab}}) {
    if (n % ranks != 0) {
      return ParamProblem{"ranks", fmt::format("{} ranks do not divide the model's {} ({}): tensor parallelism splits "
                                               "them evenly", ranks, name, n)};
    }
  }
  const DecodeModel m = tensor_parallel_share(whole, ranks);
  for (const auto& [key, n] : {std::pair<const char*, std::uint64_t>{"hidden", m.hidden},
                               {"head_dim", m.head_dim}, {"intermediate", m.intermediate}, {"vocab", m.vocab}}) {
    if (n % 16 != 0) {
      return ParamProblem{key, fmt::format("{} is not a multiple of 16 (the narrowest tile of a linear layer)", n)};
    }
  }
  return std::nullopt;
}

trace::Trace make_decode(const DecodeParams& p, const models::SystemSpec& system) {
  throw_if_problem("decode", check_against_system(p, system));
  const DecodeShape shape = shape_of(p, system);
  trace::TraceBuilder tb(shape.ranks);
  const DecodeStep step = plan_decode_step(shape, tb);
  if (shape.ranks > 1) tb.rank_barrier();  // the counters start at 0 on every rank
  append_decode_schedule(tb, step, system, schedule_of(p));
  tb.sync_all();
  return std::move(tb).build();
}

}  // namespace tessera::workloads::patterns

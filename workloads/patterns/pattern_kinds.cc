#include "workloads/patterns/pattern_kinds.h"

#include "sim/config/config_error.h"
#include "workloads/patterns/ag_gemm.h"
#include "workloads/patterns/attention.h"
#include "workloads/patterns/decode.h"
#include "workloads/patterns/flash_decode.h"
#include "workloads/patterns/gemm.h"
#include "workloads/patterns/gemm_all_reduce.h"
#include "workloads/patterns/gemm_all_scatter.h"

namespace tessera::workloads::patterns {
namespace {

using sim::config::ConfigError;
using sim::config::ConfigNode;

// Reads one generator's parameters and turns a problem the system makes (too many ranks, a
// swizzle that does not divide) into a config error at the offending key.
template <class Params>
PatternKind kind_of(std::string name, std::string summary, const sim::config::Schema<Params>& (*schema)(),
                    PatternWorkload::MakeTrace<Params> make) {
  auto read = [name, schema, make](const ConfigNode& workload, const models::SystemSpec& system) {
    Params params = schema().read(workload, {.extra_keys = {"kind"}});
    if (const auto problem = check_against_system(params, system)) {
      const ConfigNode* at = workload.find(problem->key);
      throw ConfigError(at != nullptr ? *at : workload, problem->message);
    }
    return PatternWorkload(name, schema(), std::move(params), make);
  };
  return PatternKind{std::move(name), std::move(summary), std::move(read), [schema] { return schema().schema_json(); }};
}

}  // namespace

const std::vector<PatternKind>& pattern_kinds() {
  static const std::vector<PatternKind> kinds{
      kind_of<GemmParams>("gemm", "C = A·B on one GPU: persistent, grouped order, optional XCD remap", &gemm_schema,
                          &make_gemm),
      kind_of<AgGemmParams>("ag_gemm", "All-Gather + GEMM over the ranks: bsp, pull, push", &ag_gemm_schema,
                            &make_ag_gemm),
      kind_of<GemmAllScatterParams>("gemm_all_scatter",
                                    "GEMM + All-Scatter: bsp, producer_consumer, fused_sequential, wg_specialized",
                                    &gemm_all_scatter_schema, &make_gemm_all_scatter),
      kind_of<GemmAllReduceParams>("gemm_all_reduce", "GEMM + all-reduce, K sharded: bsp, one_shot, atomics",
                                   &gemm_all_reduce_schema, &make_gemm_all_reduce),
      kind_of<FlashDecodeParams>("flash_decode", "distributed split-KV flash decode: bsp, fused_coarse, fused",
                                 &flash_decode_schema, &make_flash_decode),
      kind_of<AttentionParams>("attention", "Flash-Attention-2 forward on one GPU: four workgroup-to-XCD mappings",
                               &attention_schema, &make_attention),
      kind_of<DecodeParams>("decode", "one decode step of a transformer: kernel_per_op, megakernel, chiplet_tasks",
                            &decode_schema, &make_decode),
  };
  return kinds;
}

const PatternKind* find_pattern_kind(const std::string& name) {
  for (const PatternKind& k : pattern_kinds()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

}  // namespace tessera::workloads::patterns

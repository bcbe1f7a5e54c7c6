#pragma once
// One decode step of a transformer on one GPU (kind `decode`): batch sequences each generate
// one token, attending to `context` cached tokens. The step's operators and their tasks:
// decode_step.h; the three ways to run them (kernel_per_op, megakernel, chiplet_tasks):
// decode_schedule.h. The model is a preset of a public config (Qwen3-8B, Llama-3-8B/70B) whose
// shapes the keys hidden ... vocab may override, or `custom` with every shape given.
//
// With `ranks` > 1 the model is split over the GPUs, tensor parallel (decode_step.h). The step
// starts with a host rank barrier and ends with a host sync, as one engine step does.
#include <cstdint>
#include <optional>

#include "models/system/system_spec.h"
#include "sim/config/schema.h"
#include "workloads/patterns/bsp_collective.h"
#include "workloads/patterns/decode_model.h"
#include "workloads/patterns/decode_schedule.h"
#include "workloads/patterns/decode_step.h"
#include "workloads/patterns/param_problem.h"
#include "workloads/trace/trace.h"

namespace tessera::workloads::patterns {

struct DecodeParams {
  DecodeModelPreset model = DecodeModelPreset::kQwen3_8b;
  // Overrides of the preset's shapes; 0: the preset's (custom: every one must be given).
  std::uint32_t hidden = 0;
  std::uint32_t heads = 0;
  std::uint32_t kv_heads = 0;
  std::uint32_t head_dim = 0;
  std::uint32_t intermediate = 0;
  std::uint32_t layers = 0;
  std::uint32_t vocab = 0;
  bool qk_norm = false;  // adds the per-head q/k norm to a model without it
  std::uint32_t batch = 1;
  std::uint64_t context = 4096;
  std::uint32_t ranks = 1;  // tensor parallel; 0: every GPU of the system
  models::compute::Dtype dtype = models::compute::Dtype::kBf16;
  DecodeVariant variant = DecodeVariant::kKernelPerOp;
  BspHost host = BspHost::kNone;
  std::uint32_t workers_per_cu = 1;
  std::uint32_t block_m = 16;
  std::uint64_t weight_piece_bytes = 64 << 10;
  std::uint64_t kv_partition = 512;
  bool lm_head = true;
};

// The `workload:` keys of kind `decode` (besides `kind`).
const sim::config::Schema<DecodeParams>& decode_schema();

// The model the parameters describe (the preset with its overrides).
DecodeModel model_of(const DecodeParams& params);
std::uint32_t ranks_of(const DecodeParams& params, const models::SystemSpec& system);
DecodeShape shape_of(const DecodeParams& params, const models::SystemSpec& system);
DecodeSchedule schedule_of(const DecodeParams& params);

std::optional<ParamProblem> check_against_system(const DecodeParams& params, const models::SystemSpec& system);

// The trace; throws std::invalid_argument naming the key of an impossible parameter.
trace::Trace make_decode(const DecodeParams& params, const models::SystemSpec& system);

}  // namespace tessera::workloads::patterns

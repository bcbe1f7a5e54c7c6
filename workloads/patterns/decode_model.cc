#include "workloads/patterns/decode_model.h"

#include <fmt/format.h>

namespace tessera::workloads::patterns {

std::uint64_t DecodeModel::block_parameters() const {
  const std::uint64_t h = hidden;
  const std::uint64_t attention = h * qkv_width() + q_width() * h;
  const std::uint64_t mlp = 3 * h * intermediate;
  const std::uint64_t norms = 2 * h + (qk_norm ? 2ULL * head_dim : 0);
  return attention + mlp + norms;
}

std::uint64_t DecodeModel::parameters() const {
  const std::uint64_t h = hidden;
  return std::uint64_t{layers} * block_parameters() + 2 * h * vocab + h;
}

const std::vector<std::pair<std::string, DecodeModelPreset>>& decode_model_choices() {
  static const std::vector<std::pair<std::string, DecodeModelPreset>> names{
      {"qwen3-8b", DecodeModelPreset::kQwen3_8b},
      {"llama-3-8b", DecodeModelPreset::kLlama3_8b},
      {"llama-3-70b", DecodeModelPreset::kLlama3_70b},
      {"custom", DecodeModelPreset::kCustom}};
  return names;
}

std::optional<DecodeModel> preset_model(DecodeModelPreset preset) {
  switch (preset) {
    case DecodeModelPreset::kQwen3_8b:
      // https://huggingface.co/Qwen/Qwen3-8B/blob/main/config.json
      return DecodeModel{.hidden = 4096, .heads = 32, .kv_heads = 8, .head_dim = 128, .intermediate = 12288,
                         .layers = 36, .vocab = 151936, .qk_norm = true};
    case DecodeModelPreset::kLlama3_8b:
      // https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json
      return DecodeModel{.hidden = 4096, .heads = 32, .kv_heads = 8, .head_dim = 128, .intermediate = 14336,
                         .layers = 32, .vocab = 128256, .qk_norm = false};
    case DecodeModelPreset::kLlama3_70b:
      // https://huggingface.co/meta-llama/Meta-Llama-3-70B/blob/main/config.json
      return DecodeModel{.hidden = 8192, .heads = 64, .kv_heads = 8, .head_dim = 128, .intermediate = 28672,
                         .layers = 80, .vocab = 128256, .qk_norm = false};
    case DecodeModelPreset::kCustom: return std::nullopt;
  }
  return std::nullopt;
}

std::optional<ParamProblem> model_problem(const DecodeModel& m) {
  const std::pair<const char*, std::uint32_t> fields[] = {
      {"hidden", m.hidden},         {"heads", m.heads},   {"kv_heads", m.kv_heads}, {"head_dim", m.head_dim},
      {"intermediate", m.intermediate}, {"layers", m.layers}, {"vocab", m.vocab}};
  for (const auto& [key, value] : fields) {
    if (value == 0) return ParamProblem{key, "must be given (at least 1) when model is custom"};
  }
  if (m.heads % m.kv_heads != 0) {
    return ParamProblem{"kv_heads", fmt::format("{} query heads are not a multiple of {} KV heads", m.heads, m.kv_heads)};
  }
  return std::nullopt;
}

}  // namespace tessera::workloads::patterns

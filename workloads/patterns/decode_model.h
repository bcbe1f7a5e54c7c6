#pragma once
// The transformer a decode step runs (kind `decode`): the shapes of one decoder block, how many
// blocks, the vocabulary, and presets of public models read from their published configs.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "workloads/patterns/param_problem.h"

namespace tessera::workloads::patterns {

// A dense decoder-only transformer with grouped-query attention, RMSNorm and a gated (SwiGLU)
// MLP, as Llama 3 and Qwen3 are. Field names follow the Hugging Face config.json keys.
struct DecodeModel {
  std::uint32_t hidden = 0;        // hidden_size
  std::uint32_t heads = 0;         // num_attention_heads
  std::uint32_t kv_heads = 0;      // num_key_value_heads
  std::uint32_t head_dim = 0;      // head_dim
  std::uint32_t intermediate = 0;  // intermediate_size (of the gate, of the up projection)
  std::uint32_t layers = 0;        // num_hidden_layers
  std::uint32_t vocab = 0;         // vocab_size
  bool qk_norm = false;            // an RMSNorm over each query and key head before RoPE (Qwen3)

  std::uint32_t group() const { return heads / kv_heads; }
  std::uint64_t q_width() const { return std::uint64_t{heads} * head_dim; }
  std::uint64_t kv_width() const { return std::uint64_t{kv_heads} * head_dim; }
  std::uint64_t qkv_width() const { return q_width() + 2 * kv_width(); }
  // Parameters of one decoder block and of the whole model (embedding and LM head untied).
  std::uint64_t block_parameters() const;
  std::uint64_t parameters() const;
};

enum class DecodeModelPreset : std::uint8_t { kQwen3_8b, kLlama3_8b, kLlama3_70b, kCustom };
const std::vector<std::pair<std::string, DecodeModelPreset>>& decode_model_choices();

// The preset's published shapes; nullopt for kCustom.
std::optional<DecodeModel> preset_model(DecodeModelPreset preset);

// What is wrong with a model's shapes (a zero, heads not a multiple of kv_heads), named by the
// workload key; nullopt when the model can run.
std::optional<ParamProblem> model_problem(const DecodeModel& model);

}  // namespace tessera::workloads::patterns

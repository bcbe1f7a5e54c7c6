#include "sim/config/schema.h"

#include <fmt/ranges.h>  // fmt::join

namespace tessera::sim::config {

std::string unknown_key_message(std::string_view key, const std::vector<std::string>& valid_keys) {
  if (std::optional<std::string> guess = nearest(key, valid_keys)) {
    return fmt::format("unknown key '{}'; did you mean '{}'?", key, *guess);
  }
  if (valid_keys.empty()) return fmt::format("unknown key '{}'; no keys are allowed here", key);
  return fmt::format("unknown key '{}'; valid keys: {}", key, fmt::join(valid_keys, ", "));
}

const ConfigNode& node_at(const ConfigNode& node, const std::vector<std::string>& path) {
  const ConfigNode* at = &node;
  for (const std::string& step : path) {
    const ConfigNode* next = nullptr;
    if (at->is_map()) {
      next = at->find(step);
    } else if (at->is_sequence() && !step.empty() && step.size() < 10 &&
               step.find_first_not_of("0123456789") == std::string::npos) {
      const std::size_t index = std::stoul(step);
      if (index < at->size()) next = &(*at)[index];
    }
    if (next == nullptr) return *at;
    at = next;
  }
  return *at;
}

}  // namespace tessera::sim::config

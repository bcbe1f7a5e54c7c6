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

}  // namespace tessera::sim::config

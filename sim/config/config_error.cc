#include "sim/config/config_error.h"

#include <fmt/format.h>

#include "sim/config/config_node.h"

namespace tessera::sim::config {

namespace {
std::string compose(const SourceLocation& location, const std::string& key_path, const std::string& message) {
  if (key_path.empty()) return fmt::format("{}: {}", location.to_string(), message);
  return fmt::format("{}: {}: {}", location.to_string(), key_path, message);
}
}  // namespace

ConfigError::ConfigError(SourceLocation location, std::string key_path, std::string message)
    : std::runtime_error(compose(location, key_path, message)),
      location_(std::move(location)),
      key_path_(std::move(key_path)),
      message_(std::move(message)) {}

ConfigError::ConfigError(const ConfigNode& node, std::string message)
    : ConfigError(node.location(), node.path(), std::move(message)) {}

}  // namespace tessera::sim::config

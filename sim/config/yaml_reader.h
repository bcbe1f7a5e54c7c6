#pragma once
// YAML text to a ConfigNode tree with 1-based locations. Stricter than YAML itself where
// silence would hide mistakes: duplicate keys and non-scalar keys are errors.
#include <string>
#include <string_view>

#include "sim/config/config_node.h"

namespace tessera::sim::config {

// Parses one YAML document. `display_name` is used in locations; `root_path` is the key path
// given to the root (e.g. "system" for a system file placed there). Syntax errors become
// ConfigError at the offending line and column.
ConfigNode parse_yaml(std::string_view text, const std::string& display_name, const std::string& root_path = {});

// Like parse_yaml, but every node is located at `location` (e.g. the --set flag it came from).
ConfigNode parse_yaml_at(std::string_view text, const SourceLocation& location);

}  // namespace tessera::sim::config

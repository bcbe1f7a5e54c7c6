#pragma once
// Command-line overrides: --set key.path=value. The value is YAML (so "push", "[64, 256]",
// "2.1 GHz" all work) and every node of it is located at the flag, so that a bad value is
// reported as "--set workload.m=abc: workload.m: expected an integer, got "abc"".
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/config_node.h"

namespace tessera::sim::config {

struct PathStep {
  std::string key;         // a map key, or empty for an index step
  std::size_t index = 0;   // for "b[2]"
  bool is_index = false;
};

struct Override {
  std::string flag;              // "--set workload.m=64", the location of its values
  std::string key_path;          // "workload.m"
  std::vector<PathStep> steps;   // workload, m
  ConfigNode value;

  // `--set system=NAME` chooses the system and applies before the system is resolved.
  bool selects_system() const { return steps.size() == 1 && !steps[0].is_index && steps[0].key == "system"; }
};

// The longest key path a --set may name (docs/robustness.md, "Limits").
inline constexpr std::size_t kMaxKeyPathBytes = 512;

// Parses "key.path=value" (the argument of --set). Malformed flags are ConfigErrors.
Override parse_override(std::string_view text);
std::vector<Override> parse_overrides(std::span<const std::string> texts);

// Sets the value at the path, creating missing maps on the way; list items ("a.b[2]") must
// exist. Setting inside a scalar or list is a ConfigError located at the flag.
void apply_override(ConfigNode& root, const Override& override_value);

}  // namespace tessera::sim::config

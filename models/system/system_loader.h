#pragma once
// A system alone, by name or path: what `--system` of calibrate and validate names, and what
// tests and tools below the program load a shipped system with.
#include <string>
#include <vector>

#include "models/system/system_spec.h"

namespace tessera::models {

struct ParameterRange;  // parameter_ranges.h

// `system`: a shipped system's name ("h200-2", from the files compiled into the program) or a
// path (from the working folder); fully merged (base:, include:) and checked against the schema.
// Throws sim::config::ConfigError naming file, line and key.
SystemSpec load_system_spec(const std::string& system);

// The same system's `uncertainty:` ranges (parameter_ranges.h), merged through base:/include:.
std::vector<ParameterRange> load_system_ranges(const std::string& system);

}  // namespace tessera::models

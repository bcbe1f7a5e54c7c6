#pragma once
// Finds and loads the run config the user named (or the embedded default), with --set
// overrides applied, into a checked RunSpec.
#include <optional>
#include <string>
#include <vector>

#include "sim/app/run/run_spec.h"
#include "sim/config/config_node.h"

namespace tessera::app::run {

// `config`: a path or a name the resolver knows; empty means the embedded default.
// Throws config::ConfigError on any problem, naming file, line and key (or the --set flag).
sim::config::ConfigNode load_run_config(const std::optional<std::string>& config, const std::vector<std::string>& set_flags);

RunSpec load_run_spec(const std::optional<std::string>& config, const std::vector<std::string>& set_flags);

// The embedded default config's display name, for messages.
inline constexpr const char* kDefaultConfigName = "embedded:default.yaml";

}  // namespace tessera::app::run

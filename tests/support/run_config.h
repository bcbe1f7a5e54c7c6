#pragma once
// Test set-up below the program: a run config's system and workload map read from YAML text
// the way `tessera run` reads a file (names of shipped systems resolve to the embedded files;
// errors name the display name, line and key), without linking the program's run pipeline.
#include <string>

#include "models/system/system_spec.h"
#include "sim/config/config_node.h"

namespace tessera::test {

struct RunConfigParts {
  models::SystemSpec system;
  sim::config::ConfigNode workload;  // the `workload:` map, for the kind's own reader
};

// Throws sim::config::ConfigError, as the program would.
RunConfigParts read_run_config_text(const std::string& yaml, const std::string& display_name = "test.yaml");

}  // namespace tessera::test

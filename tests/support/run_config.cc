#include "tests/support/run_config.h"

#include "models/system/parameter_ranges.h"
#include "sim/config/config_loader.h"
#include "sim/config/embedded_files.h"
#include "sim/config/file_resolver.h"

namespace tessera::test {

RunConfigParts read_run_config_text(const std::string& yaml, const std::string& display_name) {
  using namespace sim::config;
  FileResolver resolver;
  resolver.add_embedded(embedded_files());
  const ConfigNode root = ConfigLoader(resolver).load_run_text(yaml, display_name);
  return {models::read_system(root.at("system")), root.at("workload")};
}

}  // namespace tessera::test

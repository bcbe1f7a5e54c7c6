#include "models/system/system_loader.h"

#include "models/system/parameter_ranges.h"

#include "sim/config/config_loader.h"
#include "sim/config/embedded_files.h"
#include "sim/config/file_resolver.h"

namespace tessera::models {

namespace {

sim::config::ConfigNode load_system_node(const std::string& system) {
  using namespace sim::config;
  FileResolver resolver;
  resolver.add_embedded(embedded_files());
  return ConfigLoader(resolver).load_system(system);
}

}  // namespace

SystemSpec load_system_spec(const std::string& system) { return read_system(load_system_node(system)); }

std::vector<ParameterRange> load_system_ranges(const std::string& system) {
  const sim::config::ConfigNode node = load_system_node(system);
  return read_parameter_ranges(node, read_system(node));
}

}  // namespace tessera::models

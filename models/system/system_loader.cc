#include "models/system/system_loader.h"

#include "models/system/parameter_ranges.h"

#include "sim/config/config_loader.h"
#include "sim/config/embedded_files.h"
#include "sim/config/file_resolver.h"

namespace tessera::models {

SystemSpec load_system_spec(const std::string& system) {
  using namespace sim::config;
  FileResolver resolver;
  resolver.add_embedded(embedded_files());
  const ConfigLoader loader(resolver);
  return read_system(loader.load_system(system));
}

}  // namespace tessera::models

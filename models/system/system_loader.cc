#include "models/system/system_loader.h"

#include "sim/config/config_loader.h"
#include "sim/config/embedded_files.h"
#include "sim/config/file_resolver.h"

namespace tessera::models {

SystemSpec load_system_spec(const std::string& system) {
  using namespace sim::config;
  FileResolver resolver;
  resolver.add_embedded(embedded_files());
  const ConfigLoader loader(resolver);
  return system_schema().read(loader.load_system(system), {.extra_keys = {"base", "include"}});
}

}  // namespace tessera::models

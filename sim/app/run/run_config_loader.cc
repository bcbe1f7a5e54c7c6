#include "sim/app/run/run_config_loader.h"

#include <stdexcept>

#include "sim/config/config_loader.h"
#include "sim/config/embedded_files.h"
#include "sim/config/file_resolver.h"
#include "sim/config/overrides.h"

namespace tessera::app::run {

sim::config::ConfigNode load_run_config(const std::optional<std::string>& config, const std::vector<std::string>& set_flags) {
  using namespace sim::config;
  FileResolver resolver;
  resolver.add_embedded(embedded_files());
  const ConfigLoader loader(resolver);
  const std::vector<Override> overrides = parse_overrides(set_flags);
  if (config) return loader.load_run_file(*config, overrides);
  for (const EmbeddedFile& file : embedded_files()) {
    if (file.path == "default.yaml") return loader.load_run_text(file.text, kDefaultConfigName, overrides);
  }
  throw std::logic_error("the embedded default config is missing from this build");
}

RunSpec load_run_spec(const std::optional<std::string>& config, const std::vector<std::string>& set_flags) {
  return read_run_spec(load_run_config(config, set_flags));
}

}  // namespace tessera::app::run

// libFuzzer target: one `--set KEY=VALUE` flag (the input is what follows --set), applied to
// the embedded default run config exactly as `tessera run --set ...` does: the flag's parser,
// its YAML value, the override of the tree (before system resolution for `system=`), and the
// checks of the resulting RunSpec, then describe.
//
// A ConfigError is the documented answer to a bad flag; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/app/run/run_config_loader.h"
#include "sim/app/run/run_spec.h"
#include "sim/config/config_error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> flags{std::string(reinterpret_cast<const char*>(data), size)};
  try {
    const tessera::app::run::RunSpec spec = tessera::app::run::load_run_spec(std::nullopt, flags);
    (void)tessera::app::run::describe_yaml(spec);
  } catch (const tessera::sim::config::ConfigError&) {
    // The documented answer to a bad flag.
  }
  return 0;
}

// libFuzzer target: a run config's YAML text to a checked RunSpec, as `tessera run CONFIG`
// reads it: YAML parsing, base:/include: merging, system: resolution against the embedded
// system files, every schema and cross-field check, then describe (which formats every value).
//
// A ConfigError is the documented answer to a bad config; anything else (a crash, a sanitizer
// report, another exception, a hang) is a finding. Names in the text resolve against the
// embedded files first and then the working folder: run the fuzzer in an empty folder.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sim/app/run/run_spec.h"
#include "sim/config/config_error.h"
#include "sim/config/config_loader.h"
#include "sim/config/embedded_files.h"
#include "sim/config/file_resolver.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tessera::sim::config;
  static const FileResolver resolver = [] {
    FileResolver r;
    r.add_embedded(embedded_files());
    return r;
  }();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const ConfigNode root = ConfigLoader(resolver).load_run_text(text, "fuzz.yaml");
    const tessera::app::run::RunSpec spec = tessera::app::run::read_run_spec(root);
    (void)tessera::app::run::describe_yaml(spec);
    (void)tessera::app::run::describe_json(spec).dump();
  } catch (const ConfigError&) {
    // The documented answer to a bad config.
  }
  return 0;
}

#pragma once
// Loads config files into ConfigNode trees: resolves base: and include: (the including file's
// keys deep-merge over them), replaces a run config's system: by the fully merged system map,
// and applies --set overrides. Every value keeps the location of the file it came from.
#include <span>
#include <string>
#include <string_view>

#include "sim/config/config_node.h"
#include "sim/config/file_resolver.h"
#include "sim/config/overrides.h"

namespace tessera::sim::config {

class ConfigLoader {
 public:
  // The resolver must outlive the loader.
  explicit ConfigLoader(const FileResolver& resolver) : resolver_(resolver) {}

  // A config file named on the command line (a path, or a name the resolver knows), with its
  // base: and include: resolved. `root_path` is the key path given to its root.
  ConfigNode load_file(std::string_view name, const std::string& root_path = {}) const;
  // The same for text in memory; names inside it resolve as from the command line.
  ConfigNode load_text(std::string_view text, const std::string& display_name, const std::string& root_path = {}) const;
  // A system by name ("mi300x-8" = systems/mi300x-8.yaml), or path, fully merged.
  ConfigNode load_system(std::string_view name, const std::string& root_path = "system") const;

  // A run config: the file; `--set system=...` overrides; system: replaced by the merged
  // system map (from a name, a path, or an inline map that may have base:/include:); then
  // every other override, so that --set system.gpu.clock=... changes the resolved system.
  ConfigNode load_run_file(std::string_view name, std::span<const Override> overrides = {}) const;
  ConfigNode load_run_text(std::string_view text, const std::string& display_name,
                           std::span<const Override> overrides = {}) const;
  // The same for a run config already parsed out of `file` (e.g. the base: map of a sweep
  // study): its values keep their locations, and names in it resolve as from `file`.
  ConfigNode load_run_node(const ConfigNode& root, const SourceFile& file, std::span<const Override> overrides = {}) const;

 private:
  class Session;

  // `parsed`: the tree of `file` when the caller parsed it already; otherwise file.text is read.
  ConfigNode load_run(const SourceFile& file, const ConfigNode* parsed, std::span<const Override> overrides) const;

  const FileResolver& resolver_;
};

}  // namespace tessera::sim::config

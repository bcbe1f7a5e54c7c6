#pragma once
// Finds the config files that other config files name (base:, include:, system:), in the
// files compiled into the program and on disk.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/embedded_files.h"

namespace tessera::sim::config {

// Config files: far beyond any hand-written or generated system or study (docs/robustness.md, "Limits").
inline constexpr std::uint64_t kMaxConfigFileBytes = std::uint64_t{16} << 20;
// Files one config may include (base:, include:, system:), each counted once.
inline constexpr std::size_t kMaxConfigFiles = 1000;

// A config file's text and where it came from (to resolve names written inside it).
struct SourceFile {
  std::string name;     // display name used in locations: a path, or "embedded:systems/x.yaml"
  std::string text;
  bool embedded = false;
  std::string folder;   // embedded: folder inside the table ("systems"); disk: its directory
};

class FileResolver {
 public:
  FileResolver() = default;  // disk only

  // Adds a table of embedded files, shown in locations as `display_prefix + path`.
  FileResolver& add_embedded(std::span<const EmbeddedFile> files, std::string display_prefix = "embedded:");
  // The folder on disk holding named config files (e.g. the repository's configs/).
  FileResolver& set_config_dir(std::filesystem::path dir);

  // A file named inside `from` (nullptr: named on the command line). Looks, in order:
  // beside `from` in its own source (or, from the command line, relative to the current
  // directory); in the embedded tables; under the config dir.
  std::optional<SourceFile> find(std::string_view name, const SourceFile* from) const;
  // find() for a file named on the command line, or a ConfigError "cannot find WHAT file 'NAME'
  // (looked for ...)" naming it (what: "study", "space").
  SourceFile find_or_throw(std::string_view name, std::string_view what) const;

  // The value of `system:`: a bare name (no '/', no .yaml/.yml) means systems/NAME.yaml,
  // looked up in the embedded tables, then under the config dir; anything else is a path
  // as for find().
  std::optional<SourceFile> find_system(std::string_view name, const SourceFile* from) const;

  // The places find_system() (system = true) or find() looks, in order: for error messages.
  std::vector<std::string> search_places(std::string_view name, const SourceFile* from, bool system) const;

  // Every embedded path, for listing what is available.
  std::vector<std::string> embedded_paths() const;

 private:
  struct Candidate {
    bool embedded;
    std::string path;
  };
  struct Table {
    std::span<const EmbeddedFile> files;
    std::string display_prefix;
  };

  std::vector<Candidate> candidates(std::string_view name, const SourceFile* from, bool system) const;
  std::optional<SourceFile> open(const Candidate& candidate) const;

  std::vector<Table> tables_;
  std::optional<std::filesystem::path> config_dir_;
};

// True for a bare system name such as "mi300x-8" (no path separator, no YAML extension).
bool is_bare_system_name(std::string_view name);

}  // namespace tessera::sim::config

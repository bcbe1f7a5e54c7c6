#include "sim/config/file_resolver.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/config/config_error.h"
#include "sim/io/whole_file.h"

namespace tessera::sim::config {
namespace fs = std::filesystem;

namespace {
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Embedded paths are '/'-separated and relative; ".." may climb within the table only.
std::string normalize_embedded(const fs::path& path) { return path.lexically_normal().generic_string(); }
}  // namespace

bool is_bare_system_name(std::string_view name) {
  return name.find('/') == std::string_view::npos && name.find('\\') == std::string_view::npos &&
         !ends_with(name, ".yaml") && !ends_with(name, ".yml");
}

FileResolver& FileResolver::add_embedded(std::span<const EmbeddedFile> files, std::string display_prefix) {
  tables_.push_back(Table{files, std::move(display_prefix)});
  return *this;
}

FileResolver& FileResolver::set_config_dir(fs::path dir) {
  config_dir_ = std::move(dir);
  return *this;
}

std::vector<FileResolver::Candidate> FileResolver::candidates(std::string_view name, const SourceFile* from,
                                                              bool system) const {
  std::vector<Candidate> out;
  const auto add = [&](bool embedded, std::string path) {
    const bool seen = std::any_of(out.begin(), out.end(), [&](const Candidate& c) {
      return c.embedded == embedded && c.path == path;
    });
    if (!seen) out.push_back(Candidate{embedded, std::move(path)});
  };
  const fs::path path{std::string(name)};
  if (system && is_bare_system_name(name)) {
    const std::string named = "systems/" + std::string(name) + ".yaml";
    add(true, named);
    if (config_dir_) add(false, (*config_dir_ / named).lexically_normal().string());
    return out;
  }
  if (path.is_absolute()) {
    add(false, path.lexically_normal().string());
    return out;
  }
  if (from == nullptr) {
    add(false, path.lexically_normal().string());
  } else if (from->embedded) {
    const std::string beside = normalize_embedded(fs::path(from->folder) / path);
    if (!beside.starts_with("..")) add(true, beside);
  } else {
    add(false, (fs::path(from->folder) / path).lexically_normal().string());
  }
  const std::string top = normalize_embedded(path);
  if (!top.starts_with("..")) add(true, top);
  if (config_dir_) add(false, (*config_dir_ / path).lexically_normal().string());
  return out;
}

std::optional<SourceFile> FileResolver::open(const Candidate& candidate) const {
  if (candidate.embedded) {
    for (const Table& table : tables_) {
      for (const EmbeddedFile& file : table.files) {
        if (normalize_embedded(fs::path(std::string(file.path))) != candidate.path) continue;
        return SourceFile{table.display_prefix + candidate.path, std::string(file.text), true,
                          fs::path(candidate.path).parent_path().generic_string()};
      }
    }
    return std::nullopt;
  }
  std::error_code ec;
  if (!fs::exists(candidate.path, ec)) return std::nullopt;
  if (fs::is_directory(candidate.path, ec)) return std::nullopt;
  try {
    std::string text = io::read_whole_file(candidate.path, kMaxConfigFileBytes);
    return SourceFile{candidate.path, std::move(text), false, fs::path(candidate.path).parent_path().string()};
  } catch (const io::FileReadError& e) {
    // Found but not readable as a config (too large, a FIFO or device, a read error): say so,
    // rather than "cannot find" or an empty file.
    throw ConfigError(SourceLocation{candidate.path, 0, 0}, "", e.reason());
  }
}

std::optional<SourceFile> FileResolver::find(std::string_view name, const SourceFile* from) const {
  for (const Candidate& c : candidates(name, from, false)) {
    if (auto file = open(c)) return file;
  }
  return std::nullopt;
}

SourceFile FileResolver::find_or_throw(std::string_view name, std::string_view what) const {
  if (auto file = find(name, nullptr)) return *file;
  throw ConfigError(SourceLocation{std::string(name), 0, 0}, "",
                    fmt::format("cannot find {} file '{}' (looked for {})", what, name,
                                fmt::join(search_places(name, nullptr, false), ", ")));
}

std::optional<SourceFile> FileResolver::find_system(std::string_view name, const SourceFile* from) const {
  for (const Candidate& c : candidates(name, from, true)) {
    if (auto file = open(c)) return file;
  }
  return std::nullopt;
}

std::vector<std::string> FileResolver::search_places(std::string_view name, const SourceFile* from,
                                                     bool system) const {
  std::vector<std::string> out;
  for (const Candidate& c : candidates(name, from, system)) {
    out.push_back(c.embedded ? "embedded " + c.path : c.path);
  }
  return out;
}

std::vector<std::string> FileResolver::embedded_paths() const {
  std::vector<std::string> out;
  for (const Table& table : tables_) {
    for (const EmbeddedFile& file : table.files) out.push_back(normalize_embedded(fs::path(std::string(file.path))));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace tessera::sim::config

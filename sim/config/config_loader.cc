#include "sim/config/config_loader.h"

#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "sim/config/config_error.h"
#include "sim/config/yaml_reader.h"

namespace tessera::sim::config {

// The state of one load: the files being expanded (for cycle detection) and every file read
// so far (to resolve names written in them).
class ConfigLoader::Session {
 public:
  explicit Session(const FileResolver& resolver) : resolver_(resolver) {}

  ConfigNode load(const SourceFile& file, const std::string& root_path) {
    return expand_from(file, parse_yaml(file.text, file.name, root_path));
  }

  // Expands a tree that was read from `file` (names in it resolve from there).
  ConfigNode expand_from(const SourceFile& file, ConfigNode tree) {
    stack_.push_back(file.name);
    SourceFile meta = file;
    meta.text.clear();
    files_.emplace(file.name, std::move(meta));
    tree = expand(std::move(tree));
    stack_.pop_back();
    return tree;
  }

  // The file a node was written in, if it was read from one (not a --set flag).
  const SourceFile* file_of(const ConfigNode& node) const {
    const auto it = files_.find(node.location().file);
    return it == files_.end() ? nullptr : &it->second;
  }

  // Replaces a map's base: and include: by the merged content of those files, with the map's
  // own keys over them. Other nodes pass through.
  ConfigNode expand(ConfigNode map) {
    if (!map.is_map()) return map;
    const ConfigNode* base = map.find("base");
    const ConfigNode* include = map.find("include");
    if (base == nullptr && include == nullptr) return map;
    ConfigNode merged = ConfigNode::make_map(map.location());
    merged.set_path(map.path());
    if (base != nullptr) {
      if (!base->is_scalar()) throw ConfigError(*base, fmt::format("expected a file name, got {}", base->kind_name()));
      merged.merge_from(load_reference(*base, map.path()));
    }
    if (include != nullptr) {
      if (include->is_scalar()) {
        merged.merge_from(load_reference(*include, map.path()));
      } else if (include->is_sequence()) {
        for (const ConfigNode& item : include->children()) {
          if (!item.is_scalar()) {
            throw ConfigError(item, fmt::format("expected a file name, got {}", item.kind_name()));
          }
          merged.merge_from(load_reference(item, map.path()));
        }
      } else {
        throw ConfigError(*include, fmt::format("expected a file name or a list of file names, got {}",
                                                include->kind_name()));
      }
    }
    map.erase("base");
    map.erase("include");
    merged.merge_from(map);
    return merged;
  }

  // Loads the file that `ref` (a scalar naming it) refers to, as a map rooted at `root_path`.
  ConfigNode load_reference(const ConfigNode& ref, const std::string& root_path, bool system = false) {
    const std::string& name = ref.scalar();
    const SourceFile* from = file_of(ref);
    std::optional<SourceFile> file = system ? resolver_.find_system(name, from) : resolver_.find(name, from);
    if (!file && !system && is_bare_system_name(name)) {
      // `base: mi300x-8` in a user's file means the system of that name, as `system:` does.
      system = true;
      file = resolver_.find_system(name, from);
    }
    if (!file) {
      std::string places;
      for (const std::string& p : resolver_.search_places(name, from, system)) {
        places += places.empty() ? p : ", " + p;
      }
      throw ConfigError(ref, fmt::format("cannot find '{}' (looked for {})", name, places));
    }
    if (std::find(stack_.begin(), stack_.end(), file->name) != stack_.end()) {
      std::string chain;
      for (const std::string& f : stack_) chain += f + " -> ";
      throw ConfigError(ref, fmt::format("include cycle: {}{}", chain, file->name));
    }
    // A file named again (from anywhere) is expanded once: includes that fan out (each file
    // including the next twice) cost one expansion per file, not 2^depth.
    const std::string key = file->name + '\n' + root_path;
    if (const auto it = expanded_.find(key); it != expanded_.end()) return it->second;
    if (expanded_.size() >= kMaxConfigFiles) {
      throw ConfigError(ref, fmt::format("more than {} files included in one config", kMaxConfigFiles));
    }
    ConfigNode tree = load(*file, root_path);
    if (tree.is_null()) {
      tree = ConfigNode::make_map(SourceLocation{file->name, 1, 1});
      tree.set_path(root_path);
    }
    if (!tree.is_map()) throw ConfigError(tree, fmt::format("{} must contain a map, not {}", file->name, tree.kind_name()));
    expanded_.emplace(key, tree);
    return tree;
  }

  // system: a name or path (loaded and expanded), or an inline map (expanded).
  ConfigNode resolve_system(const ConfigNode& system) {
    if (system.is_scalar()) return load_reference(system, system.path(), true);
    if (system.is_map()) {
      const SourceFile* from = file_of(system);
      if (from != nullptr) stack_.push_back(from->name);
      ConfigNode expanded = expand(system);
      if (from != nullptr) stack_.pop_back();
      return expanded;
    }
    throw ConfigError(system, fmt::format("expected a system name, a file path or a map, got {}", system.kind_name()));
  }

 private:
  const FileResolver& resolver_;
  std::vector<std::string> stack_;
  std::map<std::string, SourceFile> files_;
  std::map<std::string, ConfigNode> expanded_;  // by file name and root path
};

namespace {
SourceFile find_top_level(const FileResolver& resolver, std::string_view name) {
  std::optional<SourceFile> file = resolver.find(name, nullptr);
  if (!file) {
    std::string places;
    for (const std::string& p : resolver.search_places(name, nullptr, false)) places += places.empty() ? p : ", " + p;
    throw ConfigError(SourceLocation{std::string(name), 0, 0}, "",
                      fmt::format("cannot find config file '{}' (looked for {})", name, places));
  }
  return *file;
}
}  // namespace

ConfigNode ConfigLoader::load_file(std::string_view name, const std::string& root_path) const {
  Session session(resolver_);
  return session.load(find_top_level(resolver_, name), root_path);
}

ConfigNode ConfigLoader::load_text(std::string_view text, const std::string& display_name,
                                   const std::string& root_path) const {
  Session session(resolver_);
  return session.load(SourceFile{display_name, std::string(text), false, "."}, root_path);
}

ConfigNode ConfigLoader::load_system(std::string_view name, const std::string& root_path) const {
  Session session(resolver_);
  ConfigNode ref = ConfigNode::make_scalar(std::string(name), SourceLocation{std::string(name), 0, 0});
  ref.set_path(root_path);
  return session.resolve_system(ref);
}

ConfigNode ConfigLoader::load_run_file(std::string_view name, std::span<const Override> overrides) const {
  return load_run(find_top_level(resolver_, name), nullptr, overrides);
}

ConfigNode ConfigLoader::load_run_text(std::string_view text, const std::string& display_name,
                                       std::span<const Override> overrides) const {
  return load_run(SourceFile{display_name, std::string(text), false, "."}, nullptr, overrides);
}

ConfigNode ConfigLoader::load_run_node(const ConfigNode& root, const SourceFile& file, std::span<const Override> overrides) const {
  return load_run(file, &root, overrides);
}

ConfigNode ConfigLoader::load_run(const SourceFile& file, const ConfigNode* parsed,
                                  std::span<const Override> overrides) const {
  Session session(resolver_);
  ConfigNode root = parsed != nullptr ? session.expand_from(file, *parsed) : session.load(file, "");
  if (root.is_null()) root.become_map();
  if (!root.is_map()) throw ConfigError(root, fmt::format("a run config must be a map, not {}", root.kind_name()));
  for (const Override& o : overrides) {
    if (o.selects_system()) apply_override(root, o);
  }
  if (const ConfigNode* system = root.find("system")) {
    const SourceLocation key_location = system->key_location();
    ConfigNode resolved = session.resolve_system(*system);
    root.set("system", std::move(resolved), key_location);
  }
  for (const Override& o : overrides) {
    if (!o.selects_system()) apply_override(root, o);
  }
  return root;
}

}  // namespace tessera::sim::config

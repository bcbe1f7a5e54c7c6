#include "sim/config/config_node.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "sim/config/config_error.h"

namespace tessera::sim::config {

std::string join_path(std::string_view parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return fmt::format("{}.{}", parent, key);
}

ConfigNode ConfigNode::make_null(SourceLocation location) {
  ConfigNode n;
  n.location_ = std::move(location);
  return n;
}

ConfigNode ConfigNode::make_scalar(std::string text, SourceLocation location) {
  ConfigNode n;
  n.kind_ = Kind::kScalar;
  n.scalar_ = std::move(text);
  n.location_ = std::move(location);
  return n;
}

ConfigNode ConfigNode::make_sequence(SourceLocation location) {
  ConfigNode n;
  n.kind_ = Kind::kSequence;
  n.location_ = std::move(location);
  return n;
}

ConfigNode ConfigNode::make_map(SourceLocation location) {
  ConfigNode n;
  n.kind_ = Kind::kMap;
  n.location_ = std::move(location);
  return n;
}

std::string_view ConfigNode::kind_name() const {
  switch (kind_) {
    case Kind::kNull: return "null";
    case Kind::kScalar: return "a scalar";
    case Kind::kSequence: return "a list";
    case Kind::kMap: return "a map";
  }
  return "?";
}

const std::string& ConfigNode::scalar() const {
  if (!is_scalar()) throw ConfigError(*this, fmt::format("expected a scalar value, got {}", kind_name()));
  return scalar_;
}

const ConfigNode* ConfigNode::find(std::string_view key) const {
  if (!is_map()) return nullptr;
  for (const ConfigNode& child : children_) {
    if (child.key_ == key) return &child;
  }
  return nullptr;
}

ConfigNode* ConfigNode::find(std::string_view key) {
  return const_cast<ConfigNode*>(std::as_const(*this).find(key));
}

const ConfigNode& ConfigNode::at(std::string_view key) const {
  if (!is_map()) throw ConfigError(*this, fmt::format("expected a map, got {}", kind_name()));
  const ConfigNode* found = find(key);
  if (found == nullptr) throw ConfigError(*this, fmt::format("missing required key '{}'", key));
  return *found;
}

std::vector<std::string> ConfigNode::keys() const {
  std::vector<std::string> out;
  if (!is_map()) return out;
  for (const ConfigNode& child : children_) out.push_back(child.key_);
  return out;
}

ConfigNode& ConfigNode::set(std::string key, ConfigNode value, SourceLocation key_location) {
  if (!is_map()) throw ConfigError(*this, fmt::format("cannot set key '{}' in {}", key, kind_name()));
  value.key_ = key;
  value.key_location_ = std::move(key_location);
  value.set_path(join_path(path_, key));
  if (ConfigNode* existing = find(key)) {
    *existing = std::move(value);
    return *existing;
  }
  children_.push_back(std::move(value));
  return children_.back();
}

ConfigNode& ConfigNode::set(std::string key, ConfigNode value) {
  SourceLocation where = value.location_;
  return set(std::move(key), std::move(value), std::move(where));
}

bool ConfigNode::erase(std::string_view key) {
  if (!is_map()) return false;
  const auto it = std::find_if(children_.begin(), children_.end(), [&](const ConfigNode& c) { return c.key_ == key; });
  if (it == children_.end()) return false;
  children_.erase(it);
  return true;
}

ConfigNode& ConfigNode::append(ConfigNode item) {
  if (!is_sequence()) throw ConfigError(*this, fmt::format("cannot append to {}", kind_name()));
  item.key_.clear();
  item.set_path(fmt::format("{}[{}]", path_, children_.size()));
  children_.push_back(std::move(item));
  return children_.back();
}

void ConfigNode::become_map() {
  if (is_null()) kind_ = Kind::kMap;
}

void ConfigNode::set_path(std::string path) {
  path_ = std::move(path);
  repath_children();
}

void ConfigNode::repath_children() {
  for (std::size_t i = 0; i < children_.size(); ++i) {
    ConfigNode& child = children_[i];
    child.set_path(is_map() ? join_path(path_, child.key_) : fmt::format("{}[{}]", path_, i));
  }
}

void ConfigNode::merge_from(const ConfigNode& over) {
  // "gpu:" with nothing under it in a derived file changes nothing; it must not wipe the base.
  if (is_map() && over.is_null()) return;
  if (!is_map() || !over.is_map()) {
    // Replacement keeps this node's place in its parent (key, key location, path).
    std::string key = std::move(key_);
    SourceLocation key_location = std::move(key_location_);
    std::string path = std::move(path_);
    *this = over;
    key_ = std::move(key);
    key_location_ = std::move(key_location);
    set_path(std::move(path));
    return;
  }
  // The most derived file's map is the one a reader looks at: take its location.
  location_ = over.location_;
  for (const ConfigNode& child : over.children_) {
    if (ConfigNode* mine = find(child.key_)) {
      mine->merge_from(child);
      mine->key_location_ = child.key_location_;
    } else {
      set(child.key_, child, child.key_location_);
    }
  }
}

namespace {
void emit(YAML::Emitter& out, const ConfigNode& node) {
  switch (node.kind()) {
    case ConfigNode::Kind::kNull: out << YAML::Null; break;
    case ConfigNode::Kind::kScalar: out << node.scalar(); break;
    case ConfigNode::Kind::kSequence:
      out << YAML::BeginSeq;
      for (const ConfigNode& item : node.children()) emit(out, item);
      out << YAML::EndSeq;
      break;
    case ConfigNode::Kind::kMap:
      out << YAML::BeginMap;
      for (const ConfigNode& child : node.children()) {
        out << YAML::Key << child.key() << YAML::Value;
        emit(out, child);
      }
      out << YAML::EndMap;
      break;
  }
}
}  // namespace

std::string ConfigNode::to_yaml() const {
  YAML::Emitter out;
  emit(out, *this);
  return std::string(out.c_str()) + "\n";
}

}  // namespace tessera::sim::config

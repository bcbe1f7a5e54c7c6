#pragma once
// The config tree: maps (in the order written), sequences, scalars and nulls, each node
// carrying where it was written and its key path ("system.gpu.l2.capacity", "gpus[2].name").
// Our own type rather than YAML::Node so that merged trees keep the location of every value
// from the file it came from, and so that errors can always name file, line and key.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/source_location.h"

namespace tessera::sim::config {

class ConfigNode {
 public:
  enum class Kind { kNull, kScalar, kSequence, kMap };

  ConfigNode() = default;  // a null node without location
  static ConfigNode make_null(SourceLocation location);
  static ConfigNode make_scalar(std::string text, SourceLocation location);
  static ConfigNode make_sequence(SourceLocation location);
  static ConfigNode make_map(SourceLocation location);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_scalar() const { return kind_ == Kind::kScalar; }
  bool is_sequence() const { return kind_ == Kind::kSequence; }
  bool is_map() const { return kind_ == Kind::kMap; }
  // "a map", "a list", "a scalar", "null": for messages like "expected a list, got a map".
  std::string_view kind_name() const;

  const SourceLocation& location() const { return location_; }
  const std::string& path() const { return path_; }
  // The key under which this node sits in its parent map (empty for the root and list items).
  const std::string& key() const { return key_; }
  const SourceLocation& key_location() const { return key_location_; }

  // The text of a scalar; a ConfigError for any other kind.
  const std::string& scalar() const;

  // Map access.
  const ConfigNode* find(std::string_view key) const;
  ConfigNode* find(std::string_view key);
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  // The value under `key`; a ConfigError at this map when it is missing.
  const ConfigNode& at(std::string_view key) const;
  std::vector<std::string> keys() const;

  // Map values or sequence items, in order.
  const std::vector<ConfigNode>& children() const { return children_; }
  std::size_t size() const { return children_.size(); }
  const ConfigNode& operator[](std::size_t index) const { return children_.at(index); }
  ConfigNode& operator[](std::size_t index) { return children_.at(index); }

  // Building. Inserted subtrees get paths below this node.
  // Sets `key` in a map (replacing in place, or appending); returns the stored value.
  ConfigNode& set(std::string key, ConfigNode value, SourceLocation key_location);
  ConfigNode& set(std::string key, ConfigNode value);  // key located at the value
  bool erase(std::string_view key);
  ConfigNode& append(ConfigNode item);
  // Turns a null node into an empty map in place (keeping its key, location and path).
  void become_map();
  // Re-roots this subtree, e.g. a system file's content placed under "system".
  void set_path(std::string path);

  // Deep merge of `over` onto this node: maps merge key by key, recursively; anything else
  // in `over` (scalars, lists, nulls) replaces, except that a null never replaces a map (an
  // empty "key:" in a derived file changes nothing). Every value keeps its own location.
  void merge_from(const ConfigNode& over);

  // Block YAML text of the tree (for showing a resolved config).
  std::string to_yaml() const;

 private:
  void repath_children();

  Kind kind_ = Kind::kNull;
  std::string scalar_;
  std::vector<ConfigNode> children_;
  SourceLocation location_;
  std::string path_;
  std::string key_;
  SourceLocation key_location_;
};

// Key path of a child: "a.b" + "c" -> "a.b.c"; "" + "c" -> "c".
std::string join_path(std::string_view parent, std::string_view key);

}  // namespace tessera::sim::config

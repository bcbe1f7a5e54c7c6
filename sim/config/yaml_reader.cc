#include "sim/config/yaml_reader.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "sim/config/config_error.h"
#include "sim/config/utf8.h"

namespace tessera::sim::config {
namespace {

// yaml-cpp shares an anchor's node among its aliases, but the tree copies it at each alias: nested
// aliases ("billion laughs", ten lines of YAML) would expand without end. No real config comes
// near this many values.
constexpr std::size_t kMaxNodes = 100'000;

class TreeBuilder {
 public:
  // `fixed` set: every node gets that location (values from a --set flag).
  TreeBuilder(std::string display_name, std::optional<SourceLocation> fixed)
      : display_name_(std::move(display_name)), fixed_(std::move(fixed)) {}

  ConfigNode build(const YAML::Node& node, const SourceLocation& fallback, const std::string& path) {
    const SourceLocation where = locate(node.Mark(), fallback);
    if (++num_nodes_ > kMaxNodes) {
      throw ConfigError(where, path, fmt::format("the config expands to more than {} values (each alias repeats the "
                                                 "whole value of its anchor)", kMaxNodes));
    }
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null: {
        // An empty value ("key:" with nothing after it) is marked at the next token, which may
        // be lines away: place it at its key (the fallback) instead.
        ConfigNode null = ConfigNode::make_null(fixed_ ? *fixed_ : fallback);
        null.set_path(path);
        return null;
      }
      case YAML::NodeType::Scalar: {
        // The file is valid UTF-8 (checked before parsing), but the YAML library folds line
        // breaks such as NEL (C2 85) and may leave half a character in a scalar: refuse it here,
        // so that no invalid text reaches a name, a path or the JSON outputs.
        if (find_invalid_utf8(node.Scalar())) {
          throw ConfigError(where, path, "the value is not valid UTF-8 after YAML line folding (a NEL or similar line break)");
        }
        ConfigNode scalar = ConfigNode::make_scalar(node.Scalar(), where);
        scalar.set_path(path);
        return scalar;
      }
      case YAML::NodeType::Sequence: {
        ConfigNode seq = ConfigNode::make_sequence(where);
        seq.set_path(path);
        for (const YAML::Node& item : node) seq.append(build(item, where, fmt::format("{}[{}]", path, seq.size())));
        return seq;
      }
      case YAML::NodeType::Map: {
        ConfigNode map = ConfigNode::make_map(where);
        map.set_path(path);
        for (const auto& entry : node) {
          const SourceLocation key_where = locate(entry.first.Mark(), where);
          if (!entry.first.IsScalar()) {
            throw ConfigError(key_where, map.path(), "map keys must be plain names");
          }
          const std::string key = entry.first.Scalar();
          if (const ConfigNode* previous = map.find(key)) {
            throw ConfigError(key_where, join_path(map.path(), key),
                              fmt::format("duplicate key '{}' (first given at {})", key,
                                          previous->key_location().to_string()));
          }
          // A null value ("key:" with nothing after it) has no mark of its own: use the key's.
          map.set(key, build(entry.second, key_where, join_path(path, key)), key_where);
        }
        return map;
      }
    }
    return ConfigNode::make_null(where);
  }

  SourceLocation locate(const YAML::Mark& mark, const SourceLocation& fallback) const {
    if (fixed_) return *fixed_;
    if (mark.is_null() || mark.line < 0) return fallback;
    return SourceLocation{display_name_, mark.line + 1, mark.column + 1};
  }

 private:
  std::string display_name_;
  std::optional<SourceLocation> fixed_;
  std::size_t num_nodes_ = 0;
};

// The line and column (1-based, in bytes) of a byte of the text.
SourceLocation location_of_byte(const std::string& display_name, std::string_view text, std::size_t offset) {
  const std::string_view before = text.substr(0, offset);
  const std::size_t line_start = before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
  const auto line = static_cast<int>(std::count(before.begin(), before.end(), '\n')) + 1;
  return SourceLocation{display_name, line, static_cast<int>(offset - line_start) + 1};
}

ConfigNode parse(std::string_view text, const std::string& display_name, std::optional<SourceLocation> fixed,
                 const std::string& root_path) {
  TreeBuilder builder(display_name, fixed);
  const SourceLocation start = fixed ? *fixed : SourceLocation{display_name, 1, 1};
  // yaml-cpp passes any bytes through, but every value may end up in JSON (describe --json,
  // summary.json), which must be UTF-8: a bad byte is an error at its place, as a syntax error is.
  if (const std::optional<std::size_t> bad = find_invalid_utf8(text)) {
    throw ConfigError(fixed ? *fixed : location_of_byte(display_name, text, *bad), "",
                      fmt::format("invalid UTF-8 (byte {:#04x}): config text must be UTF-8",
                                  static_cast<unsigned char>(text[*bad])));
  }
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::ParserException& e) {
    const SourceLocation where = fixed ? *fixed : builder.locate(e.mark, start);
    throw ConfigError(where, "", fmt::format("YAML syntax error: {}", e.msg));
  } catch (const YAML::Exception& e) {
    throw ConfigError(start, "", fmt::format("YAML error: {}", e.msg));
  }
  return builder.build(root, start, root_path);
}

}  // namespace

ConfigNode parse_yaml(std::string_view text, const std::string& display_name, const std::string& root_path) {
  return parse(text, display_name, std::nullopt, root_path);
}

ConfigNode parse_yaml_at(std::string_view text, const SourceLocation& location) {
  return parse(text, location.file, location, "");
}

}  // namespace tessera::sim::config

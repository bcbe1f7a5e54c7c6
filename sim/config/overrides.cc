#include "sim/config/overrides.h"

#include <charconv>

#include <fmt/format.h>

#include "sim/config/config_error.h"
#include "sim/config/yaml_reader.h"

namespace tessera::sim::config {
namespace {

std::vector<PathStep> parse_path(std::string_view path, const SourceLocation& where) {
  const auto fail = [&](std::string_view why) {
    return ConfigError(where, "", fmt::format("malformed key path '{}': {}", path, why));
  };
  std::vector<PathStep> steps;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t dot = std::min(path.find('.', start), path.size());
    std::string_view segment = path.substr(start, dot - start);
    const std::size_t bracket = segment.find('[');
    const std::string_view key = segment.substr(0, bracket);
    if (key.empty()) throw fail("empty key");
    steps.push_back(PathStep{std::string(key), 0, false});
    segment.remove_prefix(key.size());
    while (!segment.empty()) {
      const std::size_t close = segment.find(']');
      if (segment.front() != '[' || close == std::string_view::npos) throw fail("expected [index]");
      const std::string_view digits = segment.substr(1, close - 1);
      std::size_t index = 0;
      const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
      if (digits.empty() || ec != std::errc{} || ptr != digits.data() + digits.size()) throw fail("bad index");
      steps.push_back(PathStep{{}, index, true});
      segment.remove_prefix(close + 1);
    }
    start = dot + 1;
  }
  return steps;
}

std::string step_path(std::string_view parent, const PathStep& step) {
  return step.is_index ? fmt::format("{}[{}]", parent, step.index) : join_path(parent, step.key);
}

}  // namespace

Override parse_override(std::string_view text) {
  Override out;
  // The flag is every message's location: a long one is shortened there (the value stays whole).
  constexpr std::size_t kShownFlagBytes = 160;
  out.flag = text.size() <= kShownFlagBytes ? fmt::format("--set {}", text)
                                             : fmt::format("--set {}...", text.substr(0, kShownFlagBytes));
  const SourceLocation where{out.flag, 0, 0};
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos) throw ConfigError(where, "", "expected --set key.path=value");
  const std::string_view key_text = text.substr(0, eq);
  if (key_text.empty()) throw ConfigError(where, "", "expected --set key.path=value (the key is empty)");
  // Every step of a path makes a node that holds the whole path so far: bounded here, before
  // a 100 KB key could ask for gigabytes. The deepest key of any config is a few steps.
  if (key_text.size() > kMaxKeyPathBytes) {
    throw ConfigError(where, "", fmt::format("the key path is {} bytes long; at most {}", key_text.size(), kMaxKeyPathBytes));
  }
  out.key_path = std::string(key_text);
  out.steps = parse_path(key_text, where);
  out.value = parse_yaml_at(text.substr(eq + 1), where);
  return out;
}

std::vector<Override> parse_overrides(std::span<const std::string> texts) {
  std::vector<Override> out;
  out.reserve(texts.size());
  for (const std::string& text : texts) out.push_back(parse_override(text));
  return out;
}

void apply_override(ConfigNode& root, const Override& o) {
  const SourceLocation where{o.flag, 0, 0};
  ConfigNode* node = &root;
  std::string path = root.path();
  for (std::size_t i = 0; i < o.steps.size(); ++i) {
    const PathStep& step = o.steps[i];
    const bool last = i + 1 == o.steps.size();
    if (step.is_index) {
      if (!node->is_sequence()) {
        throw ConfigError(where, path, fmt::format("cannot index {} (set at {})", node->kind_name(),
                                                   node->location().to_string()));
      }
      if (step.index >= node->size()) {
        throw ConfigError(where, path, fmt::format("index {} is out of range (the list has {} items)", step.index,
                                                   node->size()));
      }
      ConfigNode& item = (*node)[step.index];
      if (last) {
        item = o.value;
        item.set_path(step_path(path, step));
      }
      node = &item;
    } else {
      // "key:" with nothing under it, or an empty file, can take keys.
      if (node->is_null()) node->become_map();
      if (!node->is_map()) {
        throw ConfigError(where, path, fmt::format("cannot set '{}' inside {} (set at {})", step.key,
                                                   node->kind_name(), node->location().to_string()));
      }
      if (last) {
        node->set(step.key, o.value, where);
      } else if (ConfigNode* child = node->find(step.key)) {
        node = child;
      } else if (o.steps[i + 1].is_index) {
        throw ConfigError(where, step_path(path, step), "there is no list here to index");
      } else {
        node = &node->set(step.key, ConfigNode::make_map(where), where);
      }
    }
    path = step_path(path, step);
  }
}

}  // namespace tessera::sim::config

#include "sim/app/tune/tune_space.h"

#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/config/config_error.h"
#include "sim/config/suggest.h"
#include "sim/config/yaml_reader.h"

namespace tessera::app::tune {
namespace {

using sim::config::ConfigError;
using sim::config::ConfigNode;
using sim::config::SourceLocation;

// Reserved top-level keys: everything else is a run-config key path to tune.
constexpr const char* kDescription = "description";
constexpr const char* kProxy = "proxy";
constexpr const char* kZip = "zip";
// A range may enumerate at most this many values (a sweep's bound on points holds for the product).
constexpr std::size_t kMaxRangeValues = 100'000;

std::int64_t integer_of(const ConfigNode& node, const char* what) {
  if (!node.is_scalar()) throw ConfigError(node, fmt::format("{} must be an integer, got {}", what, node.kind_name()));
  const std::string& text = node.scalar();
  std::size_t used = 0;
  std::int64_t v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) {
    throw ConfigError(node, fmt::format("{} must be an integer (a range enumerates integers; list other values), got '{}'",
                                        what, text));
  }
  return v;
}

// {from: A, to: B, step: S} (A, A+S, ... up to B) or {from: A, to: B, factor: F} (A, A*F, ...).
std::vector<ConfigNode> range_values(const ConfigNode& range) {
  const std::vector<std::string> allowed{"from", "to", "step", "factor"};
  for (const ConfigNode& child : range.children()) {
    bool known = false;
    for (const std::string& a : allowed) known = known || a == child.key();
    if (known) continue;
    const auto near = sim::config::nearest(child.key(), allowed);
    throw ConfigError(child.key_location(), child.path(),
                      near ? fmt::format("unknown key '{}' in a range; did you mean '{}'?", child.key(), *near)
                           : fmt::format("unknown key '{}' in a range; valid keys: from, to, step or factor", child.key()));
  }
  const ConfigNode* from = range.find("from");
  const ConfigNode* to = range.find("to");
  if (from == nullptr || to == nullptr) throw ConfigError(range, "a range needs from: and to: (and step: or factor:)");
  const ConfigNode* step = range.find("step");
  const ConfigNode* factor = range.find("factor");
  if ((step == nullptr) == (factor == nullptr)) throw ConfigError(range, "a range needs exactly one of step: and factor:");
  const std::int64_t a = integer_of(*from, "from");
  const std::int64_t b = integer_of(*to, "to");
  if (b < a) throw ConfigError(*to, fmt::format("to ({}) is below from ({})", b, a));
  std::vector<ConfigNode> values;
  const auto add = [&](std::int64_t v) {
    if (values.size() >= kMaxRangeValues) {
      throw ConfigError(range, fmt::format("the range has more than {} values", kMaxRangeValues));
    }
    values.push_back(ConfigNode::make_scalar(std::to_string(v), range.location()));
  };
  if (step != nullptr) {
    const std::int64_t s = integer_of(*step, "step");
    if (s <= 0) throw ConfigError(*step, fmt::format("step must be at least 1, got {}", s));
    for (std::int64_t v = a; v <= b; v += s) {
      add(v);
      if (v > std::numeric_limits<std::int64_t>::max() - s) break;
    }
  } else {
    const std::int64_t f = integer_of(*factor, "factor");
    if (f < 2) throw ConfigError(*factor, fmt::format("factor must be at least 2, got {}", f));
    if (a <= 0) throw ConfigError(*from, fmt::format("a range with factor: starts above 0, got {}", a));
    for (std::int64_t v = a; v <= b; v *= f) {
      add(v);
      if (v > std::numeric_limits<std::int64_t>::max() / f) break;
    }
  }
  return values;
}

void check_key_path(const ConfigNode& node) {
  try {
    sim::config::parse_override(node.key() + "=");
  } catch (const ConfigError& e) {
    throw ConfigError(node.key_location(), node.path(), e.message());
  }
}

sweep::SweepDimension axis_of(const ConfigNode& node) {
  check_key_path(node);
  sweep::SweepDimension d;
  d.keys.push_back(node.key());
  d.key_locations.push_back(node.key_location());
  if (node.is_sequence()) {
    if (node.size() == 0) throw ConfigError(node, "the list of candidates is empty");
    for (const ConfigNode& value : node.children()) d.rows.push_back({value});
  } else if (node.is_map()) {
    for (ConfigNode& value : range_values(node)) d.rows.push_back({std::move(value)});
  } else {
    throw ConfigError(node, fmt::format("expected a list of candidates or a range {{from, to, step | factor}}, got {}",
                                        node.kind_name()));
  }
  return d;
}

}  // namespace

std::vector<std::string> TuneSpace::keys() const {
  std::vector<std::string> out;
  for (const sweep::SweepDimension& d : axes) out.insert(out.end(), d.keys.begin(), d.keys.end());
  return out;
}

std::vector<std::size_t> TuneSpace::axis_sizes() const {
  std::vector<std::size_t> out;
  for (const sweep::SweepDimension& d : axes) out.push_back(d.rows.size());
  return out;
}

std::size_t TuneSpace::num_candidates() const {
  std::size_t n = 1;
  for (const sweep::SweepDimension& d : axes) n *= d.rows.size();
  return n;
}

TuneSpace parse_tune_space(const sim::config::SourceFile& file) {
  const ConfigNode root = sim::config::parse_yaml(file.text, file.name);
  if (!root.is_map()) {
    throw ConfigError(root.location().line > 0 ? root.location() : SourceLocation{file.name, 1, 1}, "",
                      fmt::format("a tuning space must be a map of key paths to candidates, not {}", root.kind_name()));
  }
  TuneSpace space;
  space.file = file;
  space.name = std::filesystem::path(file.name).stem().string();
  for (const ConfigNode& node : root.children()) {
    if (node.key() == kDescription) {
      space.description = node.scalar();
    } else if (node.key() == kProxy) {
      if (!node.is_map() || node.size() == 0) {
        throw ConfigError(node, "expected a map of key paths to values (the cheaper run of the screening round)");
      }
      for (const ConfigNode& value : node.children()) {
        check_key_path(value);
        sim::config::Override o = sim::config::parse_override(value.key() + "=");
        o.flag = value.key_location().to_string();
        o.value = value;
        space.proxy.push_back(std::move(o));
      }
    } else if (node.key() == kZip) {
      space.axes.push_back(sweep::parse_zip_group(node));
    } else {
      space.axes.push_back(axis_of(node));
    }
  }
  if (space.axes.empty()) {
    throw ConfigError(root.location().line > 0 ? root.location() : SourceLocation{file.name, 1, 1}, "",
                      "the space tunes no key: give at least one run-config key path with its candidates, e.g. "
                      "workload.group_m: [1, 4, 8]");
  }
  std::size_t n = 1;
  for (const sweep::SweepDimension& d : space.axes) {
    if (__builtin_mul_overflow(n, d.rows.size(), &n) || n > sweep::kMaxSweepPoints) {
      throw ConfigError(d.key_locations.front(), d.keys.front(),
                        fmt::format("the space has more than {} candidates (the product of the lists' lengths)",
                                    sweep::kMaxSweepPoints));
    }
  }
  std::set<std::string> tuned;
  for (const sweep::SweepDimension& d : space.axes) {
    for (std::size_t k = 0; k < d.keys.size(); ++k) {
      if (!tuned.insert(d.keys[k]).second) {
        throw ConfigError(d.key_locations[k], d.keys[k], "this key is tuned twice (on its own and in zip:)");
      }
    }
  }
  for (const sim::config::Override& o : space.proxy) {
    for (const std::string& key : tuned) {
      if (o.key_path == key || o.key_path.starts_with(key + ".") || key.starts_with(o.key_path + ".")) {
        throw ConfigError(o.value.key_location(), o.key_path,
                          fmt::format("the space tunes '{}': the proxy may not set it", key));
      }
    }
  }
  return space;
}

TuneSpace read_tune_space(std::string_view name, const sim::config::FileResolver& resolver) {
  return parse_tune_space(resolver.find_or_throw(name, "space"));
}

sweep::Study tune_study(const TuneSpace& space, const std::string& config) {
  sweep::Study study;
  study.file = space.file;
  study.name = space.name;
  study.description = space.description;
  const SourceLocation here{"the command line", 0, 0};
  study.base = ConfigNode::make_map(here);
  study.base.set("base", ConfigNode::make_scalar(config, here), here);
  study.dimensions = space.axes;
  return study;
}

}  // namespace tessera::app::tune

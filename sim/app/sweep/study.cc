#include "sim/app/sweep/study.h"

#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/config/config_error.h"
#include "sim/config/overrides.h"
#include "sim/config/suggest.h"
#include "sim/config/yaml_reader.h"

namespace tessera::app::sweep {
namespace {

using sim::config::ConfigError;
using sim::config::ConfigNode;
using sim::config::SourceLocation;

// Rejects keys outside `allowed`, suggesting the nearest one.
void check_keys(const ConfigNode& map, const std::vector<std::string>& allowed) {
  for (const ConfigNode& child : map.children()) {
    bool known = false;
    for (const std::string& a : allowed) known = known || a == child.key();
    if (known) continue;
    const auto near = sim::config::nearest(child.key(), allowed);
    throw ConfigError(child.key_location(), child.path(),
                      near ? fmt::format("unknown key '{}'; did you mean '{}'?", child.key(), *near)
                           : fmt::format("unknown key '{}'; valid keys: {}", child.key(), fmt::join(allowed, ", ")));
  }
}

// An axis: a key path (checked for syntax here; whether the run config has it is checked per
// point) and a non-empty list of values.
const ConfigNode& axis_values(const ConfigNode& axis) {
  try {
    sim::config::parse_override(axis.key() + "=");
  } catch (const ConfigError& e) {
    throw ConfigError(axis.key_location(), axis.path(), e.message());
  }
  if (!axis.is_sequence()) {
    throw ConfigError(axis, fmt::format("expected a list of values to sweep, got {}", axis.kind_name()));
  }
  if (axis.size() == 0) throw ConfigError(axis, "the list of values is empty");
  return axis;
}

SweepDimension grid_axis(const ConfigNode& axis) {
  SweepDimension d;
  d.keys.push_back(axis.key());
  d.key_locations.push_back(axis.key_location());
  for (const ConfigNode& value : axis_values(axis).children()) d.rows.push_back({value});
  return d;
}

}  // namespace

SweepDimension parse_zip_group(const ConfigNode& zip) {
  if (!zip.is_map() || zip.size() == 0) {
    throw ConfigError(zip, "expected a map of key paths to lists of equal length");
  }
  SweepDimension d;
  const ConfigNode& first = zip.children().front();
  for (const ConfigNode& axis : zip.children()) {
    const ConfigNode& values = axis_values(axis);
    if (values.size() != first.size()) {
      throw ConfigError(axis, fmt::format("zip lists must have equal lengths: '{}' has {} values but '{}' has {}",
                                          axis.key(), values.size(), first.key(), first.size()));
    }
    d.keys.push_back(axis.key());
    d.key_locations.push_back(axis.key_location());
  }
  d.rows.resize(first.size());
  for (std::size_t r = 0; r < first.size(); ++r) {
    for (const ConfigNode& axis : zip.children()) d.rows[r].push_back(axis[r]);
  }
  return d;
}

namespace {

ConfigNode read_base(const ConfigNode& base) {
  if (base.is_map()) {
    ConfigNode root = base;
    root.set_path("");  // errors name run config keys ("workload.m"), as for a run config file
    return root;
  }
  if (base.is_scalar()) {
    // `base: run.yaml`: a run config file, loaded as if the study's base map said `base: run.yaml`.
    ConfigNode root = ConfigNode::make_map(base.location());
    root.set("base", base, base.key_location());
    return root;
  }
  throw ConfigError(base, fmt::format("expected a run config map (system:, workload:, ...) or a run config file name, got {}",
                                      base.kind_name()));
}

}  // namespace

std::vector<std::string> Study::swept_keys() const {
  std::vector<std::string> keys;
  for (const SweepDimension& d : dimensions) keys.insert(keys.end(), d.keys.begin(), d.keys.end());
  return keys;
}

std::size_t Study::num_points() const {
  std::size_t n = 1;
  for (const SweepDimension& d : dimensions) n *= d.rows.size();
  return n;
}

Study parse_study(const sim::config::SourceFile& file) {
  const ConfigNode root = sim::config::parse_yaml(file.text, file.name);
  if (!root.is_map()) {
    throw ConfigError(root.location().line > 0 ? root.location() : SourceLocation{file.name, 1, 1}, "",
                      fmt::format("a study must be a map with base: and sweep:, not {}", root.kind_name()));
  }
  check_keys(root, {"description", "base", "sweep"});
  Study study;
  study.file = file;
  study.name = std::filesystem::path(file.name).stem().string();
  if (const ConfigNode* description = root.find("description")) study.description = description->scalar();

  const ConfigNode* base = root.find("base");
  if (base == nullptr) throw ConfigError(root, "missing required key 'base' (the run config every point starts from)");
  study.base = read_base(*base);

  const ConfigNode* sweep = root.find("sweep");
  if (sweep == nullptr) throw ConfigError(root, "missing required key 'sweep' (grid: and/or zip: axes)");
  if (!sweep->is_map() || sweep->size() == 0) {
    throw ConfigError(*sweep, "expected a map with grid: and/or zip:");
  }
  check_keys(*sweep, {"grid", "zip"});
  for (const ConfigNode& part : sweep->children()) {
    if (part.key() == "zip") {
      study.dimensions.push_back(parse_zip_group(part));
      continue;
    }
    if (!part.is_map() || part.size() == 0) throw ConfigError(part, "expected a map of key paths to lists of values");
    for (const ConfigNode& axis : part.children()) study.dimensions.push_back(grid_axis(axis));
  }

  // Every point gets a config, a result and a row: the product is bounded before any is made
  // (docs/robustness.md, "Limits"), and checked as it grows so that it cannot wrap.
  std::size_t points = 1;
  for (const SweepDimension& d : study.dimensions) {
    if (__builtin_mul_overflow(points, d.rows.size(), &points) || points > kMaxSweepPoints) {
      throw ConfigError(*sweep, fmt::format("the axes make more than {} points (the product of their lengths); split "
                                            "it into several studies",
                                            kMaxSweepPoints));
    }
  }
  std::set<std::string> seen;
  for (const SweepDimension& d : study.dimensions) {
    for (std::size_t k = 0; k < d.keys.size(); ++k) {
      if (!seen.insert(d.keys[k]).second) {
        throw ConfigError(d.key_locations[k], d.keys[k], "this key is swept twice (in grid: and zip:)");
      }
    }
  }
  return study;
}

Study read_study(std::string_view name, const sim::config::FileResolver& resolver) {
  return parse_study(resolver.find_or_throw(name, "study"));
}

}  // namespace tessera::app::sweep

#include "models/system/parameter_ranges.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/config/config_error.h"
#include "sim/config/suggest.h"
#include "sim/config/units.h"

namespace tessera::models {
namespace {

using sim::config::ConfigError;
using sim::config::ConfigNode;
using sim::config::Dimension;
using sim::config::Quantity;

// The system's value at a dotted path of its described form, or an error naming the step that
// is not there (with the nearest key).
Quantity nominal_at(const nlohmann::json& described, const std::string& key_path, const ConfigNode& entry) {
  const nlohmann::json* at = &described;
  std::size_t begin = 0;
  while (begin <= key_path.size()) {
    const std::size_t dot = std::min(key_path.find('.', begin), key_path.size());
    const std::string step = key_path.substr(begin, dot - begin);
    if (!at->is_object() || !at->contains(step)) {
      std::vector<std::string> keys;
      if (at->is_object()) {
        for (const auto& item : at->items()) keys.push_back(item.key());
      }
      const auto near = sim::config::nearest(step, keys);
      throw ConfigError(entry, fmt::format("uncertainty: '{}' is not a parameter of the system{}", key_path,
                                           near ? fmt::format(" ('{}': did you mean '{}'?)", step, *near) : ""));
    }
    at = &(*at)[step];
    begin = dot + 1;
  }
  if (at->is_number()) return {Dimension::kNumber, at->get<double>()};
  if (at->is_string()) {
    try {
      return sim::config::parse_quantity(at->get<std::string>());
    } catch (const sim::config::UnitError&) {
    }
  }
  throw ConfigError(entry, fmt::format("uncertainty: '{}' is not a numeric parameter (its value is {}): only numbers "
                                       "and values with units have ranges", key_path, at->dump()));
}

Quantity bound_of(const ConfigNode& bound, const Quantity& nominal, const std::string& key_path) {
  Quantity q;
  try {
    q = sim::config::parse_quantity(bound.scalar());
  } catch (const sim::config::UnitError& e) {
    throw ConfigError(bound, fmt::format("uncertainty: {}: {}", key_path, e.what()));
  }
  if (q.dimension != nominal.dimension) {
    throw ConfigError(bound, fmt::format("uncertainty: {}: expected {} like the parameter's value ({}), got \"{}\"",
                                         key_path, sim::config::dimension_name(nominal.dimension),
                                         sim::config::format_quantity(nominal), bound.scalar()));
  }
  return q;
}

void read_entries(const ConfigNode& node, const std::string& prefix, const nlohmann::json& described,
                  std::vector<ParameterRange>& out) {
  for (const ConfigNode& entry : node.children()) {
    const std::string key_path = prefix.empty() ? entry.key() : prefix + "." + entry.key();
    if (entry.is_map()) {
      read_entries(entry, key_path, described, out);
      continue;
    }
    const std::size_t n = entry.is_sequence() ? entry.children().size() : 0;
    const bool well_formed = (n == 2 || n == 3) && entry[0].is_scalar() && entry[1].is_scalar() &&
                             (n == 2 || (entry[2].is_scalar() && entry[2].scalar() == "estimate"));
    if (!well_formed) {
      throw ConfigError(entry, fmt::format("uncertainty: {}: expected a range [LOW, HIGH] in the parameter's unit, "
                                           "e.g. [405 ns, 425 ns], or [LOW, HIGH, estimate] for a value no "
                                           "measurement gives", key_path));
    }
    ParameterRange range;
    range.estimate = n == 3;
    range.key_path = key_path;
    range.location = entry.location();
    range.nominal = nominal_at(described, key_path, entry);
    range.low = bound_of(entry[0], range.nominal, key_path);
    range.high = bound_of(entry[1], range.nominal, key_path);
    if (range.low.value > range.high.value) {
      throw ConfigError(entry, fmt::format("uncertainty: {}: the low bound {} is above the high bound {}", key_path,
                                           entry[0].scalar(), entry[1].scalar()));
    }
    out.push_back(std::move(range));
  }
}

}  // namespace

std::vector<ParameterRange> read_parameter_ranges(const ConfigNode& system, const SystemSpec& spec) {
  std::vector<ParameterRange> out;
  const ConfigNode* ranges = system.find("uncertainty");
  if (ranges == nullptr || ranges->is_null()) return out;
  if (!ranges->is_map()) {
    throw ConfigError(*ranges, fmt::format("uncertainty: expected a map from parameter key paths to ranges [LOW, HIGH], "
                                           "got {}", ranges->kind_name()));
  }
  read_entries(*ranges, "", system_schema().to_json(spec), out);
  std::sort(out.begin(), out.end(), [](const ParameterRange& a, const ParameterRange& b) { return a.key_path < b.key_path; });
  for (std::size_t i = 1; i < out.size(); ++i) {
    if (out[i].key_path == out[i - 1].key_path) {
      throw ConfigError(out[i].location, "system.uncertainty." + out[i].key_path, "this parameter has two ranges");
    }
  }
  return out;
}

std::vector<std::string> estimated_keys(const std::vector<ParameterRange>& ranges) {
  std::vector<std::string> out;
  for (const ParameterRange& r : ranges) {
    if (r.estimate && r.holds_nominal()) out.push_back(r.key_path);
  }
  return out;
}

SystemSpec read_system(const ConfigNode& system) {
  SystemSpec spec = system_schema().read(system, {.extra_keys = {"base", "include", "uncertainty"}});
  read_parameter_ranges(system, spec);
  return spec;
}

}  // namespace tessera::models

#include "sim/app/sweep/point_config.h"

#include <fmt/format.h>

#include "sim/app/run/version.h"
#include "sim/config/config_error.h"
#include "sim/config/config_loader.h"
#include "sim/config/embedded_files.h"
#include "sim/config/file_resolver.h"

namespace tessera::app::sweep {
namespace {

using sim::config::ConfigError;
using sim::config::Override;

// An axis value as an override located in the study: errors in applying it name the study
// file, line and column of its key; the value keeps its own location for schema errors.
Override axis_override(const std::string& key, const sim::config::SourceLocation& key_location,
                       const sim::config::ConfigNode& value) {
  Override o = sim::config::parse_override(key + "=");  // the path syntax was checked by parse_study
  o.flag = key_location.to_string();
  o.value = value;
  return o;
}

}  // namespace

std::string fnv1a_hex(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", h);
}

sim::config::ConfigNode point_config_node(const Study& study, const SweepPoint& point,
                                          const std::vector<Override>& set_overrides) {
  sim::config::FileResolver resolver;
  resolver.add_embedded(sim::config::embedded_files());
  const sim::config::ConfigLoader loader(resolver);
  std::vector<Override> overrides = set_overrides;
  std::size_t k = 0;
  for (const SweepDimension& d : study.dimensions) {
    for (std::size_t j = 0; j < d.keys.size(); ++j, ++k) {
      overrides.push_back(axis_override(d.keys[j], d.key_locations[j], point.values[k]));
    }
  }
  return loader.load_run_node(study.base, study.file, overrides);
}

PreparedPoint prepare_point(const Study& study, const SweepPoint& point, const std::vector<Override>& set_overrides) {
  PreparedPoint p;
  try {
    p.spec = run::read_run_spec(point_config_node(study, point, set_overrides));
  } catch (const ConfigError& e) {
    // A cross-field check may be located in the base; say which combination of values broke it.
    throw ConfigError(e.location(), e.key_path(),
                      fmt::format("{} (point {}: {})", e.message(), point.index,
                                  point_label(point, study.swept_keys())));
  }
  p.config_hash = fnv1a_hex(fmt::format("tessera {}\n{}", run::kVersion, run::describe_json(p.spec).dump()));
  return p;
}

std::vector<PreparedPoint> prepare_points(const Study& study, const std::vector<SweepPoint>& points,
                                          const std::vector<Override>& set_overrides) {
  std::vector<PreparedPoint> prepared;
  prepared.reserve(points.size());
  for (const SweepPoint& point : points) prepared.push_back(prepare_point(study, point, set_overrides));
  return prepared;
}

}  // namespace tessera::app::sweep

#include "sim/app/sweep/sweep_points.h"

#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tessera::app::sweep {

using sim::config::ConfigNode;

std::vector<SweepPoint> expand_points(const Study& study) {
  const std::size_t count = study.num_points();
  std::vector<SweepPoint> points(count);
  for (std::size_t i = 0; i < count; ++i) {
    SweepPoint& p = points[i];
    p.index = i;
    // Mixed-radix digits of i, the last dimension least significant.
    std::vector<std::size_t> row(study.dimensions.size());
    std::size_t rest = i;
    for (std::size_t d = study.dimensions.size(); d-- > 0;) {
      const std::size_t n = study.dimensions[d].rows.size();
      row[d] = rest % n;
      rest /= n;
    }
    for (std::size_t d = 0; d < study.dimensions.size(); ++d) {
      for (const ConfigNode& value : study.dimensions[d].rows[row[d]]) p.values.push_back(value);
    }
  }
  return points;
}

std::string compact_text(const ConfigNode& value) {
  switch (value.kind()) {
    case ConfigNode::Kind::kNull: return "null";
    case ConfigNode::Kind::kScalar: return value.scalar();
    case ConfigNode::Kind::kSequence: {
      std::vector<std::string> items;
      for (const ConfigNode& item : value.children()) items.push_back(compact_text(item));
      return fmt::format("[{}]", fmt::join(items, ", "));
    }
    case ConfigNode::Kind::kMap: {
      std::vector<std::string> items;
      for (const ConfigNode& item : value.children()) items.push_back(item.key() + ": " + compact_text(item));
      return fmt::format("{{{}}}", fmt::join(items, ", "));
    }
  }
  return {};
}

std::vector<std::string> label_names(const std::vector<std::string>& keys) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  bool collide = false;
  for (const std::string& key : keys) {
    const std::size_t dot = key.rfind('.');
    names.push_back(dot == std::string::npos ? key : key.substr(dot + 1));
    collide = collide || !seen.insert(names.back()).second;
  }
  return collide ? keys : names;
}

std::string point_label(const SweepPoint& point, const std::vector<std::string>& names) {
  std::vector<std::string> parts;
  for (std::size_t k = 0; k < point.values.size() && k < names.size(); ++k) {
    parts.push_back(names[k] + "=" + compact_text(point.values[k]));
  }
  return fmt::format("{}", fmt::join(parts, " "));
}

}  // namespace tessera::app::sweep

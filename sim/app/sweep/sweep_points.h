#pragma once
// The points of a study: the product of its dimensions in file order, the last dimension
// varying fastest (as nested loops written in that order), each with its swept values.
#include <cstddef>
#include <string>
#include <vector>

#include "sim/app/sweep/study.h"
#include "sim/config/config_node.h"

namespace tessera::app::sweep {

struct SweepPoint {
  std::size_t index = 0;
  // One value per swept key, in Study::swept_keys() order, located where the study wrote it.
  std::vector<sim::config::ConfigNode> values;
};

std::vector<SweepPoint> expand_points(const Study& study);

// A value on one line, as a CSV cell or a label shows it: scalars as written, lists as
// "[a, b]", maps as "{k: v, ...}", null as "null".
std::string compact_text(const sim::config::ConfigNode& value);

// The short names of the swept keys for labels: the last segment of each key path
// ("workload.variant" -> "variant"), or the whole paths when two short names would collide.
std::vector<std::string> label_names(const std::vector<std::string>& keys);

// "variant=bsp m=64": a point's label on plots and in messages.
std::string point_label(const SweepPoint& point, const std::vector<std::string>& names);

}  // namespace tessera::app::sweep

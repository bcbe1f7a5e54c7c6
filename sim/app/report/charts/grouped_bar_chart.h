#pragma once
// An inline SVG of horizontal bars in groups, one bar per series in each group, all on one time
// axis: A and B side by side for each quantity of a comparison. Each bar is a
// <rect class="series-bar" data-series="..." data-group="...">, its value printed after it; a
// value a series lacks is written "n/a" in place of its bar. A note (e.g. the ratio B / A) may
// follow each group at the right.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/app/report/charts/scale.h"

namespace tessera::app::report::charts {

struct Series {
  std::string name;    // "A"
  std::string colour;  // CSS colour
};

struct BarGroup {
  std::string label;                             // left of the group: "makespan"
  std::vector<std::optional<double>> values_ns;  // one per series
  std::string note;                              // right of the group, may be empty
};

// The default scale: automatic over every value of every group.
Scale grouped_scale(const std::vector<BarGroup>& groups);

std::string grouped_bar_chart(const std::vector<BarGroup>& groups, const std::vector<Series>& series, const Scale& scale,
                              std::string_view aria_label);

}  // namespace tessera::app::report::charts

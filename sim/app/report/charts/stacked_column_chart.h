#pragma once
// An inline SVG of vertical stacked columns on one time axis, one per label (a sweep's points),
// labels slanted under the columns so that long ones fit. On a log scale a column's height stands
// for its total and its segments split that height by their shares (a log axis cannot stack).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/app/report/charts/scale.h"

namespace tessera::app::report::charts {

struct ColumnSegment {
  double value_ns = 0.0;  // not drawn unless positive
  std::string colour;     // CSS colour
  std::string title;      // the tooltip, plain text (escaped here)
};

struct Column {
  std::string label;                    // under the column
  std::vector<ColumnSegment> segments;  // stacked from the bottom up
  std::optional<std::string> failure;   // a red cross over the column, with this tooltip
};

// The default scale for `columns`: automatic over their totals, the linear one rounded up to a tick.
Scale column_scale(const std::vector<Column>& columns);

// Every segment is a <rect class="part">.
std::string stacked_column_chart(const std::vector<Column>& columns, const Scale& scale, std::string_view aria_label);

}  // namespace tessera::app::report::charts

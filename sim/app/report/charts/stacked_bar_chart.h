#pragma once
// An inline SVG of horizontal stacked bars, one per row, one segment per time category in
// kAllCategories order, all rows on one time scale so that lengths compare.
//
// Each bar is a <g class="run-bar"> (or class="gpu-bar" for a per-GPU bar, one with a rank)
// holding its label, its segments and its total. On a log scale a bar's length stands for its
// total and its segments split that length in proportion to their shares of it: a log axis
// cannot stack, so the segments read as shares, not as positions on the axis.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/app/report/category_style.h"
#include "sim/app/report/charts/scale.h"

namespace tessera::app::report::charts {

struct StackedBar {
  std::string label;                   // shown left of the bar: a run label, "GPU 3"
  std::string run;                     // data-run of every segment
  std::optional<std::uint32_t> rank;   // data-rank of every segment, for per-GPU bars
  double span_ns = 0.0;                // the whole bar; printed right of it
  std::array<std::optional<double>, kAllCategories.size()> parts_ns;  // none set: unattributed
};

// The scale bars are drawn on by default: linear, or log when their spans differ by more than
// kAutoLogRatio.
Scale bar_scale(const std::vector<StackedBar>& bars);

std::string stacked_bar_chart(const std::vector<StackedBar>& bars, const Scale& scale, std::string_view aria_label);

}  // namespace tessera::app::report::charts

#pragma once
// An inline SVG of horizontal stacked bars, one per row, one segment per time category in
// kAllCategories order, all rows on one time scale so that lengths compare.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/app/report/category_style.h"

namespace tessera::app::report {

struct StackedBar {
  std::string label;                   // shown left of the bar: a run label, "GPU 3"
  std::string run;                     // data-run of every segment
  std::optional<std::uint32_t> rank;   // data-rank of every segment, for per-GPU bars
  double span_ns = 0.0;                // the whole bar; printed right of it
  std::array<std::optional<double>, kAllCategories.size()> parts_ns;  // none set: unattributed
};

// scale_ns is the time the full bar width stands for (at least the longest span).
std::string stacked_bar_chart(const std::vector<StackedBar>& bars, double scale_ns, std::string_view aria_label);

}  // namespace tessera::app::report

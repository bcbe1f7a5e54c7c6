#pragma once
// The predicted-against-measured plot of report.html: an inline SVG, log-log, both axes over the
// same decades, with the line of perfect prediction and the +-10% and +-25% bands, one colour per
// series (the case), and a tooltip per point. The axes are the report charts' log scale and axes
// (sim/app/report/charts/): a tick, a label ("100 ns", "1 us") and a grid line per decade, in a
// <g class="axis" data-scale="log">. Every point is a
// <circle class="point" data-series=... data-measured-ns=... data-predicted-ns=...>.
#include <string>
#include <vector>

namespace tessera::app::validation {

struct ScatterPoint {
  double measured_ns = 0;
  double predicted_ns = 0;
  std::string series;  // the legend entry and colour
  std::string label;   // the tooltip
};

// Points with a non-positive time are left out (a log axis has no place for them).
std::string log_log_scatter_svg(const std::vector<ScatterPoint>& points);

// The legend: a swatch and the name of each series, in order of first appearance.
std::string scatter_legend_html(const std::vector<ScatterPoint>& points);

}  // namespace tessera::app::validation

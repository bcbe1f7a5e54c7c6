#pragma once
// A time axis in SVG, drawn from a Scale: its line, a tick and a label per Scale tick, optional
// grid lines across the plot, and its title, which says "log scale" when the scale is. The
// <g class="axis"> carries data-scale="linear|log" for tests and scripts.
#include <string>
#include <string_view>

#include "sim/app/report/charts/scale.h"

namespace tessera::app::report::charts {

// Along x, under a plot: from (x_px, y_px) to (x_px + length_px, y_px), labels below. grid_px > 0
// draws a light line up from each tick over that height. The title, when not empty, goes at the
// right end under the labels.
std::string horizontal_axis(const Scale& scale, double x_px, double y_px, double length_px, double grid_px,
                            std::string_view title);

// Along y, left of a plot: from (x_px, y_px) at the bottom up to (x_px, y_px - length_px), labels
// left of it. grid_px > 0 draws a light line right from each tick over that width. The title,
// when not empty, is written upwards title_offset_px left of the axis.
std::string vertical_axis(const Scale& scale, double x_px, double y_px, double length_px, double grid_px,
                          std::string_view title, double title_offset_px = 56.0);

}  // namespace tessera::app::report::charts

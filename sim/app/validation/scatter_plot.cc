#include "sim/app/validation/scatter_plot.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>

#include "sim/app/report/charts/axis.h"
#include "sim/app/report/charts/scale.h"
#include "sim/app/report/html_escape.h"
#include "sim/app/report/report_format.h"
#include "sim/app/report/series_colours.h"

namespace tessera::app::validation {
namespace {

namespace charts = report::charts;
using report::format_coordinate;
using report::html_escape;

constexpr double kPlot = 440;   // the square plot area, px
constexpr double kLeft = 78;
constexpr double kTop = 16;
constexpr double kBottom = 40;  // the x axis' labels and title
constexpr double kRight = 16;

// The series in order of first appearance; a point's colour is its series' position.
std::vector<std::string> series_of(const std::vector<ScatterPoint>& points) {
  std::vector<std::string> series;
  for (const ScatterPoint& p : points) {
    if (std::find(series.begin(), series.end(), p.series) == series.end()) series.push_back(p.series);
  }
  return series;
}

std::size_t series_index(const std::vector<std::string>& series, const std::string& name) {
  return static_cast<std::size_t>(std::find(series.begin(), series.end(), name) - series.begin());
}

bool plottable(const ScatterPoint& p) {
  return p.measured_ns > 0 && p.predicted_ns > 0 && std::isfinite(p.measured_ns) && std::isfinite(p.predicted_ns);
}

// Both axes: the same whole decades, from the one at or below the smallest time (measured or
// predicted) to the one at or above the largest, labelled as the other charts label a log axis
// ("100 ns", "1 us", "10 ms").
charts::Scale common_scale(const std::vector<ScatterPoint>& points) {
  double lo = 0, hi = 0;
  for (const ScatterPoint& p : points) {
    if (!plottable(p)) continue;
    const double a = std::min(p.measured_ns, p.predicted_ns), b = std::max(p.measured_ns, p.predicted_ns);
    lo = lo > 0 ? std::min(lo, a) : a;
    hi = std::max(hi, b);
  }
  return charts::Scale::log_decades(lo, hi);
}

}  // namespace

std::string log_log_scatter_svg(const std::vector<ScatterPoint>& points) {
  const charts::Scale scale = common_scale(points);
  const double bottom = kTop + kPlot;
  const auto x_of = [&](double ns) { return kLeft + scale.fraction(ns) * kPlot; };
  const auto y_of = [&](double ns) { return bottom - scale.fraction(ns) * kPlot; };
  const double width = kLeft + kPlot + kRight, height = kTop + kPlot + kBottom;

  std::string svg = fmt::format(
      "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0:.0f} {1:.0f}\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
      "role=\"img\" aria-label=\"predicted against measured time, log-log\">\n",
      width, height);
  // A tick, a label and a grid line across the square per decade, on both axes; then the square's
  // frame over the grid lines of its edges.
  svg += charts::horizontal_axis(scale, kLeft, bottom, kPlot, kPlot, "measured (mean)");
  svg += charts::vertical_axis(scale, kLeft, bottom, kPlot, kPlot, "predicted (Tessera)", kLeft - 14);
  svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>\n", kLeft, kTop, kPlot, kPlot);
  // Perfect prediction and the +-10% and +-25% bands: predicted = factor * measured, from where the
  // line enters the square to where it leaves it (above the diagonal it leaves by the top edge,
  // below it enters by the bottom one).
  const double lower = scale.lower(), upper = scale.upper();
  for (const auto& [factor, dash, label] : {std::tuple{1.0, "", "perfect prediction"}, std::tuple{1.10, "6 4", "+10%"},
                                            std::tuple{0.90, "6 4", "-10%"}, std::tuple{1.25, "2 3", "+25%"},
                                            std::tuple{0.75, "2 3", "-25%"}}) {
    const double x0 = factor >= 1 ? lower : lower / factor;
    const double x1 = factor >= 1 ? upper / factor : upper;
    svg += fmt::format("<line class=\"guide\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\"{}><title>{}</title></line>\n",
                       format_coordinate(x_of(x0)), format_coordinate(y_of(x0 * factor)), format_coordinate(x_of(x1)),
                       format_coordinate(y_of(x1 * factor)), *dash ? fmt::format(" stroke-dasharray=\"{}\"", dash) : "", label);
  }
  const std::vector<std::string> series = series_of(points);
  for (const ScatterPoint& p : points) {
    if (!plottable(p)) continue;
    svg += fmt::format("<circle class=\"point\" cx=\"{}\" cy=\"{}\" r=\"4.5\" fill=\"{}\" fill-opacity=\"0.8\" stroke=\"#222\" "
                       "stroke-width=\"0.5\" data-series=\"{}\" data-measured-ns=\"{:.3f}\" data-predicted-ns=\"{:.3f}\">"
                       "<title>{}</title></circle>\n",
                       format_coordinate(x_of(p.measured_ns)), format_coordinate(y_of(p.predicted_ns)),
                       report::series_colour(series_index(series, p.series)), html_escape(p.series), p.measured_ns, p.predicted_ns,
                       html_escape(p.label));
  }
  svg += "</svg>\n";
  return svg;
}

std::string scatter_legend_html(const std::vector<ScatterPoint>& points) {
  std::string out = "<ul class=\"legend\">\n";
  const std::vector<std::string> series = series_of(points);
  for (std::size_t i = 0; i < series.size(); ++i) {
    out += fmt::format("<li><span class=\"swatch\" style=\"background:{}\"></span>{}</li>\n", report::series_colour(i),
                       html_escape(series[i]));
  }
  return out + "</ul>\n";
}

}  // namespace tessera::app::validation

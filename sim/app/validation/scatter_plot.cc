#include "sim/app/validation/scatter_plot.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>

#include "sim/app/report/html_escape.h"
#include "sim/app/report/report_format.h"
#include "sim/app/report/series_colours.h"

namespace tessera::app::validation {
namespace {

using report::format_coordinate;
using report::html_escape;

constexpr double kPlot = 440;   // the square plot area, px
constexpr double kLeft = 78;
constexpr double kTop = 16;
constexpr double kBottom = 52;
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

// "100 ns", "1 us", "10 ms": a decade as people read it.
std::string decade_label(int exponent) {
  const char* units[] = {"ns", "us", "ms", "s"};
  int unit = std::clamp(exponent / 3, 0, 3);
  if (exponent < 0) unit = 0;
  return fmt::format("{:g} {}", std::pow(10.0, exponent - 3 * unit), units[unit]);
}

bool plottable(const ScatterPoint& p) { return p.measured_ns > 0 && p.predicted_ns > 0 && std::isfinite(p.predicted_ns); }

}  // namespace

std::string log_log_scatter_svg(const std::vector<ScatterPoint>& points) {
  double lo = 0, hi = 0;
  bool any = false;
  for (const ScatterPoint& p : points) {
    if (!plottable(p)) continue;
    const double a = std::min(p.measured_ns, p.predicted_ns), b = std::max(p.measured_ns, p.predicted_ns);
    lo = any ? std::min(lo, a) : a;
    hi = any ? std::max(hi, b) : b;
    any = true;
  }
  int first = any ? static_cast<int>(std::floor(std::log10(lo))) : 0;
  int last = any ? static_cast<int>(std::ceil(std::log10(hi))) : 1;
  if (last <= first) last = first + 1;
  const double decades = last - first;
  const auto pos = [&](double ns) { return (std::log10(ns) - first) / decades * kPlot; };
  const auto x_of = [&](double ns) { return kLeft + pos(ns); };
  const auto y_of = [&](double ns) { return kTop + kPlot - pos(ns); };
  const double width = kLeft + kPlot + kRight, height = kTop + kPlot + kBottom;

  std::string svg = fmt::format(
      "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0:.0f} {1:.0f}\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
      "role=\"img\" aria-label=\"predicted against measured time, log-log\">\n",
      width, height);
  svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>\n", kLeft, kTop, kPlot, kPlot);
  for (int e = first; e <= last; ++e) {
    const double v = std::pow(10.0, e);
    const std::string x = format_coordinate(x_of(v)), y = format_coordinate(y_of(v));
    svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#eee\"/>\n", x, kTop, kTop + kPlot);
    svg += fmt::format("<line x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\" stroke=\"#eee\"/>\n", y, kLeft, kLeft + kPlot);
    svg += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x, format_coordinate(kTop + kPlot + 16),
                       decade_label(e));
    svg += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", format_coordinate(kLeft - 6),
                       format_coordinate(y_of(v) + 4), decade_label(e));
  }
  // Perfect prediction and the +-10% and +-25% bands, clipped to the plot square.
  svg += fmt::format("<clipPath id=\"plot-area\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></clipPath>\n", kLeft, kTop, kPlot, kPlot);
  const double a = std::pow(10.0, first), b = std::pow(10.0, last);
  for (const auto& [factor, dash, label] : {std::tuple{1.0, "", "perfect prediction"}, std::tuple{1.10, "6 4", "+10%"},
                                            std::tuple{0.90, "6 4", "-10%"}, std::tuple{1.25, "2 3", "+25%"},
                                            std::tuple{0.75, "2 3", "-25%"}}) {
    svg += fmt::format("<line class=\"guide\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\"{} clip-path=\"url(#plot-area)\">"
                       "<title>{}</title></line>\n",
                       format_coordinate(x_of(a)), format_coordinate(y_of(a * factor)), format_coordinate(x_of(b)),
                       format_coordinate(y_of(b * factor)), *dash ? fmt::format(" stroke-dasharray=\"{}\"", dash) : "", label);
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
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">measured (mean)</text>\n", format_coordinate(kLeft + kPlot / 2),
                     format_coordinate(height - 8));
  svg += fmt::format("<text x=\"14\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 14 {0})\">predicted (Tessera)</text>\n",
                     format_coordinate(kTop + kPlot / 2));
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

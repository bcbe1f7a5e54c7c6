#include "sim/app/report/charts/stacked_column_chart.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/app/report/charts/axis.h"
#include "sim/app/report/html_escape.h"

namespace tessera::app::report::charts {
namespace {

constexpr double kBarWidth = 28;
constexpr double kBarGap = 14;
constexpr double kPlotHeight = 320;
constexpr double kLeft = 80;
constexpr double kTop = 20;
constexpr double kRight = 20;

double total_of(const Column& c) {
  double total = 0;
  for (const ColumnSegment& s : c.segments) total += std::max(s.value_ns, 0.0);
  return total;
}

}  // namespace

Scale column_scale(const std::vector<Column>& columns) {
  std::vector<double> totals;
  for (const Column& c : columns) totals.push_back(total_of(c));
  return Scale::automatic(totals, 5, true);
}

std::string stacked_column_chart(const std::vector<Column>& columns, const Scale& scale, std::string_view aria_label) {
  const std::size_t n = columns.size();
  std::size_t longest_label = 0;
  for (const Column& c : columns) longest_label = std::max(longest_label, c.label.size());
  // Rotated by 40 degrees, a label of c characters (about 6.2 px each) spans 0.64 c x 6.2 px
  // down and 0.77 c x 6.2 px left.
  const double bottom = std::min(320.0, 24 + 6.2 * static_cast<double>(longest_label) * 0.64);
  // Labels slant down to the left: the first one needs room left of its bar.
  const double left = std::clamp(6.2 * 0.77 * static_cast<double>(longest_label) - kBarWidth, kLeft, 400.0);
  const double width = std::max(480.0, left + static_cast<double>(n) * (kBarWidth + kBarGap) + kRight);
  const double height = kTop + kPlotHeight + bottom;
  const double base_y = kTop + kPlotHeight;

  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" "
      "role=\"img\" aria-label=\"{2}\" font-family=\"sans-serif\" font-size=\"11\">\n",
      width, height, html_escape(aria_label));
  svg += vertical_axis(scale, left, base_y, kPlotHeight, width - kRight - left, axis_title("time", scale));
  for (std::size_t i = 0; i < n; ++i) {
    const Column& c = columns[i];
    const double x = left + kBarGap / 2 + static_cast<double>(i) * (kBarWidth + kBarGap);
    const double total = total_of(c);
    const double column_px = scale.fraction(total) * kPlotHeight;
    double stacked_px = 0;
    for (const ColumnSegment& s : c.segments) {
      if (!(s.value_ns > 0)) continue;
      const double h = s.value_ns / total * column_px;
      svg += fmt::format(
          "<rect class=\"part\" x=\"{:.1f}\" y=\"{:.2f}\" width=\"{:.0f}\" height=\"{:.2f}\" fill=\"{}\">"
          "<title>{}</title></rect>\n",
          x, base_y - stacked_px - h, kBarWidth, h, html_escape(s.colour), html_escape(s.title));
      stacked_px += h;
    }
    if (c.failure) {
      svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#c00\" font-size=\"16\">&#215;"
                         "<title>{}</title></text>\n",
                         x + kBarWidth / 2, base_y - 6, html_escape(*c.failure));
    }
    const double lx = x + kBarWidth / 2;
    const double ly = base_y + 12;
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" transform=\"rotate(-40 {:.1f} {:.1f})\">{}</text>\n",
                       lx, ly, lx, ly, html_escape(c.label));
  }
  svg += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#333\"/>\n", left, base_y,
                     width - kRight, base_y);
  svg += "</svg>\n";
  if (scale.is_log()) {
    svg += "<p class=\"note\">Log scale, as the columns differ so much: a column's height stands for its total; its "
           "segments divide that height in proportion to their shares.</p>\n";
  }
  return svg;
}

}  // namespace tessera::app::report::charts

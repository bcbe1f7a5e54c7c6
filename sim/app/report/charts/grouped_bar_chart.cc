#include "sim/app/report/charts/grouped_bar_chart.h"

#include <iterator>

#include <fmt/format.h>

#include "sim/app/report/charts/axis.h"
#include "sim/app/report/html_escape.h"
#include "sim/app/report/report_format.h"

namespace tessera::app::report::charts {
namespace {

constexpr double kWidthPx = 960.0;
constexpr double kLabelPx = 200.0;
constexpr double kBarAreaPx = 560.0;
constexpr double kNoteX = kLabelPx + kBarAreaPx + 100.0;  // past the longest value printed after a bar
constexpr double kBarPx = 12.0;
constexpr double kBarGapPx = 2.0;
constexpr double kGroupGapPx = 10.0;
constexpr double kAxisPx = 24.0;
constexpr double kAxisTitlePx = 14.0;

}  // namespace

Scale grouped_scale(const std::vector<BarGroup>& groups) {
  std::vector<double> values;
  for (const BarGroup& g : groups) {
    for (const std::optional<double>& v : g.values_ns) {
      if (v) values.push_back(*v);
    }
  }
  return Scale::automatic(values);
}

std::string grouped_bar_chart(const std::vector<BarGroup>& groups, const std::vector<Series>& series, const Scale& scale,
                              std::string_view aria_label) {
  const double group_px = static_cast<double>(series.size()) * (kBarPx + kBarGapPx) + kGroupGapPx;
  const double plot_px = static_cast<double>(groups.size()) * group_px;
  const double height = plot_px + kAxisPx + kAxisTitlePx;
  std::string out;
  auto o = std::back_inserter(out);
  fmt::format_to(o, R"(<svg class="chart grouped" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" role="img" aria-label="{}">)",
                 format_coordinate(kWidthPx), format_coordinate(height), html_escape(aria_label));
  out += '\n';
  // Grid lines first, so that the bars cover them.
  out += horizontal_axis(scale, kLabelPx, plot_px + 2, kBarAreaPx, plot_px + 2, axis_title("time", scale));
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const BarGroup& group = groups[g];
    const double top = static_cast<double>(g) * group_px + kGroupGapPx / 2;
    const double middle = top + (group_px - kGroupGapPx) / 2;
    fmt::format_to(o, R"(<g class="bar-group" data-group="{}"><text x="{}" y="{}" text-anchor="end">{}</text>)",
                   html_escape(group.label), format_coordinate(kLabelPx - 8), format_coordinate(middle + 4),
                   html_escape(group.label));
    out += '\n';
    for (std::size_t s = 0; s < series.size(); ++s) {
      const double y = top + static_cast<double>(s) * (kBarPx + kBarGapPx);
      const std::optional<double> v = s < group.values_ns.size() ? group.values_ns[s] : std::nullopt;
      if (!v) {
        fmt::format_to(o, R"(<text class="axis" x="{}" y="{}">{}: n/a</text>)", format_coordinate(kLabelPx + 4),
                       format_coordinate(y + kBarPx - 2), html_escape(series[s].name));
        out += '\n';
        continue;
      }
      const double w = scale.fraction(*v) * kBarAreaPx;
      fmt::format_to(o,
                     R"(<rect class="series-bar" data-series="{0}" data-group="{1}" x="{2}" y="{3}" width="{4}" height="{5}" fill="{6}"><title>{0}: {1}: {7} ({8:.3f} ns)</title></rect>)",
                     html_escape(series[s].name), html_escape(group.label), format_coordinate(kLabelPx),
                     format_coordinate(y), format_coordinate(w), format_coordinate(kBarPx), html_escape(series[s].colour),
                     format_duration_ns(*v), *v);
      fmt::format_to(o, R"(<text class="axis" x="{}" y="{}">{} {}</text>)", format_coordinate(kLabelPx + w + 4),
                     format_coordinate(y + kBarPx - 2), html_escape(series[s].name), format_duration_ns(*v));
      out += '\n';
    }
    if (!group.note.empty()) {
      fmt::format_to(o, R"(<text class="note" x="{}" y="{}">{}</text>)", format_coordinate(kNoteX),
                     format_coordinate(middle + 4), html_escape(group.note));
    }
    out += "</g>\n";
  }
  out += "</svg>\n";
  if (scale.is_log()) {
    out += "<p class=\"note\">Log scale, as the values differ so much: equal ratios are equal distances.</p>\n";
  }
  return out;
}

}  // namespace tessera::app::report::charts

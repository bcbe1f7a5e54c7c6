#include "sim/app/report/charts/stacked_bar_chart.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "sim/app/report/charts/axis.h"
#include "sim/app/report/html_escape.h"
#include "sim/app/report/report_format.h"

namespace tessera::app::report::charts {
namespace {

constexpr double kWidthPx = 960.0;
constexpr double kLabelPx = 180.0;
constexpr double kBarAreaPx = 660.0;
constexpr double kRowPx = 24.0;
constexpr double kBarPx = 16.0;
constexpr double kAxisPx = 24.0;
constexpr double kAxisTitlePx = 14.0;  // under the tick labels, for the log-scale title

std::string data_attributes(const StackedBar& bar) {
  std::string a = fmt::format(R"( data-run="{}")", html_escape(bar.run));
  if (bar.rank) a += fmt::format(R"( data-rank="{}")", *bar.rank);
  return a;
}

// Who a tooltip speaks of: the run, and the GPU for a per-GPU bar.
std::string subject(const StackedBar& bar) {
  return html_escape(bar.rank ? fmt::format("{} / {}", bar.run, bar.label) : bar.label);
}

}  // namespace

Scale bar_scale(const std::vector<StackedBar>& bars) {
  std::vector<double> spans;
  for (const StackedBar& b : bars) spans.push_back(b.span_ns);
  return Scale::automatic(spans);
}

std::string stacked_bar_chart(const std::vector<StackedBar>& bars, const Scale& scale, std::string_view aria_label) {
  const double height = static_cast<double>(bars.size()) * kRowPx + kAxisPx + (scale.is_log() ? kAxisTitlePx : 0.0);
  std::string out;
  auto o = std::back_inserter(out);
  fmt::format_to(o, R"(<svg class="chart bars" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" role="img" aria-label="{}">)",
                 format_coordinate(kWidthPx), format_coordinate(height), html_escape(aria_label));
  out += '\n';
  for (std::size_t row = 0; row < bars.size(); ++row) {
    const StackedBar& bar = bars[row];
    const double y = static_cast<double>(row) * kRowPx + (kRowPx - kBarPx) / 2;
    const double text_y = static_cast<double>(row) * kRowPx + kRowPx / 2 + 4;
    const double bar_px = scale.fraction(bar.span_ns) * kBarAreaPx;
    // The group and its label on one line: a bar's name is found next to it in the page's source.
    fmt::format_to(o, R"(<g class="{}"{} aria-label="{}"><text x="{}" y="{}" text-anchor="end">{}</text>)",
                   bar.rank ? "gpu-bar" : "run-bar", data_attributes(bar), subject(bar), format_coordinate(kLabelPx - 8),
                   format_coordinate(text_y), html_escape(bar.label));
    out += '\n';
    const bool attributed = std::any_of(bar.parts_ns.begin(), bar.parts_ns.end(), [](const auto& p) { return p.has_value(); });
    if (!attributed) {
      fmt::format_to(o,
                     R"(<rect class="total-bar" data-category="makespan"{} x="{}" y="{}" width="{}" height="{}" fill="#bbbbbb"><title>{}: {} ({:.3f} ns), no tax attribution in this summary</title></rect>)",
                     data_attributes(bar), format_coordinate(kLabelPx), format_coordinate(y), format_coordinate(bar_px),
                     format_coordinate(kBarPx), subject(bar), format_duration_ns(bar.span_ns), bar.span_ns);
      out += '\n';
    }
    double offset_px = 0.0;
    for (std::size_t i = 0; i < kAllCategories.size(); ++i) {
      const TimeCategory c = kAllCategories[i];
      const double ns = bar.parts_ns[i].value_or(0.0);
      if (!(ns > 0)) continue;
      const double share = bar.span_ns > 0 ? ns / bar.span_ns : 0.0;
      const double width_px = share * bar_px;
      const std::string_view name = workloads::replay::to_string(c);
      fmt::format_to(o,
                     R"(<rect class="{}" data-category="{}"{} x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{}: {} {}: {:.3f} ns = {:.3f} us ({} of {})</title></rect>)",
                     workloads::replay::is_tax(c) ? "tax-bar" : "work-bar", name, data_attributes(bar),
                     format_coordinate(kLabelPx + offset_px), format_coordinate(y), format_coordinate(width_px),
                     format_coordinate(kBarPx), category_style(c).css_colour, subject(bar),
                     workloads::replay::is_tax(c) ? "tax" : "work", name, ns, ns / 1e3, format_percent(share),
                     format_duration_ns(bar.span_ns));
      out += '\n';
      offset_px += width_px;
    }
    fmt::format_to(o, R"(<text x="{}" y="{}">{}</text></g>)", format_coordinate(kLabelPx + bar_px + 6),
                   format_coordinate(text_y), format_duration_ns(bar.span_ns));
    out += '\n';
  }
  const double axis_y = static_cast<double>(bars.size()) * kRowPx + 2;
  out += horizontal_axis(scale, kLabelPx, axis_y, kBarAreaPx, 0.0, scale.is_log() ? axis_title("time", scale) : "");
  out += "</svg>\n";
  if (scale.is_log()) {
    out += "<p class=\"note\">Log scale, as the bars differ so much: a bar's length stands for its total; its "
           "segments divide that length in proportion to their shares.</p>\n";
  }
  return out;
}

}  // namespace tessera::app::report::charts

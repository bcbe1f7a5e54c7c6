#include "sim/app/report/stacked_bar_chart.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "sim/app/report/html_escape.h"
#include "sim/app/report/report_format.h"

namespace tessera::app::report {
namespace {

constexpr double kWidthPx = 960.0;
constexpr double kLabelPx = 180.0;
constexpr double kBarAreaPx = 660.0;
constexpr double kRowPx = 24.0;
constexpr double kBarPx = 16.0;
constexpr double kAxisPx = 24.0;

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

std::string stacked_bar_chart(const std::vector<StackedBar>& bars, double scale_ns, std::string_view aria_label) {
  for (const StackedBar& b : bars) scale_ns = std::max(scale_ns, b.span_ns);
  if (!(scale_ns > 0)) scale_ns = 1.0;
  const double px_per_ns = kBarAreaPx / scale_ns;
  const double height = static_cast<double>(bars.size()) * kRowPx + kAxisPx;
  std::string out;
  auto o = std::back_inserter(out);
  fmt::format_to(o, R"(<svg class="chart bars" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" role="img" aria-label="{}">)",
                 format_coordinate(kWidthPx), format_coordinate(height), html_escape(aria_label));
  out += '\n';
  for (std::size_t row = 0; row < bars.size(); ++row) {
    const StackedBar& bar = bars[row];
    const double y = static_cast<double>(row) * kRowPx + (kRowPx - kBarPx) / 2;
    const double text_y = static_cast<double>(row) * kRowPx + kRowPx / 2 + 4;
    fmt::format_to(o, R"(<text x="{}" y="{}" text-anchor="end">{}</text>)", format_coordinate(kLabelPx - 8),
                   format_coordinate(text_y), html_escape(bar.label));
    out += '\n';
    const bool attributed = std::any_of(bar.parts_ns.begin(), bar.parts_ns.end(), [](const auto& p) { return p.has_value(); });
    if (!attributed) {
      fmt::format_to(o,
                     R"(<rect class="total-bar" data-category="makespan"{} x="{}" y="{}" width="{}" height="{}" fill="#bbbbbb"><title>{}: {} ({:.3f} ns), no tax attribution in this summary</title></rect>)",
                     data_attributes(bar), format_coordinate(kLabelPx), format_coordinate(y),
                     format_coordinate(bar.span_ns * px_per_ns), format_coordinate(kBarPx), subject(bar),
                     format_duration_ns(bar.span_ns), bar.span_ns);
      out += '\n';
    }
    double offset_ns = 0.0;
    for (std::size_t i = 0; i < kAllCategories.size(); ++i) {
      const TimeCategory c = kAllCategories[i];
      const double ns = bar.parts_ns[i].value_or(0.0);
      if (!(ns > 0)) continue;
      const double share = bar.span_ns > 0 ? ns / bar.span_ns : 0.0;
      const std::string_view name = workloads::replay::to_string(c);
      fmt::format_to(o,
                     R"(<rect class="{}" data-category="{}"{} x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{}: {} {}: {:.3f} ns = {:.3f} us ({} of {})</title></rect>)",
                     workloads::replay::is_tax(c) ? "tax-bar" : "work-bar", name, data_attributes(bar),
                     format_coordinate(kLabelPx + offset_ns * px_per_ns), format_coordinate(y),
                     format_coordinate(ns * px_per_ns), format_coordinate(kBarPx), category_style(c).css_colour,
                     subject(bar), workloads::replay::is_tax(c) ? "tax" : "work", name, ns, ns / 1e3,
                     format_percent(share), format_duration_ns(bar.span_ns));
      out += '\n';
      offset_ns += ns;
    }
    fmt::format_to(o, R"(<text x="{}" y="{}">{}</text>)", format_coordinate(kLabelPx + bar.span_ns * px_per_ns + 6),
                   format_coordinate(text_y), format_duration_ns(bar.span_ns));
    out += '\n';
  }
  // A time axis under the bars: 0, a quarter, ..., the full scale.
  const double axis_y = static_cast<double>(bars.size()) * kRowPx + 2;
  fmt::format_to(o, R"(<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="#999"/>)", format_coordinate(kLabelPx),
                 format_coordinate(axis_y), format_coordinate(kLabelPx + kBarAreaPx));
  out += '\n';
  for (const AxisTick& tick : time_axis_ticks(scale_ns)) {
    const double x = kLabelPx + tick.value_ns * px_per_ns;
    fmt::format_to(o, R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#999"/><text class="axis" x="{0}" y="{3}" text-anchor="{4}">{5}</text>)",
                   format_coordinate(x), format_coordinate(axis_y), format_coordinate(axis_y + 4),
                   format_coordinate(axis_y + 16), tick.value_ns == 0 ? "start" : "middle", tick.label);
    out += '\n';
  }
  out += "</svg>\n";
  return out;
}

}  // namespace tessera::app::report

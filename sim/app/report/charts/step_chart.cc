#include "sim/app/report/charts/step_chart.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "sim/app/report/charts/axis.h"
#include "sim/app/report/charts/scale.h"
#include "sim/app/report/html_escape.h"
#include "sim/app/report/report_format.h"

namespace tessera::app::report::charts {
namespace {

constexpr double kWidthPx = 960.0;
constexpr double kHeightPx = 200.0;
constexpr double kLeftPx = 56.0;
constexpr double kRightPx = 24.0;
constexpr double kTopPx = 10.0;
constexpr double kBottomPx = 28.0;

}  // namespace

std::string step_chart(const std::vector<StepLine>& lines, std::string_view link_class, double x_max_ns) {
  for (const StepLine& l : lines) {
    x_max_ns = std::max(x_max_ns, l.end_ns);
    if (!l.steps.empty()) x_max_ns = std::max(x_max_ns, l.steps.back().time_ns);
  }
  const Scale time = Scale::linear(x_max_ns, 6);
  const double plot_w = kWidthPx - kLeftPx - kRightPx;
  const double plot_h = kHeightPx - kTopPx - kBottomPx;
  auto x_of = [&](double t) { return format_coordinate(kLeftPx + time.fraction(t) * plot_w); };
  auto y_of = [&](double u) { return format_coordinate(kTopPx + (1.0 - std::clamp(u, 0.0, 1.0)) * plot_h); };

  std::string out;
  auto o = std::back_inserter(out);
  fmt::format_to(o,
                 R"(<svg class="chart utilisation" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" role="img" aria-label="{} utilisation over time">)",
                 format_coordinate(kWidthPx), format_coordinate(kHeightPx), html_escape(link_class));
  out += '\n';
  for (int pct : {0, 50, 100}) {
    fmt::format_to(o, R"(<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="#e3e3e3"/><text class="axis" x="{3}" y="{4}" text-anchor="end">{5}%</text>)",
                   format_coordinate(kLeftPx), y_of(pct / 100.0), format_coordinate(kLeftPx + plot_w),
                   format_coordinate(kLeftPx - 6), format_coordinate(kTopPx + (1.0 - pct / 100.0) * plot_h + 4), pct);
    out += '\n';
  }
  out += horizontal_axis(time, kLeftPx, kTopPx + plot_h, plot_w, 0.0, "");
  for (const StepLine& l : lines) {
    // 0 until the first sample, then each value until the next; the last holds to the end.
    std::string d = fmt::format("M{} {}", x_of(0.0), y_of(0.0));
    for (const UtilisationStep& s : l.steps) d += fmt::format(" H{} V{}", x_of(s.time_ns), y_of(s.utilisation));
    double end_ns = l.end_ns;
    if (!l.steps.empty()) end_ns = std::max(end_ns, l.steps.back().time_ns);
    d += fmt::format(" H{}", x_of(end_ns));
    double peak = 0.0;
    for (const UtilisationStep& s : l.steps) peak = std::max(peak, s.utilisation);
    fmt::format_to(o,
                   R"(<path class="util-line" data-run="{}" data-class="{}" d="{}" fill="none" stroke="{}" stroke-width="1.5"><title>{}: mean {} utilisation over its links, peak {}</title></path>)",
                   html_escape(l.run), html_escape(link_class), d, html_escape(l.colour), html_escape(l.run),
                   html_escape(link_class), format_percent(peak));
    out += '\n';
  }
  out += "</svg>\n";
  return out;
}

}  // namespace tessera::app::report::charts

#include "sim/app/sweep/sweep_report.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/app/sweep/results_csv.h"
#include "sim/app/sweep/summary_metrics.h"
#include "sim/app/run/version.h"
#include "sim/app/report/category_style.h"
#include "sim/app/report/html_escape.h"

namespace tessera::app::sweep {
namespace {

using report::html_escape;

// The colours of the run report and the timeline (report/category_style.h), so that a part
// looks the same everywhere.
std::string_view part_colour(std::size_t category) {
  return report::category_style(static_cast<workloads::replay::TimeCategory>(category)).css_colour;
}
constexpr const char* kMakespanColour = "#9c9c9c";

constexpr double kBarWidth = 28;
constexpr double kBarGap = 14;
constexpr double kPlotHeight = 320;
constexpr double kLeft = 80;
constexpr double kTop = 20;
constexpr double kRight = 20;

// A round axis step giving about five ticks up to `max_value`.
double nice_step(double max_value) {
  const double raw = max_value / 5;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (raw <= m * magnitude) return m * magnitude;
  }
  return 10 * magnitude;
}

// The axis unit that keeps tick labels short.
std::pair<double, const char*> time_unit(double max_ns) {
  if (max_ns >= 1e6) return {1e6, "ms"};
  if (max_ns >= 1e3) return {1e3, "us"};
  return {1.0, "ns"};
}

std::string format_ns(double ns) { return fmt::format("{:.3f} ns", ns); }

std::string bar_chart(const std::vector<std::string>& labels, const std::vector<PointResult>& results) {
  const std::size_t n = results.size();
  std::vector<SummaryMetrics> metrics;
  double max_ns = 0;
  std::size_t longest_label = 0;
  for (std::size_t i = 0; i < n; ++i) {
    metrics.push_back(metrics_of(results[i].result));
    double parts = 0;
    for (const auto& p : metrics.back().parts_ns) parts += p.value_or(0.0);
    max_ns = std::max({max_ns, parts, metrics.back().makespan_ns.value_or(0.0)});
    longest_label = std::max(longest_label, labels[i].size());
  }
  if (max_ns <= 0) max_ns = 1;
  // Not a structured binding: the lambdas below capture unit_ns, which clang 14 refuses for a binding.
  const std::pair<double, const char*> unit = time_unit(max_ns);
  const double unit_ns = unit.first;
  const char* const unit_name = unit.second;
  const double step = nice_step(max_ns / unit_ns);
  const double axis_max = std::ceil(max_ns / unit_ns / step) * step;
  // Rotated by 40 degrees, a label of c characters (about 6.2 px each) spans 0.64 c x 6.2 px
  // down and 0.77 c x 6.2 px left.
  const double bottom = std::min(320.0, 24 + 6.2 * static_cast<double>(longest_label) * 0.64);
  // Labels slant down to the left: the first one needs room left of its bar.
  const double left = std::clamp(6.2 * 0.77 * static_cast<double>(longest_label) - kBarWidth, kLeft, 400.0);
  const double width = std::max(480.0, left + static_cast<double>(n) * (kBarWidth + kBarGap) + kRight);
  const double height = kTop + kPlotHeight + bottom;
  const auto y_of = [&](double ns) { return kTop + kPlotHeight * (1 - ns / unit_ns / axis_max); };

  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" "
      "role=\"img\" aria-label=\"time per point\" font-family=\"sans-serif\" font-size=\"11\">\n",
      width, height);
  for (int tick = 0; tick * step <= axis_max + step / 2; ++tick) {
    const double t = tick * step;
    const double y = kTop + kPlotHeight * (1 - t / axis_max);
    svg += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n", left, y,
                       width - kRight, y);
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{:g}</text>\n", left - 6, y + 4, t);
  }
  const double title_x = left - 56;
  svg += fmt::format(
      "<text x=\"{0:.1f}\" y=\"{1:.1f}\" transform=\"rotate(-90 {0:.1f} {1:.1f})\" text-anchor=\"middle\">time ({2})</text>\n",
      title_x, kTop + kPlotHeight / 2, unit_name);
  for (std::size_t i = 0; i < n; ++i) {
    const double x = left + kBarGap / 2 + static_cast<double>(i) * (kBarWidth + kBarGap);
    const std::string label = html_escape(labels[i]);
    const SummaryMetrics& m = metrics[i];
    bool any_part = false;
    double stacked = 0;
    for (std::size_t c = 0; c < kNumTimeCategories; ++c) {
      if (!m.parts_ns[c]) continue;
      any_part = true;
      const double v = *m.parts_ns[c];
      if (v <= 0) continue;
      const double y1 = y_of(stacked + v);
      svg += fmt::format(
          "<rect class=\"part\" x=\"{:.1f}\" y=\"{:.2f}\" width=\"{:.0f}\" height=\"{:.2f}\" fill=\"{}\">"
          "<title>point {}: {}\n{}: {}</title></rect>\n",
          x, y1, kBarWidth, y_of(stacked) - y1, part_colour(c), i, label,
          workloads::replay::to_string(time_category(c)), format_ns(v));
      stacked += v;
    }
    if (!any_part && m.makespan_ns) {
      const double y1 = y_of(*m.makespan_ns);
      svg += fmt::format(
          "<rect class=\"part\" x=\"{:.1f}\" y=\"{:.2f}\" width=\"{:.0f}\" height=\"{:.2f}\" fill=\"{}\">"
          "<title>point {}: {}\nmakespan: {}</title></rect>\n",
          x, y1, kBarWidth, y_of(0) - y1, kMakespanColour, i, label, format_ns(*m.makespan_ns));
    }
    if (!results[i].ok) {
      svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#c00\" font-size=\"16\">&#215;"
                         "<title>point {} failed: {}</title></text>\n",
                         x + kBarWidth / 2, y_of(0) - 6, i, html_escape(results[i].error));
    }
    const double lx = x + kBarWidth / 2;
    const double ly = kTop + kPlotHeight + 12;
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" transform=\"rotate(-40 {:.1f} {:.1f})\">{}</text>\n",
                       lx, ly, lx, ly, label);
  }
  svg += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#333\"/>\n", left,
                     kTop + kPlotHeight, width - kRight, kTop + kPlotHeight);
  svg += "</svg>\n";
  return svg;
}

std::string legend() {
  std::string out = "<p class=\"legend\">";
  for (std::size_t c = 0; c < kNumTimeCategories; ++c) {
    const TimeCategory category = time_category(c);
    out += fmt::format("<span><i style=\"background:{}\"></i>{}{}</span> ", part_colour(c),
                       workloads::replay::to_string(category), workloads::replay::is_tax(category) ? " (tax)" : "");
  }
  out += fmt::format("<span><i style=\"background:{}\"></i>makespan (no breakdown in the summary)</span></p>\n",
                     kMakespanColour);
  return out;
}

std::string results_table(const Study& study, const std::vector<std::vector<std::string>>& values,
                          const std::vector<PointResult>& results) {
  std::string out = "<table>\n<thead><tr>";
  for (const std::string& h : results_header(study.swept_keys())) out += "<th>" + html_escape(h) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    out += results[i].ok ? "<tr>" : "<tr class=\"failed\">";
    for (const std::string& cell : results_row(results[i], values[i])) out += "<td>" + html_escape(cell) + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

}  // namespace

std::string sweep_report_html(const Study& study, const std::vector<std::string>& labels,
                              const std::vector<std::vector<std::string>>& values, const std::vector<PointResult>& results) {
  std::size_t failed = 0;
  for (const PointResult& r : results) failed += r.ok ? 0 : 1;
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += fmt::format("<title>tessera sweep: {}</title>\n", html_escape(study.name));
  html += R"(<style>
body { font-family: sans-serif; margin: 2em; color: #222; }
.plot { overflow-x: auto; }
.legend span { margin-right: 1.2em; white-space: nowrap; }
.legend i { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.3em; vertical-align: middle; }
table { border-collapse: collapse; font-size: 12px; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
th { background: #f3f3f3; }
tr.failed td { background: #fde2e2; }
pre { background: #f6f6f6; padding: 1em; overflow-x: auto; }
</style>
</head>
<body>
)";
  html += fmt::format("<h1>Sweep: {}</h1>\n", html_escape(study.name));
  if (!study.description.empty()) html += fmt::format("<p>{}</p>\n", html_escape(study.description));
  html += fmt::format("<p>{} points, {} failed. Study file: <code>{}</code>. tessera {}.</p>\n", results.size(), failed,
                      html_escape(study.file.name), run::kVersion);
  html += "<h2>Time per point</h2>\n" + legend() + "<div class=\"plot\">\n" + bar_chart(labels, results) + "</div>\n";
  html += "<h2>Results</h2>\n<div class=\"plot\">\n" + results_table(study, values, results) + "</div>\n";
  html += "<h2>Study</h2>\n<pre>" + html_escape(study.file.text) + "</pre>\n</body>\n</html>\n";
  return html;
}

}  // namespace tessera::app::sweep

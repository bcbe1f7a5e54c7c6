#include "sim/app/sweep/sweep_report.h"

#include <fmt/format.h>

#include "sim/app/sweep/results_csv.h"
#include "sim/app/sweep/summary_metrics.h"
#include "sim/app/run/version.h"
#include "sim/app/report/category_style.h"
#include "sim/app/report/charts/stacked_column_chart.h"
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

std::string format_ns(double ns) { return fmt::format("{:.3f} ns", ns); }

// A column per point (the chart module's; its axis goes log when the points differ too much to
// compare on a linear one): its parts stacked, or its makespan alone where the summary has no
// breakdown, and a cross for a failed point.
std::string bar_chart(const std::vector<std::string>& labels, const std::vector<PointResult>& results) {
  std::vector<report::charts::Column> columns;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const SummaryMetrics m = metrics_of(results[i].result);
    report::charts::Column column;
    column.label = labels[i];
    bool any_part = false;
    for (std::size_t c = 0; c < kNumTimeCategories; ++c) {
      if (!m.parts_ns[c]) continue;
      any_part = true;
      column.segments.push_back({*m.parts_ns[c], std::string(part_colour(c)),
                                 fmt::format("point {}: {}\n{}: {}", i, labels[i],
                                             workloads::replay::to_string(time_category(c)), format_ns(*m.parts_ns[c]))});
    }
    if (!any_part && m.makespan_ns) {
      column.segments.push_back({*m.makespan_ns, kMakespanColour,
                                 fmt::format("point {}: {}\nmakespan: {}", i, labels[i], format_ns(*m.makespan_ns))});
    }
    if (!results[i].ok) column.failure = fmt::format("point {} failed: {}", i, results[i].error);
    columns.push_back(std::move(column));
  }
  return report::charts::stacked_column_chart(columns, report::charts::column_scale(columns), "time per point");
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
  const ResultColumns columns = result_columns(study.swept_keys(), values, results);
  std::string out = "<table>\n<thead><tr>";
  for (const std::string& h : results_header(study.swept_keys(), columns)) out += "<th>" + html_escape(h) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    out += results[i].ok ? "<tr>" : "<tr class=\"failed\">";
    for (const std::string& cell : results_row(results[i], values[i], columns, i)) {
      out += "<td>" + html_escape(cell) + "</td>";
    }
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

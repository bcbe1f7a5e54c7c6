#include "sim/app/validation/validation_documents.h"

#include <fmt/format.h>

#include "sim/app/validation/scatter_plot.h"
#include "sim/app/validation/validation_tables.h"
#include "sim/app/run/version.h"
#include "sim/app/report/html_escape.h"
#include "sim/config/units.h"

namespace tessera::app::validation {
namespace {

using report::html_escape;

constexpr std::string_view kStyle = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#222;max-width:1060px;margin:24px auto;padding:0 16px;line-height:1.4}
h1{font-size:1.6em;margin:0 0 4px}
h2{font-size:1.25em;border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:2em}
table{border-collapse:collapse;margin:8px 0;font-size:.88em}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:right;vertical-align:top}
th{background:#f4f4f4;font-weight:600}
td.text{text-align:left}
td.bad{background:#fde2e2}
.note{color:#666;font-size:.9em}
ul.legend{display:flex;flex-wrap:wrap;gap:6px 16px;list-style:none;padding:0;margin:8px 0;font-size:.9em}
.swatch{display:inline-block;width:12px;height:12px;margin-right:5px;vertical-align:-1px;border:1px solid rgba(0,0,0,.25)}
svg.chart{max-width:100%;height:auto;display:block;margin:4px 0 12px}
svg text{font-size:12px;fill:#222}
svg text.axis{font-size:11px;fill:#666}
)";

std::string title(const ValidationReport& r) {
  return fmt::format("Validation of {} against {}", r.system_name, r.measured_folder);
}

std::string html_table(const CellTable& t, std::size_t flag_column, const std::string& bad_value) {
  std::string out = "<table>\n<tr>";
  for (const std::string& h : t.header) out += "<th>" + html_escape(h) + "</th>";
  out += "</tr>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (std::size_t i = 0; i < row.size(); ++i) {
      const bool bad = i == flag_column && row[i] == bad_value;
      out += fmt::format("<td class=\"{}{}\">{}</td>", is_number_cell(row[i]) ? "num" : "text", bad ? " bad" : "", html_escape(row[i]));
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

// The library collectives' points: one series per op and ranks.
std::vector<ScatterPoint> collective_scatter_points(const ValidationReport& r) {
  std::vector<ScatterPoint> points;
  for (const CollectiveCase& c : r.collectives) {
    if (!c.predicted_ns) continue;
    points.push_back({c.measured_ns, *c.predicted_ns, fmt::format("{} on {}", c.collective.op, c.collective.ranks),
                      fmt::format("{} {} on {} ranks ({}): measured {:.3f} us, predicted {:.3f} us, error {:+.1f}%", c.collective.op,
                                  sim::config::format_bytes(c.collective.size_bytes), c.collective.ranks, c.collective.forced_text(),
                                  c.measured_ns / 1e3, *c.predicted_ns / 1e3, c.error_percent())});
  }
  return points;
}

constexpr std::string_view kCollectivesNote =
    "The collective library's results (cases nccl_*), predicted with kind collective, library nccl, host one_thread; judged "
    "apart from the pattern cases (not in the MAPE above them nor in --max-mape). forced: the algorithm/protocol the "
    "measurement forced through NCCL_ALGO/NCCL_PROTO (auto: NCCL chose); Tessera's choice: what Tessera's model of NCCL ran; "
    "NCCL model: NCCL's own cost-model time for its choice.";

std::vector<ScatterPoint> scatter_points(const ValidationReport& r) {
  std::vector<ScatterPoint> points;
  for (const ValidationCase& c : r.cases) {
    if (!c.predicted_ns) continue;
    points.push_back({c.measured_ns, *c.predicted_ns, c.source->case_name,
                      fmt::format("{} {} {} (ranks {}): measured {:.3f} us, predicted {:.3f} us, error {:+.1f}%", c.source->case_name,
                                  c.variant, c.params_text, c.source->tessera_ranks, c.measured_ns / 1e3, *c.predicted_ns / 1e3,
                                  c.error_percent())});
  }
  return points;
}

}  // namespace

std::string validation_markdown(const ValidationReport& r) {
  std::string out = fmt::format("# {}\n\n", title(r));
  out += fmt::format("Tessera {}; system `{}`; every passed, non-shared pattern result{} under `{}`. Pattern results are never "
                     "used by `tessera calibrate`.\n\n",
                     run::kVersion, r.system_argument, r.collectives.empty() ? "" : " and collective-library result", r.measured_folder);
  out += "## Summary\n\n";
  for (const std::string& line : summary_lines(r)) out += "- " + line + "\n";
  // A folder of library collectives alone has no pattern sections.
  if (!r.cases.empty() || r.collectives.empty()) {
    out += "\n## Cases\n\n" + markdown_table(cases_table(r));
    out += "\n## Variants\n\nCases that differ only by `workload.variant`, fastest first.\n\n";
    out += r.groups.empty() ? "No case was measured in two variants or more.\n" : markdown_table(groups_table(r));
  }
  if (!r.collectives.empty()) out += fmt::format("\n## Collectives\n\n{}\n\n", kCollectivesNote) + markdown_table(collectives_table(r));
  if (!r.skipped.empty()) {
    out += "\n## Skipped files\n\n";
    for (const measured::SkippedFile& s : r.skipped) out += fmt::format("- `{}`: {}\n", s.display_name, s.reason);
  }
  return out;
}

std::string validation_html(const ValidationReport& r) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n",
      html_escape(title(r)), kStyle);
  out += fmt::format("<h1>{}</h1>\n<p class=\"note\">Tessera {}; system <code>{}</code>; every passed, non-shared pattern result{} "
                     "under <code>{}</code>.</p>\n",
                     html_escape(title(r)), html_escape(run::kVersion), html_escape(r.system_argument),
                     r.collectives.empty() ? "" : " and collective-library result", html_escape(r.measured_folder));
  out += "<h2>Summary</h2>\n<ul>\n";
  for (const std::string& line : summary_lines(r)) out += "<li>" + html_escape(line) + "</li>\n";
  out += "</ul>\n";
  // A folder of library collectives alone has no pattern sections.
  if (!r.cases.empty() || r.collectives.empty()) {
    out += "<h2>Predicted against measured</h2>\n";
    const std::vector<ScatterPoint> points = scatter_points(r);
    out += log_log_scatter_svg(points) + scatter_legend_html(points);
    out += "<p class=\"note\">Log-log. The solid line is perfect prediction; dashed lines &plusmn;10%, dotted &plusmn;25%.</p>\n";
    out += "<h2>Cases</h2>\n" + html_table(cases_table(r), 5, "failed");
    out += "<h2>Variants</h2>\n<p class=\"note\">Cases that differ only by workload.variant, fastest first.</p>\n";
    out += r.groups.empty() ? "<p>No case was measured in two variants or more.</p>\n" : html_table(groups_table(r), 6, "NO");
  }
  if (!r.collectives.empty()) {
    out += fmt::format("<h2>Collectives</h2>\n<p class=\"note\">{}</p>\n", html_escape(std::string(kCollectivesNote)));
    const std::vector<ScatterPoint> collective_points = collective_scatter_points(r);
    out += log_log_scatter_svg(collective_points) + scatter_legend_html(collective_points);
    out += "<p class=\"note\">Log-log, one colour per op and rank count. The solid line is perfect prediction; dashed lines "
           "&plusmn;10%, dotted &plusmn;25%.</p>\n";
    out += html_table(collectives_table(r), 5, "failed");
  }
  if (!r.skipped.empty()) {
    out += "<h2>Skipped files</h2>\n<ul>\n";
    for (const measured::SkippedFile& s : r.skipped) {
      out += fmt::format("<li><code>{}</code>: {}</li>\n", html_escape(s.display_name), html_escape(s.reason));
    }
    out += "</ul>\n";
  }
  return out + "</body>\n</html>\n";
}

}  // namespace tessera::app::validation

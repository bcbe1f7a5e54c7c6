#include "sim/app/report/compare_html.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "sim/app/report/busiest_resource.h"
#include "sim/app/report/category_style.h"
#include "sim/app/report/charts/category_legend.h"
#include "sim/app/report/charts/grouped_bar_chart.h"
#include "sim/app/report/charts/stacked_bar_chart.h"
#include "sim/app/report/html_escape.h"
#include "sim/app/report/report_format.h"
#include "sim/app/report/report_style.h"
#include "sim/app/report/series_colours.h"
#include "sim/app/time_unit.h"

namespace tessera::app::report {
namespace {

// What a side ran, in a few words: "ag_gemm on mi300x-8, variant bsp".
std::string what_ran(const run::RunResult& r) {
  std::string what = fmt::format("{} on {}", r.workload, r.system);
  if (const auto variant = r.variant()) what += fmt::format(", variant {}", *variant);
  if (const auto mapping = r.mapping()) what += fmt::format(", mapping {}", *mapping);
  if (r.result.measurement) what += fmt::format(", op {}", r.result.measurement->op);
  return what;
}

charts::StackedBar bar_of(const char* name, const run::RunResult& r) {
  charts::StackedBar bar;
  bar.label = name;
  bar.run = name;
  bar.span_ns = r.makespan_ns();
  if (r.result.breakdown) {
    for (std::size_t i = 0; i < kAllCategories.size(); ++i) {
      bar.parts_ns[i] = run::category_ns(r.result.breakdown->times, kAllCategories[i]);
    }
  }
  return bar;
}

std::string quantity_label(const CompareQuantity& q) { return q.is_tax ? q.name + " (tax)" : q.name; }

std::string ratio_text(const CompareQuantity& q) {
  if (const auto ratio = q.ratio()) return fmt::format("B / A = {:.3f}", *ratio);
  if (q.a_ns && q.b_ns && *q.a_ns == 0 && *q.b_ns == 0) return "both 0";
  return "B / A: n/a";
}

void write_sides(std::string& out, const CompareSide& a, const CompareSide& b) {
  auto o = std::back_inserter(out);
  out += "<section id=\"sides\">\n<h2>A and B</h2>\n<table>\n<tr><th class=\"text\">side</th><th class=\"text\">config</th>"
         "<th class=\"text\">what ran</th><th>makespan</th><th class=\"text\">complete</th></tr>\n";
  for (const auto& [name, side] : {std::pair{"A", &a}, std::pair{"B", &b}}) {
    fmt::format_to(o, "<tr><td class=\"text\">{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td>"
                      "<td title=\"{:.3f} ns\">{}</td><td class=\"text\">{}</td></tr>\n",
                   name, html_escape(side->config), html_escape(what_ran(side->result)), side->result.makespan_ns(),
                   format_duration_ns(side->result.makespan_ns()), side->result.result.complete ? "true" : "false");
  }
  out += "</table>\n</section>\n";
}

void write_differences(std::string& out, const std::vector<run::ConfigDifference>& differences) {
  auto o = std::back_inserter(out);
  out += "<section id=\"differences\">\n<h2>What differs</h2>\n";
  if (differences.empty()) {
    out += "<p class=\"note\">A and B are the same configuration.</p>\n</section>\n";
    return;
  }
  fmt::format_to(o, "<p>A and B differ in {} key{} of their resolved configs (every default filled in):</p>\n",
                 differences.size(), differences.size() == 1 ? "" : "s");
  out += "<table class=\"differences\">\n<tr><th class=\"text\">key</th><th class=\"text\">A</th><th class=\"text\">B</th></tr>\n";
  for (const run::ConfigDifference& d : differences) {
    fmt::format_to(o, "<tr><td class=\"text\"><code>{}</code></td><td class=\"text\">{}</td><td class=\"text\">{}</td></tr>\n",
                   html_escape(d.key), html_escape(d.a_text), html_escape(d.b_text));
  }
  out += "</table>\n</section>\n";
}

void write_time(std::string& out, const CompareSide& a, const CompareSide& b) {
  out += "<section id=\"time\">\n<h2>Where the time goes</h2>\n"
         "<p class=\"note\">One bar per side; its length is the makespan, its segments the useful work and the three "
         "multi-GPU taxes along its critical GPU (hover for values).</p>\n";
  out += charts::category_legend();
  const std::vector<charts::StackedBar> bars{bar_of("A", a.result), bar_of("B", b.result)};
  out += charts::stacked_bar_chart(bars, charts::bar_scale(bars), "time of A and B by category");
  out += "</section>\n";
}

void write_side_by_side(std::string& out, const std::vector<CompareQuantity>& quantities) {
  auto o = std::back_inserter(out);
  out += "<section id=\"side-by-side\">\n<h2>A and B side by side</h2>\n";
  if (quantities.empty()) {
    out += "<p class=\"note\">Neither run has a makespan to compare.</p>\n</section>\n";
    return;
  }
  const std::vector<charts::Series> series{{"A", std::string(series_colour(0))}, {"B", std::string(series_colour(1))}};
  std::vector<charts::BarGroup> groups;
  for (const CompareQuantity& q : quantities) groups.push_back({quantity_label(q), {q.a_ns, q.b_ns}, ratio_text(q)});
  out += "<ul class=\"legend\">\n";
  for (const charts::Series& s : series) {
    fmt::format_to(o, "<li><span class=\"swatch\" style=\"background:{}\"></span>{}</li>\n", s.colour, s.name);
  }
  out += "</ul>\n";
  out += charts::grouped_bar_chart(groups, series, charts::grouped_scale(groups), "the makespan and each part, A and B");

  double max_ns = 0.0;
  for (const CompareQuantity& q : quantities) {
    for (const std::optional<double>& v : {q.a_ns, q.b_ns}) max_ns = std::max(max_ns, v ? std::fabs(*v) : 0.0);
  }
  const TimeUnit unit = pick_time_unit(max_ns);
  const std::string_view u = unit_symbol(unit);
  fmt::format_to(o, "<table class=\"comparison\">\n<tr><th class=\"text\">quantity</th><th>A ({0})</th><th>B ({0})</th>"
                    "<th>B &minus; A ({0})</th><th>change (%)</th><th>B / A</th></tr>\n",
                 u);
  const auto cell = [&](const std::optional<double>& ns) {
    return ns ? fmt::format("<td title=\"{:.3f} ns\">{}</td>", *ns, format_time(*ns, unit)) : std::string("<td class=\"na\">&ndash;</td>");
  };
  for (const CompareQuantity& q : quantities) {
    const bool both = q.a_ns && q.b_ns;
    const std::optional<double> delta = both ? std::optional<double>(*q.b_ns - *q.a_ns) : std::nullopt;
    const std::optional<double> ratio = q.ratio();
    fmt::format_to(o, "<tr><td class=\"text\">{}</td>{}{}{}{}{}</tr>\n", html_escape(quantity_label(q)), cell(q.a_ns),
                   cell(q.b_ns),
                   delta ? fmt::format("<td title=\"{:.3f} ns\">{}</td>", *delta, format_time_change(*delta, unit))
                         : std::string("<td class=\"na\">&ndash;</td>"),
                   ratio ? fmt::format("<td>{:+.2f}</td>", 100.0 * (*ratio - 1.0)) : std::string("<td class=\"na\">&ndash;</td>"),
                   ratio ? fmt::format("<td class=\"ratio\">{:.3f}</td>", *ratio) : std::string("<td class=\"na\">&ndash;</td>"));
  }
  out += "</table>\n<p class=\"note\">&ndash;: the value is missing on a side, or A is 0.</p>\n</section>\n";
}

void write_busiest(std::string& out, const CompareSide& a, const CompareSide& b) {
  auto o = std::back_inserter(out);
  out += "<section id=\"busiest\">\n<h2>Busiest resource</h2>\n"
         "<p class=\"note\">The one resource each run kept busiest over its makespan (its bytes over its bandwidth "
         "times the makespan); a low figure says the run is not bandwidth-bound: latency or too few bytes in flight "
         "hold it back.</p>\n<table>\n<tr><th class=\"text\">side</th><th class=\"text\">class</th>"
         "<th class=\"text\">resource</th><th>utilisation</th></tr>\n";
  for (const auto& [name, side] : {std::pair{"A", &a}, std::pair{"B", &b}}) {
    if (const std::optional<BusiestResource> busiest = busiest_resource(side->result)) {
      fmt::format_to(o, "<tr><td class=\"text\">{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td><td>{}</td></tr>\n",
                     name, html_escape(busiest->resource_class), html_escape(busiest->resource),
                     format_percent(busiest->utilisation));
    } else {
      fmt::format_to(o, "<tr><td class=\"text\">{}</td><td class=\"text na\" colspan=\"3\">no resource carried bytes in "
                        "this run</td></tr>\n",
                     name);
    }
  }
  out += "</table>\n</section>\n";
}

}  // namespace

std::optional<double> CompareQuantity::ratio() const {
  if (!a_ns || !b_ns || *a_ns == 0) return std::nullopt;
  return *b_ns / *a_ns;
}

std::string compare_html(const CompareSide& a, const CompareSide& b, const std::vector<run::ConfigDifference>& differences,
                         const std::vector<CompareQuantity>& quantities) {
  std::string out;
  auto o = std::back_inserter(out);
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  fmt::format_to(o, "<title>{}</title>\n",
                 html_escape(fmt::format("Tessera compare: {} / {}", what_ran(a.result), what_ran(b.result))));
  fmt::format_to(o, "<style>{}</style>\n</head>\n<body>\n<h1>Tessera compare</h1>\n", kReportStyle);
  fmt::format_to(o, "<p class=\"note\">A: {}<br>B: {}<br>Times are simulated. tessera {}.</p>\n", html_escape(a.config),
                 html_escape(b.config), html_escape(a.result.tessera_version));
  write_sides(out, a, b);
  write_differences(out, differences);
  write_time(out, a, b);
  write_side_by_side(out, quantities);
  write_busiest(out, a, b);
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace tessera::app::report

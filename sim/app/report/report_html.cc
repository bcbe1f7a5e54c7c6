#include "sim/app/report/report_html.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "sim/app/report/category_style.h"
#include "sim/app/report/charts/category_legend.h"
#include "sim/app/report/charts/stacked_bar_chart.h"
#include "sim/app/report/charts/step_chart.h"
#include "sim/app/report/html_escape.h"
#include "sim/app/report/link_utilisation.h"
#include "sim/app/report/report_format.h"
#include "sim/app/report/report_style.h"
#include "sim/app/report/series_colours.h"
#include "sim/app/time_unit.h"

namespace tessera::app::report {
namespace {

using Out = std::back_insert_iterator<std::string>;
using charts::StackedBar;
using charts::StepLine;
using workloads::replay::CategoryTimes;

std::string text_or_dash(const std::optional<std::string>& s) { return s ? html_escape(*s) : "&ndash;"; }

// The breakdown along the critical GPU, when the run has one.
std::optional<CategoryTimes> critical_times(const run::RunResult& r) {
  if (!r.result.breakdown) return std::nullopt;
  return r.result.breakdown->times;
}

// The GPUs that ran kernels.
std::size_t gpus_with_kernels(const run::RunResult& r) {
  if (!r.result.breakdown) return 0;
  std::set<std::uint32_t> ranks;
  for (const workloads::KernelTiming& k : r.result.breakdown->kernels) ranks.insert(k.rank);
  return ranks.size();
}

StackedBar bar_of(std::string label, std::string run, std::optional<std::uint32_t> rank,
                  const std::optional<CategoryTimes>& times, double span_ns) {
  StackedBar bar;
  bar.label = std::move(label);
  bar.run = std::move(run);
  bar.rank = rank;
  bar.span_ns = span_ns;
  if (times) {
    for (std::size_t i = 0; i < kAllCategories.size(); ++i) bar.parts_ns[i] = run::category_ns(*times, kAllCategories[i]);
  }
  return bar;
}

void write_title(Out o, const std::vector<LabeledRun>& runs) {
  std::string title = "Tessera report";
  if (runs.size() == 1) {
    const run::RunResult& r = runs.front().result;
    title += fmt::format(": {} on {}", r.workload, r.system);
  } else {
    title += fmt::format(": {} runs", runs.size());
  }
  fmt::format_to(o, "<title>{}</title>\n", html_escape(title));
}

void write_runs(std::string& out, const std::vector<LabeledRun>& runs) {
  auto o = std::back_inserter(out);
  out += "<section id=\"runs\">\n<h2>Runs</h2>\n<table>\n<tr><th class=\"text\">run</th><th class=\"text\">system</th>"
         "<th class=\"text\">workload</th><th class=\"text\">variant / mapping</th><th>makespan</th><th>GPUs</th>"
         "<th>kernels</th><th>events</th><th>seed</th><th class=\"text\">complete</th><th class=\"text\">tessera</th></tr>\n";
  for (const LabeledRun& run : runs) {
    const run::RunResult& r = run.result;
    std::optional<std::string> variant = r.variant();
    if (!variant) variant = r.mapping();
    const double makespan = r.makespan_ns();
    fmt::format_to(o,
                   "<tr><td class=\"text\">{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td>"
                   "<td title=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td></tr>\n",
                   html_escape(run.label), html_escape(r.system), html_escape(r.workload), text_or_dash(variant),
                   fmt::format("{:.3f} ns", makespan), format_duration_ns(makespan), gpus_with_kernels(r),
                   r.result.breakdown ? r.result.breakdown->kernels.size() : 0, r.result.events, r.seed,
                   r.result.complete ? "true" : "false", html_escape(r.tessera_version));
  }
  out += "</table>\n";
  for (const LabeledRun& run : runs) {
    const std::vector<std::string>& zero = run.result.zero_latency_keys;
    if (zero.empty()) continue;
    std::string keys;
    for (const std::string& k : zero) {
      if (!keys.empty()) keys += ", ";
      keys += html_escape(k);
    }
    fmt::format_to(o, "<p class=\"note\">{}: latencies taken as 0 until calibrated: {}</p>\n", html_escape(run.label), keys);
  }
  for (const LabeledRun& run : runs) {
    std::string keys;
    for (const std::string& k : run.result.estimated_keys) keys += (keys.empty() ? "" : ", ") + html_escape(k);
    if (keys.empty()) continue;
    fmt::format_to(o, "<p class=\"note\">{}: estimates, not measurements, in the system file: {}</p>\n",
                   html_escape(run.label), keys);
  }
  out += "</section>\n";
}

// A table of the parts of each row's span, every time in one unit chosen for the longest span,
// and the share of the span below each.
void write_parts_table(std::string& out, std::string_view first_header, const std::vector<StackedBar>& bars) {
  auto o = std::back_inserter(out);
  double max_ns = 0.0;
  for (const StackedBar& bar : bars) max_ns = std::max(max_ns, bar.span_ns);
  const TimeUnit unit = pick_time_unit(max_ns);
  fmt::format_to(o, "<table>\n<caption class=\"note\">times in {}; below each value its share of the span</caption>\n"
                 "<tr><th class=\"text\">{}</th><th>span ({})</th>", unit_symbol(unit), first_header, unit_symbol(unit));
  for (TimeCategory c : kAllCategories) {
    std::string name(workloads::replay::to_string(c));
    std::replace(name.begin(), name.end(), '_', ' ');  // lets long names wrap
    fmt::format_to(o, "<th>{}{}</th>", name, workloads::replay::is_tax(c) ? " (tax)" : "");
  }
  out += "<th>all taxes</th></tr>\n";
  for (const StackedBar& bar : bars) {
    fmt::format_to(o, "<tr><td class=\"text\">{}</td><td title=\"{:.3f} ns\">{}</td>", html_escape(bar.label), bar.span_ns,
                   format_time(bar.span_ns, unit));
    double taxes_ns = 0.0;
    bool any = false;
    for (std::size_t i = 0; i < kAllCategories.size(); ++i) {
      const std::optional<double> ns = bar.parts_ns[i];
      if (!ns) {
        out += "<td class=\"na\">&ndash;</td>";
        continue;
      }
      any = true;
      if (workloads::replay::is_tax(kAllCategories[i])) taxes_ns += *ns;
      const double share = bar.span_ns > 0 ? *ns / bar.span_ns : 0.0;
      fmt::format_to(o, "<td title=\"{:.3f} ns\">{}<span class=\"share\">{}</span></td>", *ns, format_time(*ns, unit),
                     format_percent(share));
    }
    if (any) {
      fmt::format_to(o, "<td title=\"{:.3f} ns\">{}<span class=\"share\">{}</span></td></tr>\n", taxes_ns,
                     format_time(taxes_ns, unit), format_percent(bar.span_ns > 0 ? taxes_ns / bar.span_ns : 0.0));
    } else {
      out += "<td class=\"na\">&ndash;</td></tr>\n";
    }
  }
  out += "</table>\n";
}

void write_time(std::string& out, const std::vector<LabeledRun>& runs) {
  out += "<section id=\"time\">\n<h2>Where the time goes</h2>\n";
  out += "<p class=\"note\">One bar per run; its length is the makespan, its segments the useful work and the three "
         "multi-GPU taxes (hover for values).</p>\n";
  out += charts::category_legend();
  std::vector<StackedBar> bars;
  for (const LabeledRun& run : runs) {
    bars.push_back(bar_of(run.label, run.label, std::nullopt, critical_times(run.result), run.result.makespan_ns()));
  }
  out += charts::stacked_bar_chart(bars, charts::bar_scale(bars), "time per run by category");
  write_parts_table(out, "run", bars);
  out += "</section>\n";

  out += "<section id=\"gpus\">\n<h2>Per GPU</h2>\n";
  bool any = false;
  for (const LabeledRun& run : runs) any = any || (run.result.result.breakdown && !run.result.result.breakdown->gpu_times.empty());
  if (any) {
    out += "<p class=\"note\">One bar per GPU of each run, labelled GPU 0, GPU 1, ...: each covers the run's whole "
           "makespan and splits it into the seven parts below (a GPU that finishes early is idle, or waits at a "
           "barrier, until the end). The run's own bar above is its critical GPU's.</p>\n";
    out += charts::category_legend();
  }
  for (const LabeledRun& run : runs) {
    if (!run.result.result.breakdown || run.result.result.breakdown->gpu_times.empty()) continue;
    std::vector<StackedBar> gpu_bars;
    const double makespan_ns = run.result.makespan_ns();
    const std::vector<CategoryTimes>& per_gpu = run.result.result.breakdown->gpu_times;
    for (std::uint32_t r = 0; r < per_gpu.size(); ++r) {
      // Each GPU's breakdown covers [0, makespan].
      gpu_bars.push_back(bar_of(fmt::format("GPU {}", r), run.label, r, per_gpu[r], makespan_ns));
    }
    fmt::format_to(std::back_inserter(out), "<h3>{}: {} GPU{}</h3>\n", html_escape(run.label), per_gpu.size(),
                   per_gpu.size() == 1 ? "" : "s");
    out += charts::stacked_bar_chart(gpu_bars, charts::bar_scale(gpu_bars), run.label + ": time per GPU by category");
    write_parts_table(out, "GPU", gpu_bars);
  }
  if (!any) out += "<p class=\"note\">No per-GPU attribution in these runs.</p>\n";
  out += "</section>\n";
}

// Hit rate 0 is red, 1 is green; light enough for dark text.
std::string heat_colour(double fraction) {
  return fmt::format("hsl({:.0f},65%,78%)", 120.0 * std::clamp(fraction, 0.0, 1.0));
}

std::string rate_cell(std::optional<double> rate) {
  if (!rate || *rate < 0) return "<td class=\"na\">&ndash;</td>";
  return fmt::format("<td style=\"background:{}\">{}</td>", heat_colour(*rate), format_percent(*rate));
}

void write_caches(std::string& out, const std::vector<LabeledRun>& runs) {
  auto o = std::back_inserter(out);
  out += "<section id=\"caches\">\n<h2>Cache hit rates</h2>\n<table class=\"heat\">\n"
         "<tr><th class=\"text\">run</th><th>L2 (all XCDs)</th><th>MALL</th></tr>\n";
  for (const LabeledRun& run : runs) {
    const std::optional<workloads::Traffic>& traffic = run.result.result.traffic;
    fmt::format_to(o, "<tr><td class=\"text\">{}</td>{}{}</tr>\n", html_escape(run.label),
                   rate_cell(traffic ? traffic->l2_hit_rate : std::nullopt),
                   rate_cell(traffic ? traffic->mall_hit_rate : std::nullopt));
  }
  out += "</table>\n";
  for (const LabeledRun& run : runs) {
    const std::optional<workloads::Traffic>& traffic = run.result.result.traffic;
    if (!traffic || !traffic->l2_hit_rate_per_xcd || traffic->l2_hit_rate_per_xcd->empty()) continue;
    const auto& per_xcd = *traffic->l2_hit_rate_per_xcd;
    std::size_t num_xcds = 0;
    for (const auto& row : per_xcd) num_xcds = std::max(num_xcds, row.size());
    fmt::format_to(o, "<h3>{}: L2 hit rate per XCD</h3>\n<table class=\"heat\">\n<tr><th class=\"text\">GPU</th>",
                   html_escape(run.label));
    for (std::size_t x = 0; x < num_xcds; ++x) fmt::format_to(o, "<th>XCD {}</th>", x);
    out += "</tr>\n";
    for (std::size_t r = 0; r < per_xcd.size(); ++r) {
      const auto& row = per_xcd[r];
      fmt::format_to(o, "<tr><td class=\"text\">GPU {}</td>", r);
      for (std::size_t x = 0; x < num_xcds; ++x) out += rate_cell(x < row.size() ? row[x] : std::nullopt);
      out += "</tr>\n";
    }
    out += "</table>\n";
  }
  out += "<p class=\"note\">&ndash;: nothing was loaded there.</p>\n</section>\n";
}

// The bytes a run moved over one link class, when it recorded any.
std::optional<double> class_bytes(const run::RunResult& r, const std::string& link_class) {
  if (!r.result.traffic) return std::nullopt;
  const auto& bytes = r.result.traffic->link_class_bytes;
  const auto it = bytes.find(link_class);
  if (it == bytes.end()) return std::nullopt;
  return static_cast<double>(it->second);
}

void write_link_bytes(std::string& out, const std::vector<LabeledRun>& runs) {
  auto o = std::back_inserter(out);
  std::set<std::string> classes;
  for (const LabeledRun& run : runs) {
    if (!run.result.result.traffic) continue;
    for (const auto& [name, bytes] : run.result.result.traffic->link_class_bytes) classes.insert(name);
  }
  out += "<section id=\"link-bytes\">\n<h2>Bytes per link class</h2>\n";
  if (classes.empty()) {
    out += "<p class=\"note\">No link traffic recorded in these runs.</p>\n</section>\n";
    return;
  }
  out += "<table>\n<tr><th class=\"text\">link class</th>";
  for (const LabeledRun& run : runs) fmt::format_to(o, "<th>{}</th>", html_escape(run.label));
  out += "</tr>\n";
  for (const std::string& name : classes) {
    fmt::format_to(o, "<tr><td class=\"text\">{}</td>", html_escape(name));
    for (const LabeledRun& run : runs) {
      if (const std::optional<double> bytes = class_bytes(run.result, name)) {
        fmt::format_to(o, "<td title=\"{:.0f} bytes\">{}</td>", *bytes, format_bytes(*bytes));
      } else {
        out += "<td class=\"na\">&ndash;</td>";
      }
    }
    out += "</tr>\n";
  }
  out += "</table>\n</section>\n";
}

void write_utilisation(std::string& out, const std::vector<LabeledRun>& runs) {
  auto o = std::back_inserter(out);
  out += "<section id=\"utilisation\">\n<h2>Link utilisation over time</h2>\n";
  std::map<std::string, std::vector<StepLine>> lines_by_class;
  double x_max_ns = 0.0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::optional<workloads::Traffic>& traffic = runs[i].result.result.traffic;
    if (!traffic || traffic->link_utilisation.empty()) continue;
    const double makespan = runs[i].result.makespan_ns();
    x_max_ns = std::max(x_max_ns, makespan);
    for (auto& [cls, steps] : class_average_utilisation(traffic->link_utilisation, makespan)) {
      lines_by_class[cls].push_back({runs[i].label, std::string(series_colour(i)), makespan, std::move(steps)});
    }
  }
  if (lines_by_class.empty()) {
    out += "<p class=\"note\">No link utilisation recorded in these runs (it is recorded by <code>tessera run --out "
           "DIR</code> for tile-level workloads).</p>\n</section>\n";
    return;
  }
  out += "<p class=\"note\">The mean utilisation over the links of each class, as a step function of simulated time.</p>\n"
         "<ul class=\"legend\">\n";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].result.result.traffic || runs[i].result.result.traffic->link_utilisation.empty()) continue;
    fmt::format_to(o, "<li><span class=\"swatch\" style=\"background:{}\"></span>{}</li>\n",
                   series_colour(i), html_escape(runs[i].label));
  }
  out += "</ul>\n";
  for (const auto& [cls, lines] : lines_by_class) {
    fmt::format_to(o, "<h3>{}</h3>\n", html_escape(cls));
    out += charts::step_chart(lines, cls, x_max_ns);
  }
  out += "</section>\n";
}

void write_configs(std::string& out, const std::vector<LabeledRun>& runs) {
  auto o = std::back_inserter(out);
  out += "<section id=\"config\">\n<h2>Configs</h2>\n";
  for (const LabeledRun& run : runs) {
    fmt::format_to(o, "<h3>{}</h3>\n", html_escape(run.label));
    if (run.config_yaml.empty()) {
      out += "<p class=\"note\">(no config recorded)</p>\n";
    } else {
      fmt::format_to(o, "<pre class=\"config\">{}</pre>\n", html_escape(run.config_yaml));
    }
  }
  out += "</section>\n";
}

}  // namespace

std::string report_html(const std::vector<LabeledRun>& runs) {
  std::string out;
  auto o = std::back_inserter(out);
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  write_title(o, runs);
  fmt::format_to(o, "<style>{}</style>\n</head>\n<body>\n<h1>Tessera report</h1>\n", kReportStyle);
  fmt::format_to(o, "<p class=\"note\">{} run{}. Times are simulated; bars compare on one scale.</p>\n", runs.size(),
                 runs.size() == 1 ? "" : "s");
  write_runs(out, runs);
  write_time(out, runs);
  write_caches(out, runs);
  write_link_bytes(out, runs);
  write_utilisation(out, runs);
  write_configs(out, runs);
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace tessera::app::report

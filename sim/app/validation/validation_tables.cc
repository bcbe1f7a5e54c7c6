#include "sim/app/validation/validation_tables.h"

#include <cctype>
#include <cstdlib>

#include <fmt/format.h>

#include "sim/config/units.h"

namespace tessera::app::validation {
namespace {

std::string percent(const std::optional<double>& fraction) {
  return fraction ? fmt::format("{:.1f}%", 100 * *fraction) : "n/a";
}

std::string escape_pipes(const std::string& cell) {
  std::string out;
  for (char c : cell) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

// A column of numbers (every cell reads as one whole, "-" allowed) aligns right.
bool is_numeric_column(const CellTable& t, std::size_t column) {
  bool any = false;
  for (const auto& row : t.rows) {
    const std::string& cell = row[column];
    if (cell == "-") continue;
    if (!is_number_cell(cell)) return false;
    any = true;
  }
  return any;
}

}  // namespace

namespace {

// NCCL names its protocols LL, LL128, Simple; the workload's keys (and the forced column) are lower case.
std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

bool is_number_cell(const std::string& cell) {
  char* end = nullptr;
  std::strtod(cell.c_str(), &end);
  return !cell.empty() && end == cell.c_str() + cell.size();
}

CellTable cases_table(const ValidationReport& r) {
  CellTable t{{"case", "variant", "parameters", "ranks", "measured (us)", "predicted (us)", "error (%)"}, {}};
  for (const ValidationCase& c : r.cases) {
    t.rows.push_back({c.source->case_name, c.variant.empty() ? "-" : c.variant, c.params_text,
                      std::to_string(c.source->tessera_ranks), fmt::format("{:.3f}", c.measured_ns / 1e3),
                      c.predicted_ns ? fmt::format("{:.3f}", *c.predicted_ns / 1e3) : "failed",
                      c.predicted_ns ? fmt::format("{:+.1f}", c.error_percent()) : c.error});
  }
  return t;
}

CellTable groups_table(const ValidationReport& r) {
  CellTable t{{"case", "parameters", "ranks", "measured order", "predicted order", "measured gap (%)", "fastest predicted"}, {}};
  for (const VariantGroup& g : r.groups) {
    std::vector<std::string> measured;
    for (const VariantTime& v : g.variants) measured.push_back(v.variant);
    const std::string verdict = g.agrees() ? "yes" : (g.significant() ? "NO" : "no (gap under 5%)");
    t.rows.push_back({g.case_name, g.params_text, std::to_string(g.ranks), order_text(measured), order_text(g.predicted_order),
                      fmt::format("{:.2f}", g.measured_gap_percent()), verdict});
  }
  return t;
}

CellTable collectives_table(const ValidationReport& r) {
  CellTable t{{"op", "ranks", "forced", "size", "measured (us)", "predicted (us)", "error (%)", "Tessera's choice", "channels",
               "NCCL model (us)", "NCCL model error (%)"},
              {}};
  for (const CollectiveCase& c : r.collectives) {
    const auto model_error = c.library_model_error_percent();
    t.rows.push_back({c.collective.op, std::to_string(c.collective.ranks), c.collective.forced_text(),
                      sim::config::format_bytes(c.collective.size_bytes), fmt::format("{:.2f}", c.measured_ns / 1e3),
                      c.predicted_ns ? fmt::format("{:.2f}", *c.predicted_ns / 1e3) : "failed",
                      c.predicted_ns ? fmt::format("{:+.1f}", c.error_percent()) : c.error,
                      c.figures ? fmt::format("{}/{}", c.figures->algorithm, lower(c.figures->protocol)) : "-",
                      c.figures ? std::to_string(c.figures->channels) : "-",
                      model_error ? fmt::format("{:.2f}", c.figures->library_model_time_us) : "-",
                      model_error ? fmt::format("{:+.1f}", *model_error) : "-"});
  }
  return t;
}

namespace {

// The pattern cases' lines: MAPE (and --max-mape's verdict), worst case, order agreement.
void append_pattern_lines(const ValidationReport& r, std::vector<std::string>& lines);

// "MAPE 12.34% over 40 of 40 cases, worst +41.2% (all_reduce 8 MiB auto, FILE); NCCL's own model 20.5%".
std::string collective_class_line(const ValidationReport& r, const CollectiveClassSummary& c, const std::string& what) {
  if (c.cases == 0) return fmt::format("{}: no cases", what);
  if (!c.mape_percent) return fmt::format("{}: MAPE n/a (none of {} cases could be predicted)", what, c.cases);
  const CollectiveCase& w = r.collectives[*c.worst_case];
  std::string line = fmt::format("{}: MAPE {:.2f}% over {} of {} cases, worst {:+.1f}% ({} {} {}, {})", what, *c.mape_percent, c.predicted,
                                 c.cases, w.error_percent(), w.collective.op, sim::config::format_bytes(w.collective.size_bytes),
                                 w.collective.forced_text(), w.source->display_name);
  if (c.library_model_mape_percent) line += fmt::format("; NCCL's own model: {:.2f}%", *c.library_model_mape_percent);
  return line;
}

}  // namespace

std::vector<std::string> summary_lines(const ValidationReport& r) {
  const ValidationSummary& s = r.summary;
  std::vector<std::string> lines;
  const bool collectives = !r.collectives.empty();
  if (collectives && s.cases == 0) {
    // Only library collectives: the pattern lines would say n/a four times.
    lines.push_back(r.max_mape_percent ? fmt::format("pattern cases: none (--max-mape {:g}% judges pattern cases: FAILED)", *r.max_mape_percent)
                                       : "pattern cases: none");
  } else {
    append_pattern_lines(r, lines);
  }
  if (collectives) {
    const CollectiveSummary& c = r.collective_summary;
    lines.push_back(collective_class_line(r, c.large, fmt::format("collectives from {}", sim::config::format_bytes(kSmallCollectiveBytes))));
    lines.push_back(collective_class_line(
        r, c.small, fmt::format("collectives below {} (small-message latency)", sim::config::format_bytes(kSmallCollectiveBytes))));
  }
  if (!collectives || s.cases > 0) {
    lines.push_back(fmt::format("convention: measured = timing.mean_ns (mean of per-iteration device-event times); predicted = "
                                "Tessera's makespan_ns; error = (predicted - measured) / measured"));
  }
  if (collectives) {
    lines.push_back(fmt::format("collectives: measured = timing.mean_ns, the mean time of one collective (nccl-tests' time); predicted "
                                "= Tessera's time per iteration of kind collective with library nccl and host one_thread (the "
                                "system's host.collective_call per GPU per call), {} iterations up to {}, {} above; apart from the "
                                "pattern cases and --max-mape",
                                kSteadyStateIterations, sim::config::format_bytes(kSteadyStateMaxBytes), kLargeIterations));
    lines.push_back(fmt::format("results: {} pattern case(s), {} collective case(s), {} microbenchmark result(s) not validated "
                                "(calibration data), {}",
                                s.cases, r.collectives.size(), r.microbenchmark_results, measured::describe_skipped(r.skipped)));
  } else {
    lines.push_back(fmt::format("results: {} pattern case(s), {} microbenchmark result(s) not validated (calibration data), {}",
                                s.cases, r.microbenchmark_results, measured::describe_skipped(r.skipped)));
  }
  return lines;
}

namespace {

void append_pattern_lines(const ValidationReport& r, std::vector<std::string>& lines) {
  const ValidationSummary& s = r.summary;
  std::string mape = s.mape_percent ? fmt::format("MAPE: {:.2f}% over {} of {} pattern cases", *s.mape_percent, s.predicted, s.cases)
                                    : fmt::format("MAPE: n/a (none of {} pattern cases could be predicted)", s.cases);
  if (r.max_mape_percent) {
    const bool passed = s.mape_percent && *s.mape_percent <= *r.max_mape_percent;
    mape += fmt::format(" (--max-mape {:g}%: {})", *r.max_mape_percent, passed ? "passed" : "FAILED");
  }
  lines.push_back(mape);
  if (s.worst_case) {
    const ValidationCase& w = r.cases[*s.worst_case];
    lines.push_back(fmt::format("worst absolute error: {:.2f}% ({} {} {}, {})", *s.max_abs_error_percent, w.source->case_name, w.variant,
                                w.params_text, w.source->display_name));
  }
  lines.push_back(s.groups > 0 ? fmt::format("order agreement: {} ({} of {} variant groups predict the fastest variant)",
                                             percent(s.order_agreement), s.groups_agreeing, s.groups)
                               : "order agreement: n/a (no case was measured in two variants or more)");
  if (s.groups > 0) {
    lines.push_back(s.significant_groups > 0
                        ? fmt::format("where the measured gap exceeds {:g}%: {} ({} of {} groups)", kSignificantGapPercent,
                                      percent(s.order_agreement_significant), s.significant_agreeing, s.significant_groups)
                        : fmt::format("no group has a measured gap above {:g}%", kSignificantGapPercent));
  }
}

}  // namespace

std::string markdown_table(const CellTable& t) {
  std::string out = "|";
  // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on " " + std::string here.
  for (const std::string& h : t.header) out.append(" ").append(escape_pipes(h)).append(" |");
  out += "\n|";
  for (std::size_t i = 0; i < t.header.size(); ++i) out += is_numeric_column(t, i) ? " ---: |" : " --- |";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const std::string& cell : row) out.append(" ").append(escape_pipes(cell)).append(" |");
    out += "\n";
  }
  return out;
}

}  // namespace tessera::app::validation

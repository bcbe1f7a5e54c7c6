#include "sim/app/sweep/comparison.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/app/sweep/summary_metrics.h"
#include "sim/app/text_table.h"
#include "sim/app/time_unit.h"

namespace tessera::app::sweep {
namespace {

std::string cell(const std::optional<double>& v, const char* format, const char* missing) {
  return v ? fmt::format(fmt::runtime(format), *v) : std::string(missing);
}

nlohmann::json json_or_null(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

}  // namespace

std::optional<double> ComparisonRow::delta_ns() const {
  if (!a_ns || !b_ns) return std::nullopt;
  return *b_ns - *a_ns;
}

std::optional<double> ComparisonRow::delta_pct() const {
  if (!a_ns || !b_ns || *a_ns == 0) return std::nullopt;
  return 100 * (*b_ns - *a_ns) / *a_ns;
}

std::optional<double> ComparisonRow::ratio() const {
  if (!a_ns || !b_ns || *a_ns == 0) return std::nullopt;
  return *b_ns / *a_ns;
}

std::vector<ComparisonRow> compare_runs(const run::RunResult& a, const run::RunResult& b) {
  const SummaryMetrics ma = metrics_of(a);
  const SummaryMetrics mb = metrics_of(b);
  std::vector<ComparisonRow> rows;
  if (ma.makespan_ns || mb.makespan_ns) rows.push_back({"makespan_ns", false, ma.makespan_ns, mb.makespan_ns});
  for (std::size_t c = 0; c < kNumTimeCategories; ++c) {
    if (!ma.parts_ns[c] && !mb.parts_ns[c]) continue;
    const TimeCategory category = time_category(c);
    rows.push_back({part_column(category), workloads::replay::is_tax(category), ma.parts_ns[c], mb.parts_ns[c]});
  }
  return rows;
}

std::string comparison_table(const std::vector<ComparisonRow>& rows) {
  // One unit for every time of the table, from the largest magnitude in it.
  double max_ns = 0;
  for (const ComparisonRow& r : rows) {
    for (const std::optional<double>& v : {r.a_ns, r.b_ns, r.delta_ns()}) max_ns = std::max(max_ns, v ? std::fabs(*v) : 0.0);
  }
  const TimeUnit unit = pick_time_unit(max_ns);
  const auto time = [unit](const std::optional<double>& ns) { return ns ? format_time(*ns, unit) : std::string("-"); };
  TextTable t({"quantity", with_unit("A", unit), with_unit("B", unit), with_unit("B - A", unit), "change (%)", "B / A"});
  for (const ComparisonRow& r : rows) {
    std::string name = r.quantity.substr(0, r.quantity.size() - 3);  // the unit is in the headers
    if (r.is_tax) name += " (tax)";
    const std::optional<double> delta = r.delta_ns();
    t.add_row({name, time(r.a_ns), time(r.b_ns), delta ? format_time_change(*delta, unit) : "-",
               cell(r.delta_pct(), "{:+.2f}", "-"), cell(r.ratio(), "{:.3f}", "-")});
  }
  return t.render();
}

std::string comparison_csv(const std::vector<ComparisonRow>& rows) {
  std::string out = "quantity,a_ns,b_ns,delta_ns,delta_pct,ratio\n";
  for (const ComparisonRow& r : rows) {
    out += fmt::format("{},{},{},{},{},{}\n", r.quantity, cell(r.a_ns, "{:.3f}", ""), cell(r.b_ns, "{:.3f}", ""),
                       cell(r.delta_ns(), "{:.3f}", ""), cell(r.delta_pct(), "{:.4f}", ""), cell(r.ratio(), "{:.6f}", ""));
  }
  return out;
}

nlohmann::json comparison_rows_json(const std::vector<ComparisonRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const ComparisonRow& r : rows) {
    out.push_back({{"quantity", r.quantity}, {"is_tax", r.is_tax}, {"a_ns", json_or_null(r.a_ns)},
                   {"b_ns", json_or_null(r.b_ns)}, {"delta_ns", json_or_null(r.delta_ns())},
                   {"delta_pct", json_or_null(r.delta_pct())}, {"ratio", json_or_null(r.ratio())}});
  }
  return out;
}

}  // namespace tessera::app::sweep

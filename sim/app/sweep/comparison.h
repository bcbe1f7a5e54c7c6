#pragma once
// How the makespan and each of its parts (work kinds and taxes) change from run A to run B,
// for `tessera compare`. Only what the runs hold is compared: microbenchmarks have a makespan
// but no breakdown.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/app/run/run_result.h"

namespace tessera::app::sweep {

struct ComparisonRow {
  std::string quantity;          // "makespan_ns", "compute_ns", ..., "launch_overhead_ns"
  bool is_tax = false;
  std::optional<double> a_ns;
  std::optional<double> b_ns;

  std::optional<double> delta_ns() const;   // B - A, when both exist
  std::optional<double> delta_pct() const;  // 100 (B - A) / A, when both exist and A is not 0
  std::optional<double> ratio() const;      // B / A, when both exist and A is not 0
};

// The makespan, then each part that either run has, in the order of results.csv.
std::vector<ComparisonRow> compare_runs(const run::RunResult& a, const run::RunResult& b);

// The aligned terminal table: every time in one unit chosen for the largest, named in the headers.
std::string comparison_table(const std::vector<ComparisonRow>& rows);
// compare.csv: quantity,a_ns,b_ns,delta_ns,delta_pct,ratio (empty cells where a value is missing).
std::string comparison_csv(const std::vector<ComparisonRow>& rows);
// compare.json's rows: [{quantity, a_ns, b_ns, delta_ns, delta_pct, ratio}], null where missing.
nlohmann::json comparison_rows_json(const std::vector<ComparisonRow>& rows);

}  // namespace tessera::app::sweep

#pragma once
// compare.html of `tessera compare A B --out DIR`: one self-contained page (inline CSS and SVG,
// no script, nothing fetched) that says what A and B are and in which config keys they differ,
// draws where each one's time goes (stacked bars), then the makespan and each part of it for A
// and B side by side (bars, with B / A beside each pair) and as a table in one time unit, and
// names each one's busiest resource. All text is HTML-escaped; same inputs, same bytes.
#include <optional>
#include <string>
#include <vector>

#include "sim/app/run/config_differences.h"
#include "sim/app/run/run_result.h"

namespace tessera::app::report {

struct CompareSide {
  std::string config;  // the config file as named on the command line
  run::RunResult result;
};

// One row of the comparison, as compare.json has it (the makespan, then each part either side has).
struct CompareQuantity {
  std::string name;  // "makespan", "compute", ..., "launch_overhead"
  bool is_tax = false;
  std::optional<double> a_ns;
  std::optional<double> b_ns;

  std::optional<double> ratio() const;  // B / A, when both exist and A is not 0
};

std::string compare_html(const CompareSide& a, const CompareSide& b, const std::vector<run::ConfigDifference>& differences,
                         const std::vector<CompareQuantity>& quantities);

}  // namespace tessera::app::report

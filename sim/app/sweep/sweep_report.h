#pragma once
// report.html of a sweep: one self-contained page (inline SVG and CSS, no script, nothing
// fetched) with a stacked bar per point (the work parts and the taxes, or the makespan alone
// where a summary has no breakdown), the results table and the study file.
#include <string>
#include <vector>

#include "sim/app/sweep/point_result.h"
#include "sim/app/sweep/study.h"

namespace tessera::app::sweep {

// labels[i], values[i], results[i]: point i's label, swept values as text, and result.
std::string sweep_report_html(const Study& study, const std::vector<std::string>& labels,
                              const std::vector<std::vector<std::string>>& values, const std::vector<PointResult>& results);

}  // namespace tessera::app::sweep

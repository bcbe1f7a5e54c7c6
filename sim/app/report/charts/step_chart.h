#pragma once
// An inline SVG line chart of step functions over time (one line per run), y from 0 to 100%.
// Time runs linearly: a step function's shape over a run is read along a linear axis.
#include <string>
#include <string_view>
#include <vector>

#include "sim/app/report/link_utilisation.h"

namespace tessera::app::report::charts {

struct StepLine {
  std::string run;     // data-run, and the tooltip
  std::string colour;  // CSS colour
  double end_ns = 0.0;  // the line runs to here (the run's makespan)
  std::vector<UtilisationStep> steps;
};

std::string step_chart(const std::vector<StepLine>& lines, std::string_view link_class, double x_max_ns);

}  // namespace tessera::app::report::charts

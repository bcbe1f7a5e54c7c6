#pragma once
// One run as the multi-run outputs (taxes.csv, report.html) see it: the name it is shown
// under (a variant, a sweep point), its result, and the configuration text it ran from, shown
// verbatim in the report.
#include <string>

#include "sim/app/run/run_result.h"

namespace tessera::app::report {

struct LabeledRun {
  std::string label;
  run::RunResult result;
  std::string config_yaml;
};

}  // namespace tessera::app::report

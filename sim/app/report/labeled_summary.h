#pragma once
// One run as the multi-run outputs (taxes.csv, report.html) see it: the name it is shown
// under (a variant, a sweep point), its run summary (what `tessera run --json` prints), and
// the configuration text it ran from, shown verbatim in the report.
#include <string>

#include <nlohmann/json.hpp>

namespace tessera::app::report {

struct LabeledSummary {
  std::string label;
  nlohmann::json summary;
  std::string config_yaml;
};

}  // namespace tessera::app::report

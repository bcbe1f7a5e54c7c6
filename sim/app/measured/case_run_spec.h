#pragma once
// The Tessera run of a measured case: {system: SYSTEM, workload: <the result's tessera.workload>},
// loaded and checked exactly as `tessera run` loads a config file, so that a bad workload map is
// reported with the result file's name and the key.
#include <string>

#include <nlohmann/json.hpp>

#include "sim/app/measured/measured_case.h"
#include "sim/app/run/run_spec.h"

namespace tessera::app::measured {

struct CaseRun {
  run::RunSpec spec;
  nlohmann::json workload;  // the workload map that runs
};

// `system`: a system name or a path, as `--system` gives it (relative paths from the working
// folder). A generated kind that takes `ranks` and whose map leaves it out runs on tessera.ranks
// GPUs (its default would be every GPU of the system). Throws config::ConfigError located at
// "<result file> (tessera.workload)".
CaseRun case_run(const MeasuredCase& result, const std::string& system);
inline run::RunSpec case_run_spec(const MeasuredCase& result, const std::string& system) { return case_run(result, system).spec; }

}  // namespace tessera::app::measured

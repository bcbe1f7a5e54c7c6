// One case run, end to end: check, time, and the result JSON of docs/kernels.md ("schema":
// "tessera-kernels-result/1").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/case.h"
#include "harness/timing.h"

namespace tk {

struct RunRequest {
  const CaseInfo* info = nullptr;
  std::map<std::string, std::string> overrides;  // --set KEY=VALUE
  int ranks = 1;
  std::vector<int> devices;  // one per rank
  std::uint64_t seed = 1;
  TimingOptions timing;
  std::string invoked_as;  // the command line as typed
};

// The command that reproduces this one case run.
std::string reproduction_command(const RunRequest& request);
// A file name for the result: the case, the overridden parameters and the ranks, in [A-Za-z0-9._-] only.
std::string result_file_name(const RunRequest& request);

// Checks the ranks, the parameters and the case's own constraints, running nothing; throws std::invalid_argument
// with a message naming the parameter.
void validate_request(const RunRequest& request);

// Runs the case; a failed check or a runtime error is recorded in the result ("status": "failed") rather than
// thrown. Bad parameters throw std::invalid_argument before anything runs.
nlohmann::json run_case(const RunRequest& request);

}  // namespace tk

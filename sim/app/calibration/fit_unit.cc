#include "sim/app/calibration/fit_unit.h"

#include <algorithm>

#include "workloads/microbench/microbench_params.h"

namespace tessera::app::calibration {

std::vector<const CalibrationPoint*> points_of(const FitInputs& inputs, std::initializer_list<std::string_view> cases) {
  std::vector<const CalibrationPoint*> out;
  for (const CalibrationPoint& p : inputs.points) {
    if (std::find(cases.begin(), cases.end(), p.source->case_name) != cases.end()) out.push_back(&p);
  }
  return out;
}

std::vector<const CalibrationPoint*> bandwidth_bound(const models::SystemSpec& system,
                                                     const std::vector<const CalibrationPoint*>& points) {
  std::vector<const CalibrationPoint*> out;
  for (const CalibrationPoint* p : points) {
    const auto& mb = p->run->workload.params<workloads::microbench::MicrobenchParams>();
    if (mb.workgroups == 0 || mb.workgroups >= models::total_compute_units(system.gpu)) out.push_back(p);
  }
  return out.empty() ? points : out;
}

std::vector<std::string> files_of(const std::vector<const CalibrationPoint*>& points) {
  std::vector<std::string> files;
  for (const CalibrationPoint* p : points) {
    if (std::find(files.begin(), files.end(), p->source->display_name) == files.end()) files.push_back(p->source->display_name);
  }
  return files;
}

}  // namespace tessera::app::calibration

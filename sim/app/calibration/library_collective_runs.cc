#include "sim/app/calibration/library_collective_runs.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/app/sweep/sweep_runner.h"

namespace tessera::app::calibration {

std::vector<double> run_library_collectives(std::vector<run::RunSpec> runs, unsigned jobs,
                                            const std::function<double(const workloads::WorkloadResult&)>& figure,
                                            const std::function<std::string(std::size_t)>& name_of) {
  std::vector<double> values(runs.size(), 0.0);
  std::vector<std::string> errors(runs.size());
  sweep::run_parallel(runs.size(), std::max(1U, jobs), [&](std::size_t i) {
    const sweep::PointResult r = sweep::run_point(i, runs[i]);
    if (!r.ok) {
      errors[i] = r.error;
    } else if (!r.result->result.complete) {
      errors[i] = "the run did not complete";
    } else {
      try {
        values[i] = figure(r.result->result);
      } catch (const std::runtime_error& e) {
        errors[i] = e.what();
      }
    }
  });
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!errors[i].empty()) throw std::runtime_error(fmt::format("Tessera could not run {}: {}", name_of(i), errors[i]));
  }
  return values;
}

}  // namespace tessera::app::calibration

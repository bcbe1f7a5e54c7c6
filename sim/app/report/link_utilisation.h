#pragma once
// Link utilisation over time per link class, from a run's per-link series (each a step
// function: the value holds from its time until the next sample; 0 before the first).
#include <map>
#include <string>
#include <vector>

#include "workloads/workload_result.h"

namespace tessera::app::report {

struct UtilisationStep {
  double time_ns = 0.0;
  double utilisation = 0.0;  // 0..1, holds from time_ns on
};

// The mean over the links of each class, as a step function with strictly increasing times.
// Long series are averaged into max_steps equal bins over [0, end_ns] (time-weighted), so a
// chart stays small. Samples that are not finite are skipped.
std::map<std::string, std::vector<UtilisationStep>> class_average_utilisation(
    const std::vector<workloads::LinkUtilisation>& links, double end_ns, std::size_t max_steps = 1000);

}  // namespace tessera::app::report

#pragma once
// What `tessera run --ablate NAME` idealises, to measure what a mechanism costs: the run is
// repeated with it taken away, and the change of the makespan is set beside the tax the
// breakdown attributed to it (docs/taxes.md).
//   launch:   launch latency, workgroup dispatch and teardown take no time
//   locality: intermediates cost nothing (their accesses and the end-of-kernel write-back are skipped)
//   sync:     flag and barrier atomics take no time
#include <string>
#include <vector>

#include "sim/app/run/run_result.h"
#include "workloads/replay/activity_log.h"

namespace tessera::app {

struct Ablation {
  std::string name;
  workloads::replay::TimeCategory tax;  // the tax it should remove
  std::vector<std::string> sets;        // the config overrides that idealise it
  bool ideal_locality = false;          // the replay's ideal-locality switch
};

// A run repeated under an ablation. `unchanged`: the ablation's overrides left the configuration
// as it was (every cost it zeroes is already 0 in the system), so the run was not repeated and
// `result` is the run's own.
struct AblatedRun {
  run::RunResult result;
  bool unchanged = false;
};

// Throws UsageError naming the flag for an unknown name.
Ablation ablation_of(const std::string& name);

}  // namespace tessera::app

#pragma once
// What `tessera run --ablate NAME` idealises, to measure what a mechanism costs: the run is
// repeated with it taken away, and the change of the makespan is set beside the tax the
// breakdown attributed to it (docs/taxes.md).
//   launch:   launch latency, workgroup dispatch and teardown take no time; where they are 0
//             already, the run is repeated with the costs measured on a shipped calibrated
//             system instead, to show what a measured launch cost would do
//   locality: intermediates cost nothing (their accesses and the end-of-kernel write-back are skipped)
//   sync:     the dataflow oracle: no bulk synchronisation at all; kernels, streams, host
//             syncs, flags and barriers order nothing, only the trace's data dependencies do
//             (workloads/replay/dataflow.h)
#include <optional>
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
  bool dataflow_oracle = false;         // the replay's dataflow oracle
  bool skip_host_delays = false;        // the hosts' delays take no time (launch: host-side costs)
};

// What an ablation's costs would do where the system has them at 0: the same keys set to the
// values measured on a shipped calibrated system.
struct ReferenceCost {
  std::string system;             // e.g. h200-2-calibrated
  std::vector<std::string> sets;  // its values of the ablation's keys, as --set overrides
  std::string values;             // those values, for people: "kernel_launch_latency 3.660 us, ..."
};

// A run repeated under an ablation. `unchanged`: the ablation's overrides left the configuration
// as it was (every cost it zeroes is already 0 in the system), so the run was not repeated and
// `result` is the run's own; then `with_reference` is the run with the reference cost, if any.
struct AblatedRun {
  run::RunResult result;
  bool unchanged = false;
  std::optional<ReferenceCost> reference;
  std::optional<run::RunResult> with_reference;
};

// Throws UsageError naming the flag for an unknown name.
Ablation ablation_of(const std::string& name);

// The measured cost to show where an ablation's costs are 0 (launch: h200-2-calibrated's launch
// latency, dispatch and teardown, fitted to the kernel suite's launch-latency microbenchmark);
// nullopt for an ablation that has none.
std::optional<ReferenceCost> reference_cost(const Ablation& ablation);

}  // namespace tessera::app

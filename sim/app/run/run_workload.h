#pragma once
// Runs one checked RunSpec and returns its result: the single entry point that `run`,
// `compare`, `sweep`, `validate` and `calibrate` share, so that every command reports a run
// the same way.
#include <optional>

#include "sim/app/run/run_result.h"
#include "sim/app/run/run_spec.h"
#include "workloads/replay/activity_log.h"
#include "workloads/trace/trace.h"

namespace tessera::app::run {

RunResult run_workload(const RunSpec& spec);

// The result and, as `activity` asks, each GPU's breakdown over time, the links' utilisation and
// what each workgroup did when (for timeline.json); the log stays empty for kinds that do not
// replay a trace.
struct RunOutcome {
  RunResult result;
  workloads::replay::ActivityLog activity;
};
RunOutcome run_workload(const RunSpec& spec, workloads::replay::ActivityDetail activity);

// The trace a run replays: a generated workload's, or the user's trace file's; nullopt for
// kinds that have none (microbenchmarks, PHOLD).
std::optional<workloads::trace::Trace> trace_of(const RunSpec& spec);

}  // namespace tessera::app::run

#pragma once
// Runs one checked RunSpec and returns its summary: the single entry point that `run`,
// `compare` and `sweep` share, so that every command reports a run the same way.
#include <optional>

#include <nlohmann/json.hpp>

#include "sim/app/run/run_spec.h"
#include "workloads/replay/activity_log.h"
#include "workloads/trace/trace.h"

namespace tessera::app::run {

// The summary: every field a report or a script reads (docs/workloads.md "Outputs").
nlohmann::json run_workload(const RunSpec& spec);

// The summary and, with `record_activity`, what each workgroup did when (for timeline.json);
// the log stays empty for kinds that do not replay a trace.
struct RunOutcome {
  nlohmann::json summary;
  workloads::replay::ActivityLog activity;
};
RunOutcome run_workload(const RunSpec& spec, bool record_activity);

// The trace a run replays: a generated workload's, or the user's trace file's; nullopt for
// kinds that have none (microbenchmarks, PHOLD).
std::optional<workloads::trace::Trace> trace_of(const RunSpec& spec);

}  // namespace tessera::app::run

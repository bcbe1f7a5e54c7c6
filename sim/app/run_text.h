#pragma once
// The terminal text of `tessera run`: one run's table (what ran, the figures with units, where
// the time went, its kernels, notes), several runs side by side, and an ablation's effect.
#include <string>
#include <vector>

#include "sim/app/ablation.h"
#include "sim/app/report/labeled_run.h"
#include "sim/app/run/run_result.h"
#include "sim/app/run/run_spec.h"

namespace tessera::app {

// One run; `options` name the limits a stopped run reports.
std::string render_run_text(const run::RunResult& result, const run::RunOptions& options);

// Runs with a breakdown side by side along each one's critical GPU, the fastest named, and the
// parts that make each other run slower.
std::string render_side_by_side(const std::vector<report::LabeledRun>& runs);

// How each part and the makespan moved when `ablation` idealised its mechanism, or that it changed
// nothing (its costs are already 0 in this system); empty for a run without a breakdown.
std::string render_ablation(const run::RunResult& as_run, const AblatedRun& ablated, const Ablation& ablation);

}  // namespace tessera::app

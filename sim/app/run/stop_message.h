#pragma once
// The one message a run stopped early prints (`tessera run`) or records (a sweep point), naming
// the limit as the user set it.
#include <optional>
#include <string>

#include "sim/app/run/run_result.h"
#include "sim/app/run/run_spec.h"

namespace tessera::app::run {

// Why a run is incomplete, naming the limit as the user set it ("stopped by --max-wall
// (30 s) after 123456 events at 12.345 us of simulated time; the result is incomplete"), or
// nullopt for a complete run.
std::optional<std::string> stop_message(const RunResult& result, const RunOptions& options);

}  // namespace tessera::app::run

#pragma once
// The limits a user puts on a run from the command line, as `tessera run` and `tessera sweep`
// share them: `--max-wall DURATION` (the config's time units: "30 s", "500ms", "1.5 s"), and
// the one message a run stopped early prints or a sweep point records.
#include <chrono>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/app/run_spec.h"

namespace tessera::app {

// "30 s" -> 30 s. Throws UsageError (exit 2) for a malformed, unit-less or zero duration.
std::chrono::nanoseconds parse_max_wall(const std::string& text);

// Why a run summary is incomplete, naming the limit as the user set it ("stopped by --max-wall
// (30 s) after 123456 events at 12.345 us of simulated time; the result is incomplete"), or
// nullopt for a complete run.
std::optional<std::string> stop_message(const nlohmann::json& summary, const RunOptions& options);

}  // namespace tessera::app

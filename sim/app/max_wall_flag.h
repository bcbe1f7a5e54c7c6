#pragma once
// `--max-wall DURATION` of `tessera run` and `tessera sweep`, in the config's time units ("30 s",
// "500ms", "1.5 s").
#include <chrono>
#include <string>

namespace tessera::app {

// "30 s" -> 30 s. Throws UsageError (exit 2) for a malformed, unit-less or zero duration.
std::chrono::nanoseconds parse_max_wall(const std::string& text);

}  // namespace tessera::app

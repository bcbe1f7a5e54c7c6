#include "sim/app/run/stop_message.h"

#include <fmt/format.h>

#include "sim/config/units.h"

namespace tessera::app::run {

std::optional<std::string> stop_message(const RunResult& result, const RunOptions& options) {
  if (result.result.complete) return std::nullopt;
  std::string limit;
  switch (result.result.stop_reason) {
    case sim::StopReason::kEventLimit:
      limit = fmt::format("--max-events ({})", options.max_events ? std::to_string(*options.max_events) : "?");
      break;
    case sim::StopReason::kWallLimit:
      limit = fmt::format("--max-wall ({})", options.max_wall ? sim::config::format_time_ps(static_cast<sim::Tick>(
                                                                    options.max_wall->count()) * sim::kPsPerNs)
                                                              : "?");
      break;
    case sim::StopReason::kInterrupted: limit = "an interrupt (SIGINT or SIGTERM)"; break;
    default: limit = sim::to_string(result.result.stop_reason); break;
  }
  return fmt::format("stopped by {} after {} events at {:.3f} us of simulated time; the result is incomplete", limit,
                     result.result.events, result.makespan_ns() / 1e3);
}

}  // namespace tessera::app::run

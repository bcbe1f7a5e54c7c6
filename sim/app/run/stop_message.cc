#include "sim/app/run/stop_message.h"

#include <fmt/format.h>

#include "sim/config/units.h"

namespace tessera::app::run {

std::optional<std::string> stop_message(const nlohmann::json& summary, const RunOptions& options) {
  if (summary.value("complete", true)) return std::nullopt;
  const std::string reason = summary.value("stopped_by", nlohmann::json()).is_string()
                                 ? summary["stopped_by"].get<std::string>()
                                 : std::string("unknown");
  std::string limit;
  if (reason == "event_limit") {
    limit = fmt::format("--max-events ({})", options.max_events ? std::to_string(*options.max_events) : "?");
  } else if (reason == "wall_limit") {
    limit = fmt::format("--max-wall ({})", options.max_wall ? sim::config::format_time_ps(static_cast<sim::Tick>(
                                                                  options.max_wall->count()) * sim::kPsPerNs)
                                                            : "?");
  } else if (reason == "interrupted") {
    limit = "an interrupt (SIGINT or SIGTERM)";
  } else {
    limit = reason;
  }
  return fmt::format("stopped by {} after {} events at {:.3f} us of simulated time; the result is incomplete", limit,
                     summary.value("events", std::uint64_t{0}), summary.value("makespan_ns", 0.0) / 1e3);
}

}  // namespace tessera::app::run

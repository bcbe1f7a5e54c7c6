#include "sim/app/run_limits.h"

#include <fmt/format.h>

#include "sim/app/usage_error.h"
#include "sim/config/units.h"

namespace tessera::app {

std::chrono::nanoseconds parse_max_wall(const std::string& text) {
  sim::Tick ps = 0;
  try {
    ps = sim::config::parse_time_ps(text);
  } catch (const sim::config::UnitError& e) {
    throw UsageError(fmt::format("--max-wall {}: {}", text, e.what()));
  }
  // Nanoseconds: the wall clock has no finer grain worth asking for.
  if (ps < sim::kPsPerNs) throw UsageError(fmt::format("--max-wall {}: the limit must be at least 1 ns", text));
  return std::chrono::nanoseconds(ps / sim::kPsPerNs);
}

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

}  // namespace tessera::app

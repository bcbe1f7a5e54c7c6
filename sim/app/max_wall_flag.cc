#include "sim/app/max_wall_flag.h"

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

}  // namespace tessera::app

#include "sim/app/report/busiest_resource.h"

#include <fmt/format.h>

namespace tessera::app::report {

std::optional<BusiestResource> busiest_resource(const run::RunResult& r) {
  if (!r.result.traffic) return std::nullopt;
  std::optional<BusiestResource> busiest;
  for (const auto& [resource_class, usage] : r.result.traffic->resource_usage) {
    // Classes in name order; the first of equal utilisations stays.
    if (usage.busiest_utilisation > 0 && (!busiest || usage.busiest_utilisation > busiest->utilisation)) {
      busiest = BusiestResource{resource_class, usage.busiest_resource, usage.busiest_utilisation};
    }
  }
  return busiest;
}

std::string describe(const BusiestResource& b) {
  return fmt::format("{} {} at {:.1f}% of its bandwidth", b.resource_class, b.resource, 100.0 * b.utilisation);
}

}  // namespace tessera::app::report

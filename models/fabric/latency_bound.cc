#include "models/fabric/latency_bound.h"

#include <stdexcept>

namespace tessera::models::fabric {

double latency_bound_rate(double window_bytes, sim::Tick rtt_ps) {
  if (!(window_bytes > 0.0)) throw std::invalid_argument("a latency-bound window must be positive");
  if (rtt_ps == 0) return kUncapped;
  return window_bytes * 1e12 / static_cast<double>(rtt_ps);
}

double latency_bound_rate(std::uint32_t outstanding, std::uint32_t request_bytes, sim::Tick rtt_ps) {
  return latency_bound_rate(static_cast<double>(outstanding) * static_cast<double>(request_bytes), rtt_ps);
}

}  // namespace tessera::models::fabric

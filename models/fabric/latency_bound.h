#pragma once
// Latency-bound requesters (Little's law).
//
// A requester that keeps at most `window_bytes` outstanding and waits a round trip `rtt_ps`
// for each reply cannot sustain more than window / rtt, however fast the path is: that is
// Little's law (in flight = throughput x latency) solved for throughput. Remote loads are
// like this (a workgroup has a bounded number of outstanding misses), so their flows carry
// this rate cap; stores are posted and stream, so they take kUncapped (or the port rate).
// The network then gives the flow min(cap, max-min share), which is exactly "latency-bound
// until the link saturates, bandwidth-bound after".
#include <cstdint>

#include "models/fabric/resource.h"
#include "sim/core/tick.h"

namespace tessera::models::fabric {

// window_bytes / rtt, in bytes per second; kUncapped when rtt is 0 (nothing to wait for).
// Throws std::invalid_argument when the window is not positive.
double latency_bound_rate(double window_bytes, sim::Tick rtt_ps);

// The same for `outstanding` requests of `request_bytes` each (e.g. misses of 128 B lines).
double latency_bound_rate(std::uint32_t outstanding, std::uint32_t request_bytes, sim::Tick rtt_ps);

// The round trip of a request/response pair over paths with these one-way latencies.
inline sim::Tick round_trip_ps(sim::Tick request_path_ps, sim::Tick response_path_ps) {
  return request_path_ps + response_path_ps;
}

}  // namespace tessera::models::fabric

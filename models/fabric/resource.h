#pragma once
// A shared data-movement resource: one direction of a link, a memory's bandwidth, a die port.
//
// The fluid model needs only its sustained bandwidth (shared max-min fairly among the flows
// crossing it) and its propagation latency (added once per flow, at the end, see FlowNetwork).
#include <cstdint>
#include <limits>
#include <string>

#include "sim/core/tick.h"

namespace tessera::models::fabric {

using ResourceId = std::uint32_t;

// A rate cap meaning "no cap": only the resources on the path limit the flow.
inline constexpr double kUncapped = std::numeric_limits<double>::infinity();

struct Resource {
  std::string name;                  // instance-name segment(s), e.g. "gpu[0].xgmi_out[3]"
  double bandwidth_bytes_per_s = 0;  // sustained; must be > 0
  sim::Tick latency_ps = 0;          // propagation (and pipeline) latency of one crossing
};

}  // namespace tessera::models::fabric

#pragma once
#include <cstdint>
#include <string_view>

#include "sim/core/tick.h"

namespace tessera::sim {

// When the engine stops. All three may be combined; the first that holds wins.
struct StopConditions {
  Tick end_time_ps = kMaxTick;                   // no event later than this is processed
  std::uint64_t max_events = ~std::uint64_t{0};  // at most this many events are processed
};

enum class StopReason {
  kDrained,     // nothing left to do: the queue is empty
  kEndTime,     // the next event lies beyond end_time_ps
  kEventLimit,  // max_events were processed
};

inline std::string_view to_string(StopReason reason) {
  switch (reason) {
    case StopReason::kDrained: return "drained";
    case StopReason::kEndTime: return "end_time";
    case StopReason::kEventLimit: return "event_limit";
  }
  return "unknown";
}

struct RunResult {
  StopReason reason = StopReason::kDrained;
  Tick final_time_ps = 0;          // time of the last event processed
  std::uint64_t events = 0;        // events processed by this run() call
  std::uint64_t cancelled = 0;     // cancelled events discarded by this run() call
};

}  // namespace tessera::sim

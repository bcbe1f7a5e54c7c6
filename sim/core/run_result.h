#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string_view>

#include "sim/core/tick.h"

namespace tessera::sim {

// How often run() looks at the wall clock and the stop flag: once every this many events. A
// clock read costs tens of ns and 4096 events take about a millisecond, so the checks cost
// nothing measurable, and a limit or a stop request is honoured within a few milliseconds.
inline constexpr std::uint64_t kWallCheckInterval = 4096;

using WallClock = std::chrono::steady_clock;

// When the engine stops. All may be combined; the first that holds wins.
struct StopConditions {
  Tick end_time_ps = kMaxTick;                   // no event later than this is processed
  std::uint64_t max_events = ~std::uint64_t{0};  // at most this many events are processed
  // Wall-clock deadline, checked every kWallCheckInterval events (and before the first).
  WallClock::time_point wall_deadline = WallClock::time_point::max();
  // Set from outside (another thread, a signal handler) to stop the run; checked with the
  // deadline. The engine only reads it.
  const std::atomic<bool>* stop_requested = nullptr;

  bool checks_wall() const { return wall_deadline != WallClock::time_point::max() || stop_requested != nullptr; }
};

// The limits a caller puts on a whole run, as opposed to its simulated end: what `--max-events`,
// `--max-wall` and a sweep's interrupt flag become. Workloads turn them into StopConditions.
struct RunLimits {
  std::uint64_t max_events = ~std::uint64_t{0};
  WallClock::time_point wall_deadline = WallClock::time_point::max();
  const std::atomic<bool>* stop_requested = nullptr;

  StopConditions stop_conditions(Tick end_time_ps = kMaxTick) const {
    return StopConditions{end_time_ps, max_events, wall_deadline, stop_requested};
  }
};

enum class StopReason {
  kDrained,      // nothing left to do: the queue is empty
  kEndTime,      // the next event lies beyond end_time_ps
  kEventLimit,   // max_events were processed
  kWallLimit,    // the wall-clock deadline passed
  kInterrupted,  // *stop_requested was set
};

inline std::string_view to_string(StopReason reason) {
  switch (reason) {
    case StopReason::kDrained: return "drained";
    case StopReason::kEndTime: return "end_time";
    case StopReason::kEventLimit: return "event_limit";
    case StopReason::kWallLimit: return "wall_limit";
    case StopReason::kInterrupted: return "interrupted";
  }
  return "unknown";
}

// Whether a run did all it was asked to: it drained or reached its end time. Otherwise a limit
// or a stop request cut it short and its result is incomplete.
inline bool ran_to_completion(StopReason reason) {
  return reason == StopReason::kDrained || reason == StopReason::kEndTime;
}

struct RunResult {
  StopReason reason = StopReason::kDrained;
  Tick final_time_ps = 0;          // time of the last event processed
  std::uint64_t events = 0;        // events processed by this run() call
  std::uint64_t cancelled = 0;     // cancelled events discarded by this run() call
};

}  // namespace tessera::sim

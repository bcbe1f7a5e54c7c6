#pragma once
// The discrete-event engine: a clock, a pool of pending events and a queue that orders them.
//
// Ordering is total and deterministic: time, then priority (lower first), then insertion
// order. The engine is sequential, so the insertion order is itself a function of the inputs
// only, and two runs of the same model give the same event order. (The queue key keeps the low
// 32 bits of the insertion sequence: events of equal time and priority scheduled more than
// 2^32 schedules apart order by those bits, still deterministically.) The engine knows
// nothing of GPUs, caches or links: models bring handlers.
//
// Hot path: schedule() interns the handler (a small hash table, hot in cache), takes a slot
// from a LIFO free list, stores handler and payload in the slot and pushes a 16-byte key;
// run() pops the key, checks one bit for cancellation, reads the slot and calls the handler.
// Everything grows to its peak and is then reused: steady state allocates nothing. The
// wall-clock deadline and the stop flag are looked at every kWallCheckInterval events only.
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/event_id.h"
#include "sim/core/event_queue.h"
#include "sim/core/radix_heap.h"
#include "sim/core/handler.h"
#include "sim/core/handler_table.h"
#include "sim/core/bit_set.h"
#include "sim/core/run_result.h"
#include "sim/core/tick.h"

namespace tessera::sim {

// The queue key holds the pool slot in its low 24 bits: at most 2^24 events may be pending at
// once. Workloads that schedule many events up front check against it before they start.
inline constexpr std::uint64_t kMaxPendingEvents = std::uint64_t{1} << 24;

using Priority = std::uint8_t;
inline constexpr Priority kDefaultPriority = 128;

template <class Queue>
class BasicEngine {
 public:
  using QueueType = Queue;

  BasicEngine() = default;
  BasicEngine(const BasicEngine&) = delete;
  BasicEngine& operator=(const BasicEngine&) = delete;

  Tick now() const { return now_; }
  std::size_t pending() const { return queue_.size() - (top_in_flight_ ? 1 : 0); }
  std::uint64_t events_processed() const { return processed_total_; }

  void reserve(std::size_t events) {
    queue_.reserve(events);
    slots_.reserve(events);
    free_slots_.reserve(events);
  }

  // Schedules `handler(payload)` at now() + delay.
  EventId schedule(Tick delay, Handler handler, Payload payload = {}, Priority priority = kDefaultPriority) {
    if (delay > kEndOfTimePs - now_) throw_past_end(delay);
    return schedule_at(now_ + delay, handler, payload, priority);
  }

  // Schedules at an absolute time, which must not lie in the past.
  EventId schedule_at(Tick when, Handler handler, Payload payload = {}, Priority priority = kDefaultPriority) {
    if (when < now_) throw std::logic_error("event scheduled in the past");
    if (when > kEndOfTimePs) throw_past_end(when - now_);
    assert(handler);
    const std::uint32_t slot = take_slot();
    Slot& record = slots_[slot];
    record.payload = payload;
    record.handler = handlers_.intern(handler);
    const QueueEntry entry{when, (std::uint64_t{priority} << 56) | ((next_sequence_++ & 0xffff'ffffULL) << kSlotBits) | slot};
    if (top_in_flight_) {
      // The event being handled still sits at the top of the queue: a d-ary heap replaces
      // it in one sift instead of a pop and a push.
      queue_.replace_top(entry);
      top_in_flight_ = false;
    } else {
      queue_.push(entry);
    }
    return EventId{slot, record.generation};
  }

  // Cancels a pending event in O(1): it is flagged and discarded when it reaches the top.
  // Returns false when the event already ran, was cancelled, or the id is stale.
  bool cancel(EventId id) {
    if (!id.valid() || id.slot >= slots_.size()) return false;
    if (slots_[id.slot].generation != id.generation || !live_.test(id.slot) || cancelled_.test(id.slot)) return false;
    cancelled_.set(id.slot);
    return true;
  }

  RunResult run(const StopConditions& stop = {}) {
    if (running_) throw std::logic_error("BasicEngine::run is not reentrant");
    running_ = true;
    RunResult result;
    result.final_time_ps = now_;
    result.reason = StopReason::kDrained;
    // One comparison per event covers both limits: `checkpoint` is the next event count at
    // which to look (the event limit, or the next wall-clock/stop-flag check if sooner).
    std::uint64_t checkpoint = stop.checks_wall() ? 0 : stop.max_events;
    while (!queue_.empty()) {
      const QueueEntry top = queue_.top();
      if (top.time > stop.end_time_ps) {
        result.reason = StopReason::kEndTime;
        break;
      }
      const auto slot = static_cast<std::uint32_t>(top.key & kSlotMask);
      if (cancelled_.test(slot)) {
        cancelled_.reset(slot);
        release_slot(slot);
        queue_.pop();
        ++result.cancelled;
        continue;
      }
      if (result.events >= checkpoint) {
        if (result.events >= stop.max_events) {
          result.reason = StopReason::kEventLimit;
          break;
        }
        if (const auto reason = wall_stop(stop)) {
          result.reason = *reason;
          break;
        }
        checkpoint = std::min(stop.max_events, result.events + kWallCheckInterval);
      }
      const Slot& record = slots_[slot];
      const Handler handler = handlers_[record.handler];
      const Payload payload = record.payload;
      now_ = top.time;
      release_slot(slot);
      ++result.events;
      top_in_flight_ = true;
      handler(payload);
      if (top_in_flight_) {
        queue_.pop();
        top_in_flight_ = false;
      }
    }
    result.final_time_ps = now_;
    processed_total_ += result.events;
    running_ = false;
    return result;
  }

 private:
  // Cold: only a run that has left any real system's time scale gets here.
  [[noreturn]] __attribute__((noinline, cold)) void throw_past_end(Tick delay) const {
    throw TimeRangeError("an event " + std::to_string(delay) + " ps after " + std::to_string(now_) +
                         " ps would fall past the end of simulated time");
  }
  // The deadline or the stop flag, when either says stop (checked every kWallCheckInterval events).
  static std::optional<StopReason> wall_stop(const StopConditions& stop) {
    if (stop.stop_requested != nullptr && stop.stop_requested->load(std::memory_order_relaxed)) {
      return StopReason::kInterrupted;
    }
    if (stop.wall_deadline != WallClock::time_point::max() && WallClock::now() >= stop.wall_deadline) {
      return StopReason::kWallLimit;
    }
    return std::nullopt;
  }

  // The queue key holds the slot in its low bits: at most 2^24 events may be pending.
  static constexpr unsigned kSlotBits = 24;
  static_assert((std::uint64_t{1} << kSlotBits) == kMaxPendingEvents);
  static constexpr std::uint64_t kSlotMask = (std::uint64_t{1} << kSlotBits) - 1;

  struct Slot {
    Payload payload;
    std::uint32_t handler = 0;
    std::uint32_t generation = 0;  // bumped on release: stale EventIds no longer match
  };

  std::uint32_t take_slot() {
    std::uint32_t slot;
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
    } else {
      if (slots_.size() > kSlotMask) throw std::length_error("more than 2^24 (16.7 million) events pending at once");
      slot = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
      live_.grow(slots_.size());
      cancelled_.grow(slots_.size());
    }
    live_.set(slot);
    return slot;
  }

  void release_slot(std::uint32_t slot) {
    live_.reset(slot);
    ++slots_[slot].generation;
    free_slots_.push_back(slot);
  }

  Queue queue_;
  HandlerTable handlers_;
  std::vector<Slot> slots_;  // handler and payload of each pending event; reused LIFO, so hot
  BitSet live_;
  BitSet cancelled_;
  std::vector<std::uint32_t> free_slots_;
  Tick now_ = 0;
  std::uint64_t next_sequence_ = 0;
  std::uint64_t processed_total_ = 0;
  bool top_in_flight_ = false;
  bool running_ = false;
};

// The radix heap beat the d-ary heaps on every PHOLD scenario (docs/performance.md).
using Engine = BasicEngine<RadixHeap>;

}  // namespace tessera::sim

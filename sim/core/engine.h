#pragma once
// The discrete-event engine: a clock, a pool of pending events and a queue that orders them.
//
// Ordering is total and deterministic: (time, priority, insertion sequence). The engine is
// sequential, so the insertion sequence is itself a function of the inputs only, and two
// runs of the same model give the same event order. Lower priority values run first at
// equal time. The engine knows nothing of GPUs, caches or links: models bring handlers.
//
// Hot path: schedule() interns the handler (a small hash table, hot in cache), takes a slot
// id from a free list and pushes one 40-byte entry that carries the handler id and payload;
// run() reads the top entry, checks one bit for cancellation and calls the handler. The heap,
// the slot bitmaps and the handler table grow to their peaks and are then reused, so steady
// state allocates nothing.
#include <cassert>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "sim/core/event_id.h"
#include "sim/core/event_queue.h"
#include "sim/core/split_heap.h"
#include "sim/core/handler.h"
#include "sim/core/handler_table.h"
#include "sim/core/bit_set.h"
#include "sim/core/run_result.h"
#include "sim/core/tick.h"

namespace tessera::sim {

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
    generation_.reserve(events);
    free_slots_.reserve(events);
  }

  // Schedules `handler(payload)` at now() + delay.
  EventId schedule(Tick delay, Handler handler, Payload payload = {}, Priority priority = kDefaultPriority) {
    if (delay > kMaxTick - now_) throw std::overflow_error("event scheduled beyond the end of simulated time");
    return schedule_at(now_ + delay, handler, payload, priority);
  }

  // Schedules at an absolute time, which must not lie in the past.
  EventId schedule_at(Tick when, Handler handler, Payload payload = {}, Priority priority = kDefaultPriority) {
    if (when < now_) throw std::logic_error("event scheduled in the past");
    assert(handler);
    const std::uint32_t slot = take_slot();
    const QueueEntry entry{when, (std::uint64_t{priority} << 56) | next_sequence_++, handlers_.intern(handler), slot,
                           payload};
    if (top_in_flight_) {
      // The event being handled still sits at the top of the heap: replacing it is one
      // sift instead of a pop and a push.
      queue_.replace_top(entry);
      top_in_flight_ = false;
    } else {
      queue_.push(entry);
    }
    return EventId{slot, generation_[slot]};
  }

  // Cancels a pending event in O(1): it is flagged and discarded when it reaches the top.
  // Returns false when the event already ran, was cancelled, or the id is stale.
  bool cancel(EventId id) {
    if (!id.valid() || id.slot >= generation_.size()) return false;
    if (generation_[id.slot] != id.generation || !live_.test(id.slot) || cancelled_.test(id.slot)) return false;
    cancelled_.set(id.slot);
    return true;
  }

  RunResult run(const StopConditions& stop = {}) {
    if (running_) throw std::logic_error("BasicEngine::run is not reentrant");
    running_ = true;
    RunResult result;
    result.final_time_ps = now_;
    result.reason = StopReason::kDrained;
    while (!queue_.empty()) {
      const QueueEntry top = queue_.top();
      if (top.time > stop.end_time_ps) {
        result.reason = StopReason::kEndTime;
        break;
      }
      if (cancelled_.test(top.slot)) {
        cancelled_.reset(top.slot);
        release_slot(top.slot);
        queue_.pop();
        ++result.cancelled;
        continue;
      }
      if (result.events >= stop.max_events) {
        result.reason = StopReason::kEventLimit;
        break;
      }
      const Handler handler = handlers_[top.handler];
      const Payload payload = top.payload;
      now_ = top.time;
      release_slot(top.slot);
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
  std::uint32_t take_slot() {
    std::uint32_t slot;
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
    } else {
      if (generation_.size() >= std::numeric_limits<std::uint32_t>::max() - 1) {
        throw std::length_error("more than 4 billion pending events");
      }
      slot = static_cast<std::uint32_t>(generation_.size());
      generation_.push_back(0);
      live_.grow(generation_.size());
      cancelled_.grow(generation_.size());
    }
    live_.set(slot);
    return slot;
  }

  void release_slot(std::uint32_t slot) {
    live_.reset(slot);
    ++generation_[slot];  // stale EventIds can no longer cancel whatever reuses the slot
    free_slots_.push_back(slot);
  }

  Queue queue_;
  HandlerTable handlers_;
  std::vector<std::uint32_t> generation_;  // per slot; slots are reused LIFO, so hot
  BitSet live_;
  BitSet cancelled_;
  std::vector<std::uint32_t> free_slots_;
  Tick now_ = 0;
  std::uint64_t next_sequence_ = 0;
  std::uint64_t processed_total_ = 0;
  bool top_in_flight_ = false;
  bool running_ = false;
};

using Engine = BasicEngine<SplitQuaternaryHeap>;

}  // namespace tessera::sim

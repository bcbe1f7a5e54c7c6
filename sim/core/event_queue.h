#pragma once
// The engine's pending-event queue: an implicit d-ary min-heap of small entries.
//
// Entries are 40 bytes and carry everything the event needs (time, order key, handler id,
// pool slot, payload): when the queue holds hundreds of thousands of events, handling the top
// then touches no other cold memory, which measured faster than 24-byte entries pointing into
// a separate event pool (docs/performance.md). Any type with the
// same five members (push, top, pop, empty, size) can stand in for it: the engine takes
// the queue as a template parameter so another structure (calendar queue, ladder queue)
// can be tried without touching the engine or the models.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/handler.h"
#include "sim/core/tick.h"

namespace tessera::sim {

struct QueueEntry {
  Tick time;
  // Tie-break after time: priority in the top 8 bits, insertion sequence below.
  std::uint64_t order;
  std::uint32_t handler;  // index into the engine's handler table
  std::uint32_t slot;     // identity for cancellation
  Payload payload;
};

inline bool entry_before(const QueueEntry& a, const QueueEntry& b) {
  return a.time < b.time || (a.time == b.time && a.order < b.order);
}

template <unsigned kArity>
class DaryHeap {
  static_assert(kArity >= 2, "a heap needs at least two children per node");

 public:
  void reserve(std::size_t n) { heap_.reserve(n); }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const QueueEntry& top() const { return heap_.front(); }

  void push(const QueueEntry& entry) {
    std::size_t hole = heap_.size();
    heap_.push_back(entry);
    while (hole > 0) {
      const std::size_t parent = (hole - 1) / kArity;
      if (!entry_before(entry, heap_[parent])) break;
      heap_[hole] = heap_[parent];
      hole = parent;
    }
    heap_[hole] = entry;
  }

  void pop() {
    const QueueEntry last = heap_.back();
    heap_.pop_back();
    if (heap_.empty()) return;
    sift_down_from_root(last);
  }

  // Removes the top and inserts `entry` in one sift: cheaper than pop() then push() when a
  // handler's first new event is scheduled while its own event is still at the top.
  void replace_top(const QueueEntry& entry) { sift_down_from_root(entry); }

 private:
  // Floyd's trick: walk the hole from the root down to a leaf along the smaller children
  // without comparing against the moving entry, then sift the entry up. New events are
  // usually later than most pending ones, so they settle near the leaves: this saves one
  // (unpredictable) comparison per level over the classic sift-down.
  void sift_down_from_root(const QueueEntry& moving) {
    const std::size_t n = heap_.size();
    std::size_t hole = 0;
    for (;;) {
      const std::size_t first = hole * kArity + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t end = first + kArity < n ? first + kArity : n;
      for (std::size_t c = first + 1; c < end; ++c) {
        best = entry_before(heap_[c], heap_[best]) ? c : best;
      }
      heap_[hole] = heap_[best];
      hole = best;
    }
    while (hole > 0) {
      const std::size_t parent = (hole - 1) / kArity;
      if (!entry_before(moving, heap_[parent])) break;
      heap_[hole] = heap_[parent];
      hole = parent;
    }
    heap_[hole] = moving;
  }

  std::vector<QueueEntry> heap_;
};

using BinaryHeap = DaryHeap<2>;
using QuaternaryHeap = DaryHeap<4>;

}  // namespace tessera::sim

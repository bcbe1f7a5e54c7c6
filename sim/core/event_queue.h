#pragma once
// The engine's pending-event queue: an implicit d-ary min-heap of 16-byte entries.
//
// An entry is only the ordering key: the time and one word packing the priority, the low bits
// of the insertion sequence and the event's pool slot; the handler and payload stay in the
// engine's slot pool and are read once, when the event runs. With 4 children per node the
// storage is offset so that every group of siblings fills exactly one 64-byte cache line, so a
// sift touches one line per level (docs/performance.md has the measurements that chose this).
//
// Any type with the same members (push, top, pop, replace_top, empty, size, reserve) can stand
// in for it: the engine takes the queue as a template parameter.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "sim/core/tick.h"

namespace tessera::sim {

struct QueueEntry {
  Tick time;
  std::uint64_t key;  // compared after time; the engine packs priority, sequence and slot into it
};

inline bool entry_before(const QueueEntry& a, const QueueEntry& b) {
  return a.time < b.time || (a.time == b.time && a.key < b.key);
}

template <unsigned kArity>
class DaryHeap {
  static_assert(kArity >= 2, "a heap needs at least two children per node");

 public:
  DaryHeap() = default;
  DaryHeap(const DaryHeap&) = delete;
  DaryHeap& operator=(const DaryHeap&) = delete;
  ~DaryHeap() { std::free(raw_); }

  void reserve(std::size_t n) {
    if (n > capacity_) grow(n);
  }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  const QueueEntry& top() const { return at(0); }

  void push(const QueueEntry& entry) {
    if (size_ == capacity_) grow(capacity_ ? capacity_ * 2 : 1024);
    sift_up(size_++, entry);
  }

  void pop() {
    --size_;
    if (size_ > 0) replace_top(at(size_));
  }

  // Removes the top and inserts `entry` in one pass: cheaper than pop() then push() when a
  // handler schedules while its own event still sits at the top.
  //
  // Floyd's trick: the hole walks from the root to a leaf along the smaller children with no
  // comparison against the moving entry, then the entry sifts up. New events are usually later
  // than most pending ones and settle near the leaves, so this saves a comparison per level.
  void replace_top(const QueueEntry& entry) {
    std::size_t hole = 0;
    for (;;) {
      const std::size_t first = hole * kArity + 1;
      if (first >= size_) break;
      std::size_t best = first;
      const std::size_t end = first + kArity < size_ ? first + kArity : size_;
      for (std::size_t c = first + 1; c < end; ++c) best = entry_before(at(c), at(best)) ? c : best;
      at(hole) = at(best);
      hole = best;
    }
    sift_up(hole, entry);
  }

 private:
  // Element i lives at base_[i + kOffset]: the children of i, kArity*i + 1 .. kArity*i + kArity,
  // then start at a multiple of kArity, i.e. on a cache-line boundary for 4 x 16 bytes.
  static constexpr std::size_t kOffset = kArity - 1;

  QueueEntry& at(std::size_t i) { return base_[i + kOffset]; }
  const QueueEntry& at(std::size_t i) const { return base_[i + kOffset]; }

  void sift_up(std::size_t hole, const QueueEntry& entry) {
    while (hole > 0) {
      const std::size_t parent = (hole - 1) / kArity;
      if (!entry_before(entry, at(parent))) break;
      at(hole) = at(parent);
      hole = parent;
    }
    at(hole) = entry;
  }

  void grow(std::size_t n) {
    const std::size_t bytes = ((n + kOffset) * sizeof(QueueEntry) + 63) / 64 * 64;
    void* raw = std::aligned_alloc(64, bytes);
    if (raw == nullptr) throw std::bad_alloc();
    auto* base = static_cast<QueueEntry*>(raw);
    if (size_ > 0) std::memcpy(base + kOffset, base_ + kOffset, size_ * sizeof(QueueEntry));
    std::free(raw_);
    raw_ = raw;
    base_ = base;
    capacity_ = n;
  }

  void* raw_ = nullptr;
  QueueEntry* base_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

using BinaryHeap = DaryHeap<2>;
using QuaternaryHeap = DaryHeap<4>;

}  // namespace tessera::sim

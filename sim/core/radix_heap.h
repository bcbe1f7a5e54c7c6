#pragma once
// A radix heap: a monotone priority queue for integer times, the engine's default queue.
//
// Why: a discrete-event simulation never schedules before the present, so the queue only
// needs to be monotone. A radix heap exploits that: an entry waits in the bucket named by the
// highest bit in which its time differs from the last minimum taken, and moves only to lower
// buckets, each move a sequential read and an append. With hundreds of thousands of pending
// events a d-ary heap pays a cache miss per level on every push and pop; the radix heap
// streams through memory instead (docs/performance.md has the measurements).
//
// Entries of the current minimum time (bucket 0) are kept in a small binary heap on `key`, so
// the order is exactly that of the d-ary heap: time, then key. Pushing an entry earlier than
// the last minimum (allowed: the engine may peek at a later event, stop at an end time, and
// later schedule before it) rebuilds the buckets around the new minimum, in O(n); it happens
// at most once per run() call.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/event_queue.h"

namespace tessera::sim {

class RadixHeap {
 public:
  RadixHeap() = default;
  RadixHeap(const RadixHeap&) = delete;
  RadixHeap& operator=(const RadixHeap&) = delete;

  void reserve(std::size_t n) { current_.reserve(std::min<std::size_t>(n, 4096)); }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  // Not const: finding the minimum may move a bucket's entries down.
  const QueueEntry& top() {
    if (current_.empty()) refill();
    return current_.front();
  }

  void push(const QueueEntry& entry) {
    if (entry.time < last_) rebase(entry.time);
    place(entry);
    ++size_;
  }

  void pop() {
    if (current_.empty()) refill();
    std::pop_heap(current_.begin(), current_.end(), later_key);
    current_.pop_back();
    --size_;
  }

  void replace_top(const QueueEntry& entry) {
    pop();
    push(entry);
  }

 private:
  static constexpr int kBuckets = 64;  // bucket b holds times whose highest bit differing from last_ is b-1

  // std heap functions build max-heaps: "later" as the comparison makes the front the earliest.
  static bool later_key(const QueueEntry& a, const QueueEntry& b) { return a.key > b.key; }

  void place(const QueueEntry& entry) {
    if (entry.time == last_) {
      current_.push_back(entry);
      std::push_heap(current_.begin(), current_.end(), later_key);
      return;
    }
    const int b = std::bit_width(entry.time ^ last_);  // 1..64
    buckets_[b - 1].push_back(entry);
    occupied_ |= std::uint64_t{1} << (b - 1);
  }

  // Called with current_ empty and size_ > 0: takes the lowest non-empty bucket, makes its
  // earliest time the new minimum and redistributes it; every entry lands in a lower bucket.
  void refill() {
    const int b = std::countr_zero(occupied_);
    std::vector<QueueEntry>& bucket = buckets_[b];
    Tick earliest = bucket.front().time;
    for (const QueueEntry& e : bucket) earliest = std::min(earliest, e.time);
    last_ = earliest;
    occupied_ &= ~(std::uint64_t{1} << b);
    scratch_.swap(bucket);
    for (const QueueEntry& e : scratch_) place(e);
    scratch_.clear();
  }

  void rebase(Tick new_last) {
    scratch_.clear();
    scratch_.insert(scratch_.end(), current_.begin(), current_.end());
    current_.clear();
    for (auto& bucket : buckets_) {
      scratch_.insert(scratch_.end(), bucket.begin(), bucket.end());
      bucket.clear();
    }
    occupied_ = 0;
    last_ = new_last;
    for (const QueueEntry& e : scratch_) place(e);
    scratch_.clear();
  }

  std::vector<QueueEntry> current_;  // entries at time last_, a heap on key
  std::array<std::vector<QueueEntry>, kBuckets> buckets_;
  std::vector<QueueEntry> scratch_;  // the bucket being redistributed; kept to reuse its storage
  std::uint64_t occupied_ = 0;       // bit b set when buckets_[b] is non-empty
  Tick last_ = 0;
  std::size_t size_ = 0;
};

}  // namespace tessera::sim

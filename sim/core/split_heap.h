#pragma once
// A 4-ary min-heap that keeps the ordering keys (time, order: 16 bytes) apart from the rest of
// each entry (handler, slot, payload: 24 bytes). A sift compares four keys, which sit in one
// 64-byte cache line (the key array is padded so that every group of siblings starts on a line),
// and moves only the chosen child's value. With hundreds of thousands of pending events this
// touches about half the memory of a heap of whole entries (docs/performance.md).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

#include "sim/core/event_queue.h"

namespace tessera::sim {

class SplitQuaternaryHeap {
 public:
  SplitQuaternaryHeap() = default;
  SplitQuaternaryHeap(const SplitQuaternaryHeap&) = delete;
  SplitQuaternaryHeap& operator=(const SplitQuaternaryHeap&) = delete;
  ~SplitQuaternaryHeap() { std::free(keys_raw_); }

  void reserve(std::size_t n) { grow(n); }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  QueueEntry top() const {
    const Key& k = keys_[kOffset];
    const Value& v = values_[0];
    return QueueEntry{k.time, k.order, v.handler, v.slot, v.payload};
  }

  void push(const QueueEntry& e) {
    if (size_ == capacity_) grow(capacity_ ? capacity_ * 2 : 1024);
    const Key key{e.time, e.order};
    std::size_t hole = size_++;
    while (hole > 0) {
      const std::size_t parent = (hole - 1) / 4;
      if (!before(key, keys_[kOffset + parent])) break;
      keys_[kOffset + hole] = keys_[kOffset + parent];
      values_[hole] = values_[parent];
      hole = parent;
    }
    keys_[kOffset + hole] = key;
    values_[hole] = Value{e.handler, e.slot, e.payload};
  }

  void pop() {
    --size_;
    if (size_ == 0) return;
    sift_down(keys_[kOffset + size_], values_[size_]);
  }

  void replace_top(const QueueEntry& e) { sift_down(Key{e.time, e.order}, Value{e.handler, e.slot, e.payload}); }

 private:
  struct Key {
    Tick time;
    std::uint64_t order;
  };
  struct Value {
    std::uint32_t handler;
    std::uint32_t slot;
    Payload payload;
  };
  // Index i lives at keys_[i + kOffset]; children of i are 4i+1..4i+4, i.e. keys_[4i+4..4i+7]:
  // a 64-byte aligned group when keys_ is 64-byte aligned.
  static constexpr std::size_t kOffset = 3;

  static bool before(const Key& a, const Key& b) { return a.time < b.time || (a.time == b.time && a.order < b.order); }

  void sift_down(Key key, Value value) {
    const std::size_t n = size_;
    std::size_t hole = 0;
    for (;;) {
      const std::size_t first = hole * 4 + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t end = first + 4 < n ? first + 4 : n;
      for (std::size_t c = first + 1; c < end; ++c) {
        if (before(keys_[kOffset + c], keys_[kOffset + best])) best = c;
      }
      if (!before(keys_[kOffset + best], key)) break;
      keys_[kOffset + hole] = keys_[kOffset + best];
      values_[hole] = values_[best];
      hole = best;
    }
    keys_[kOffset + hole] = key;
    values_[hole] = value;
  }

  void grow(std::size_t n) {
    if (n <= capacity_) return;
    const std::size_t bytes = ((n + kOffset) * sizeof(Key) + 63) / 64 * 64;
    void* raw = std::aligned_alloc(64, bytes);
    if (raw == nullptr) throw std::bad_alloc();
    Key* keys = static_cast<Key*>(raw);
    for (std::size_t i = 0; i < size_; ++i) keys[kOffset + i] = keys_[kOffset + i];
    std::free(keys_raw_);
    keys_raw_ = raw;
    keys_ = keys;
    values_.resize(n);
    capacity_ = n;
  }

  void* keys_raw_ = nullptr;
  Key* keys_ = nullptr;
  std::vector<Value> values_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace tessera::sim

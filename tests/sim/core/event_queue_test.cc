#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "sim/core/event_queue.h"
#include "sim/core/radix_heap.h"

using tessera::sim::BinaryHeap;
using tessera::sim::DaryHeap;
using tessera::sim::QuaternaryHeap;
using tessera::sim::QueueEntry;
using tessera::sim::RadixHeap;

TEST_CASE_TEMPLATE("queues pop entries in (time, key) order", Heap, BinaryHeap, QuaternaryHeap, DaryHeap<8>, RadixHeap) {
  std::mt19937_64 rng(42);
  std::vector<QueueEntry> entries;
  for (std::uint32_t i = 0; i < 5000; ++i) entries.push_back({rng() % 97, (rng() % 13) << 32 | i});
  Heap heap;
  for (const auto& e : entries) heap.push(e);
  std::sort(entries.begin(), entries.end(), tessera::sim::entry_before);
  for (const auto& expected : entries) {
    REQUIRE_FALSE(heap.empty());
    CHECK(heap.top().time == expected.time);
    CHECK(heap.top().key == expected.key);
    heap.pop();
  }
  CHECK(heap.empty());
}

TEST_CASE_TEMPLATE("replace_top equals pop then push", Heap, QuaternaryHeap, RadixHeap) {
  std::mt19937_64 rng(7);
  Heap a, b;
  for (std::uint32_t i = 0; i < 1000; ++i) {
    const QueueEntry e{rng() % 1000, i};
    a.push(e);
    b.push(e);
  }
  for (std::uint32_t i = 0; i < 3000; ++i) {
    const QueueEntry e{a.top().time + rng() % 50, 1000 + i};
    a.replace_top(e);
    b.pop();
    b.push(e);
    REQUIRE(a.top().time == b.top().time);
    REQUIRE(a.top().key == b.top().key);
  }
}

// The simulation pattern: pop the earliest, push a few later ones, sometimes at the same time
// (zero delay) and sometimes before an entry that was peeked but not taken (an end-time stop).
TEST_CASE("radix heap agrees with a d-ary heap under monotone interleaved use and rebases") {
  std::mt19937_64 rng(11);
  RadixHeap radix;
  BinaryHeap reference;
  std::uint64_t key = 0;
  for (int i = 0; i < 200; ++i) {
    const QueueEntry e{rng() % 100'000, key++};
    radix.push(e);
    reference.push(e);
  }
  for (int step = 0; step < 50'000; ++step) {
    REQUIRE(radix.size() == reference.size());
    if (reference.empty()) break;
    const QueueEntry top = reference.top();
    REQUIRE(radix.top().time == top.time);
    REQUIRE(radix.top().key == top.key);
    if (step % 997 == 0) {
      // Peek without taking, then schedule earlier than the peeked entry: forces a rebase.
      const QueueEntry early{top.time > 5 ? top.time - 5 : top.time, key++};
      radix.push(early);
      reference.push(early);
      continue;
    }
    radix.pop();
    reference.pop();
    const int children = static_cast<int>(rng() % 3);  // 0..2 keeps the size wandering
    for (int c = 0; c < children; ++c) {
      const std::uint64_t delay = rng() % 4 == 0 ? 0 : rng() % (1ULL << (rng() % 40));
      const QueueEntry e{top.time + delay, key++};
      radix.push(e);
      reference.push(e);
    }
  }
}

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "sim/core/event_queue.h"

using tessera::sim::BinaryHeap;
using tessera::sim::DaryHeap;
using tessera::sim::QuaternaryHeap;
using tessera::sim::QueueEntry;

TEST_CASE_TEMPLATE("d-ary heap pops entries in (time, order) order", Heap, BinaryHeap, QuaternaryHeap, DaryHeap<8>) {
  std::mt19937_64 rng(42);
  std::vector<QueueEntry> entries;
  for (std::uint32_t i = 0; i < 5000; ++i) entries.push_back({rng() % 97, rng() % 13, i, i, {}});
  Heap heap;
  for (const auto& e : entries) heap.push(e);
  std::sort(entries.begin(), entries.end(), tessera::sim::entry_before);
  for (const auto& expected : entries) {
    REQUIRE_FALSE(heap.empty());
    CHECK(heap.top().time == expected.time);
    CHECK(heap.top().order == expected.order);
    heap.pop();
  }
  CHECK(heap.empty());
}

TEST_CASE("replace_top equals pop then push") {
  std::mt19937_64 rng(7);
  QuaternaryHeap a, b;
  for (std::uint32_t i = 0; i < 1000; ++i) {
    const QueueEntry e{rng() % 1000, i, i, i, {}};
    a.push(e);
    b.push(e);
  }
  for (std::uint32_t i = 0; i < 3000; ++i) {
    const QueueEntry e{a.top().time + rng() % 50, 1000 + i, i, i, {}};
    a.replace_top(e);
    b.pop();
    b.push(e);
    REQUIRE(a.top().time == b.top().time);
    REQUIRE(a.top().order == b.top().order);
  }
}

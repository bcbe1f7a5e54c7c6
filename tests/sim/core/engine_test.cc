#include <doctest/doctest.h>

#include <vector>

#include "sim/core/engine.h"

using namespace tessera::sim;

namespace {

// Records (time, tag) of every event it handles; may schedule follow-ups.
struct Recorder {
  Engine& engine;
  std::vector<std::pair<Tick, std::uint64_t>> seen;
  void on_event(const Payload& p) { seen.emplace_back(engine.now(), p.a); }
  Handler handler() { return bind<&Recorder::on_event>(this); }
};

}  // namespace

TEST_CASE("events run in time order, then priority, then insertion order") {
  Engine engine;
  Recorder r{engine, {}};
  engine.schedule(30, r.handler(), {1});
  engine.schedule(10, r.handler(), {2});
  engine.schedule(20, r.handler(), {3}, /*priority=*/200);
  engine.schedule(20, r.handler(), {4}, /*priority=*/5);
  engine.schedule(20, r.handler(), {5}, /*priority=*/200);
  engine.schedule(20, r.handler(), {6}, /*priority=*/5);
  const RunResult result = engine.run();
  CHECK(result.reason == StopReason::kDrained);
  CHECK(result.events == 6);
  CHECK(result.final_time_ps == 30);
  const std::vector<std::pair<Tick, std::uint64_t>> expected{{10, 2}, {20, 4}, {20, 6}, {20, 3}, {20, 5}, {30, 1}};
  CHECK(r.seen == expected);
}

TEST_CASE("the same schedule gives the same order every time") {
  auto trace = [] {
    Engine engine;
    Recorder r{engine, {}};
    for (std::uint64_t i = 0; i < 200; ++i) engine.schedule((i * 7919) % 13, r.handler(), {i});
    engine.run();
    return r.seen;
  };
  const auto first = trace();
  CHECK(first.size() == 200);
  CHECK(first == trace());
}

TEST_CASE("cancel removes a pending event in O(1) and rejects stale ids") {
  Engine engine;
  Recorder r{engine, {}};
  const EventId a = engine.schedule(10, r.handler(), {1});
  const EventId b = engine.schedule(20, r.handler(), {2});
  CHECK(engine.cancel(a));
  CHECK_FALSE(engine.cancel(a));  // already cancelled
  const RunResult result = engine.run();
  CHECK(result.events == 1);
  CHECK(result.cancelled == 1);
  REQUIRE(r.seen.size() == 1);
  CHECK(r.seen[0].second == 2);
  CHECK_FALSE(engine.cancel(b));  // already ran
  // The slot of `a` is reused by a new event: the stale id must not cancel it.
  const EventId c = engine.schedule(5, r.handler(), {3});
  CHECK((c.slot == a.slot || c.slot == b.slot));
  CHECK_FALSE(engine.cancel(a));
  CHECK_FALSE(engine.cancel(b));
  engine.run();
  CHECK(r.seen.size() == 2);
  CHECK_FALSE(engine.cancel(EventId{}));
}

TEST_CASE("a handler can cancel and reschedule") {
  Engine engine;
  struct Timer {
    Engine& engine;
    EventId pending;
    int fired = 0;
    void on_timeout(const Payload&) { ++fired; }
    void on_kick(const Payload&) {
      engine.cancel(pending);  // restart the timeout
      pending = engine.schedule(100, bind<&Timer::on_timeout>(this));
    }
  } t{engine, {}, 0};
  t.pending = engine.schedule(100, bind<&Timer::on_timeout>(&t));
  engine.schedule(50, bind<&Timer::on_kick>(&t));
  engine.schedule(120, bind<&Timer::on_kick>(&t));
  const RunResult result = engine.run();
  CHECK(t.fired == 1);
  CHECK(result.final_time_ps == 220);
}

TEST_CASE("stop conditions: end time, event limit, drained") {
  struct Ticker {
    Engine& engine;
    std::uint64_t count = 0;
    void on_tick(const Payload&) {
      ++count;
      engine.schedule(10, bind<&Ticker::on_tick>(this));
    }
  };
  SUBCASE("end time leaves later events pending and processes those at the end time") {
    Engine engine;
    Ticker t{engine};
    engine.schedule(0, bind<&Ticker::on_tick>(&t));
    const RunResult result = engine.run(StopConditions{100});
    CHECK(result.reason == StopReason::kEndTime);
    CHECK(t.count == 11);  // t = 0, 10, ..., 100
    CHECK(result.final_time_ps == 100);
    CHECK(engine.pending() == 1);
    // Running on continues where it stopped.
    const RunResult more = engine.run(StopConditions{150});
    CHECK(more.events == 5);
    CHECK(t.count == 16);
  }
  SUBCASE("event limit") {
    Engine engine;
    Ticker t{engine};
    engine.schedule(0, bind<&Ticker::on_tick>(&t));
    const RunResult result = engine.run(StopConditions{kMaxTick, 7});
    CHECK(result.reason == StopReason::kEventLimit);
    CHECK(result.events == 7);
    CHECK(t.count == 7);
    CHECK(engine.now() == 60);
  }
  SUBCASE("drained") {
    Engine engine;
    Recorder r{engine, {}};
    engine.schedule(5, r.handler());
    const RunResult result = engine.run(StopConditions{1000, 1000});
    CHECK(result.reason == StopReason::kDrained);
    CHECK(engine.pending() == 0);
  }
}

TEST_CASE("scheduling in the past or past the end of time is refused") {
  Engine engine;
  Recorder r{engine, {}};
  engine.schedule(100, r.handler());
  engine.run();
  CHECK_THROWS_AS(engine.schedule_at(50, r.handler()), std::logic_error);
  CHECK_THROWS_AS(engine.schedule(kMaxTick, r.handler()), TimeRangeError);
  // The end of simulated time is 2^62 ps: the last tick may be scheduled, the next may not.
  CHECK_NOTHROW(engine.schedule_at(kEndOfTimePs, r.handler()));
  CHECK_THROWS_AS(engine.schedule_at(kEndOfTimePs + 1, r.handler()), TimeRangeError);
  CHECK_THROWS_AS(engine.schedule(kEndOfTimePs, r.handler()), TimeRangeError);
}

TEST_CASE("steady state reuses pool slots") {
  // A chain of 10,000 events with at most four pending at a time must never use more than
  // four pool slots: no allocation per event once the pool has grown to its peak.
  Engine engine;
  struct Chain {
    Engine& engine;
    std::uint32_t max_slot = 0;
    int left = 10000;
    void on_event(const Payload&) {
      if (--left > 0) max_slot = std::max(max_slot, engine.schedule(1, bind<&Chain::on_event>(this)).slot);
    }
  } c{engine};
  for (int i = 0; i < 4; ++i) engine.schedule(0, bind<&Chain::on_event>(&c));
  const RunResult result = engine.run();
  CHECK(result.events == 10003);
  CHECK(c.max_slot < 4);
}

#include <doctest/doctest.h>

#include "models/sync/flag_store.h"
#include "recorder.h"
#include "sim/stats/stat_registry.h"

using namespace tessera;
using namespace tessera::models;
using namespace tessera::models::sync;
using testing::Recorder;

namespace {

// local read 100 ps, remote 1000 ps, poll every 1000 ps.
AtomicSpec atomics() {
  AtomicSpec a;
  a.local_latency_ps = 100;
  a.remote_latency_ps = 1000;
  a.poll_interval_ps = 1000;
  return a;
}

// Issues a release-store when its event runs (payload.a = value, payload.b = issuer gpu).
struct Writer {
  FlagStore* store;
  FlagRef flag;
  void on(const sim::Payload& p) { store->release_store(flag, p.a, {static_cast<std::uint32_t>(p.b), 0}); }
};

struct World {
  sim::Engine engine;
  sim::stats::StatRegistry stats;
  FlagStore store{{engine, stats}, "flags", atomics()};
  Recorder seen{&engine, {}};
  Writer writer{&store, {0, 1}};
  void store_at(sim::Tick t, std::uint64_t value, std::uint32_t issuer = 0) {
    engine.schedule(t, sim::bind<&Writer::on>(&writer), {value, issuer});
  }
};

}  // namespace

TEST_CASE("a wait on an already satisfied flag costs one read") {
  World w;
  w.store.set({0, 1}, 5);
  w.store.wait_until({0, 1}, Compare::kGe, 5, {0, 0}, w.seen.handler(), 11);
  w.store.wait_until({0, 1}, Compare::kEq, 5, {1, 200}, w.seen.handler(), 12);  // remote: 1000 + 200
  w.engine.run();
  REQUIRE(w.seen.calls.size() == 2);
  CHECK(w.seen.calls[0].at_ps == 100);
  CHECK(w.seen.calls[0].tag == 11);
  CHECK(w.seen.calls[0].value == 5);
  CHECK(w.seen.calls[1].at_ps == 1200);
  CHECK(w.store.polls() == 2);
  CHECK(w.store.num_pending_waits() == 0);
}

TEST_CASE("a waiter sees a release at its first read performed after it") {
  // Local waiter from t=0: reads performed at 50 + k * 1000, each back 50 later.
  SUBCASE("release between two reads") {
    World w;
    w.store.wait_until({0, 1}, Compare::kGe, 1, {0, 0}, w.seen.handler(), 0);
    w.store_at(2500, 1);  // performed at 2550: seen by the read at 3050, back at 3100
    w.engine.run();
    REQUIRE(w.seen.calls.size() == 1);
    CHECK(w.seen.calls[0].at_ps == 3100);
    CHECK(w.store.last_release_ps({0, 1}) == 2550);
    CHECK(w.store.polls() == 4);  // reads 0..3
  }
  SUBCASE("release performed in the same ps as a read: the read sees it") {
    World w;
    w.store.wait_until({0, 1}, Compare::kGe, 1, {0, 0}, w.seen.handler(), 0);
    w.store_at(2000, 1);  // performed at 2050 = read 2
    w.engine.run();
    REQUIRE(w.seen.calls.size() == 1);
    CHECK(w.seen.calls[0].at_ps == 2100);
  }
  SUBCASE("remote waiter: period max(poll, read latency), half the round trip each way") {
    World w;
    w.store.wait_until({0, 1}, Compare::kGe, 1, {1, 0}, w.seen.handler(), 0);  // L = 1000: reads at 500 + k 1000
    w.store_at(1000, 1);  // performed at 1050: read at 1500, back at 2000
    w.engine.run();
    REQUIRE(w.seen.calls.size() == 1);
    CHECK(w.seen.calls[0].at_ps == 2000);
  }
}

TEST_CASE("poll period is the longer of the poll interval and the read latency") {
  sim::Engine engine;
  sim::stats::StatRegistry stats;
  AtomicSpec a = atomics();
  a.poll_interval_ps = 0;
  FlagStore store({engine, stats}, "flags", a);
  CHECK(store.poll_period_ps(100) == 100);
  CHECK(store.poll_period_ps(0) == 1);
  a.poll_interval_ps = 1000;
  FlagStore slow({engine, stats}, "flags2", a);
  CHECK(slow.poll_period_ps(100) == 1000);
  CHECK(slow.poll_period_ps(3000) == 3000);
}

TEST_CASE("a value that holds only between two reads is missed, as by a real spinning loop") {
  World w;
  w.store.wait_until({0, 1}, Compare::kEq, 1, {0, 0}, w.seen.handler(), 0);
  w.store_at(1100, 1);  // performed 1150
  w.store_at(1200, 0);  // performed 1250: read 2 at 2050 sees 0
  w.store_at(3000, 1);  // performed 3050: read 3 sees it, back at 3100
  w.engine.run();
  REQUIRE(w.seen.calls.size() == 1);
  CHECK(w.seen.calls[0].at_ps == 3100);
}

TEST_CASE("a never-released wait is listed as pending after the engine drains") {
  World w;
  w.engine.schedule(300, sim::bind<&Writer::on>(&w.writer), {0, 0});  // writes 0: does not satisfy
  w.store.wait_until({0, 1}, Compare::kGe, 1, {0, 0}, w.seen.handler(), 0);
  w.store.wait_until({0, 2}, Compare::kGe, 4, {1, 0}, w.seen.handler(), 1);
  w.store.set({0, 3}, 1);
  w.store.wait_until({0, 3}, Compare::kGe, 1, {0, 0}, w.seen.handler(), 2);  // satisfied
  const auto result = w.engine.run();
  CHECK(result.reason == sim::StopReason::kDrained);
  CHECK(w.seen.calls.size() == 1);
  const auto pending = w.store.pending_waits();
  REQUIRE(pending.size() == 2);
  CHECK(pending[0].flag == FlagRef{0, 1});
  CHECK(pending[0].waiter_gpu == 0);
  CHECK(pending[0].target == 1);
  CHECK(pending[0].value == 0);
  CHECK(pending[1].flag == FlagRef{0, 2});
  CHECK(pending[1].waiter_gpu == 1);
  CHECK(pending[1].op == Compare::kGe);
  CHECK(pending[1].target == 4);
  CHECK(compare_name(pending[1].op) == ">=");
}

TEST_CASE("determinism: the same inputs give the same times") {
  auto run = [] {
    World w;
    for (std::uint64_t i = 0; i < 4; ++i) {
      w.store.wait_until({0, 1}, Compare::kGe, i + 1, {static_cast<std::uint32_t>(i % 2), 37 * i},
                         w.seen.handler(), i);
    }
    for (std::uint64_t i = 0; i < 4; ++i) w.store_at(700 * i + 123, i + 1, static_cast<std::uint32_t>(i % 2));
    w.engine.run();
    return w.seen.calls;
  };
  const auto a = run();
  const auto b = run();
  REQUIRE(a.size() == 4);
  REQUIRE(b.size() == 4);
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].at_ps == b[i].at_ps);
    CHECK(a[i].tag == b[i].tag);
    CHECK(a[i].value == b[i].value);
  }
}

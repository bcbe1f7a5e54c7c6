#include <doctest/doctest.h>

#include "models/sync/flag_store.h"
#include "recorder.h"
#include "sim/stats/stat_registry.h"

using namespace tessera;
using namespace tessera::models;
using namespace tessera::models::sync;
using testing::Recorder;

namespace {

AtomicSpec atomics() {
  AtomicSpec a;
  a.local_latency_ps = 100;
  a.remote_latency_ps = 1000;
  a.poll_interval_ps = 1000;
  return a;
}

}  // namespace

TEST_CASE("atomics on one flag return the old values in order") {
  sim::Engine engine;
  sim::stats::StatRegistry stats;
  FlagStore store({engine, stats}, "flags", atomics());
  Recorder r{&engine, {}};
  const FlagRef f{0, 7};
  const FlagAccess local{0, 0};
  store.atomic_add(f, 1, local, r.handler(), 0);
  store.atomic_add(f, 2, local, r.handler(), 1);
  store.atomic_exchange(f, 6, local, r.handler(), 2);
  store.atomic_cas(f, 6, 42, local, r.handler(), 3);  // succeeds: old 6
  store.atomic_cas(f, 0, 9, local, r.handler(), 4);   // fails: old 42, unchanged
  engine.run();
  REQUIRE(r.calls.size() == 5);
  const std::uint64_t olds[] = {0, 1, 3, 6, 42};
  for (std::uint64_t i = 0; i < 5; ++i) {
    CAPTURE(i);
    CHECK(r.calls[i].tag == i);
    CHECK(r.calls[i].value == olds[i]);
    CHECK(r.calls[i].at_ps == 100);  // local latency, no service time
  }
  CHECK(store.value(f) == 42);
  CHECK(store.last_release_ps(f) == 50);  // performed at the home half-way
}

TEST_CASE("atomics on one address are serialised by the service time") {
  sim::Engine engine;
  sim::stats::StatRegistry stats;
  FlagStore store({engine, stats}, "flags", atomics(), FlagStoreParams{10});
  Recorder r{&engine, {}};
  const FlagRef f{0, 1};
  for (std::uint64_t i = 0; i < 3; ++i) store.atomic_add(f, 1, {0, 0}, r.handler(), i);
  store.atomic_add({0, 2}, 1, {0, 0}, r.handler(), 9);  // another address: not held up
  engine.run();
  REQUIRE(r.calls.size() == 4);
  // Performed at 50, 60, 70; back 50 later.
  CHECK(r.calls[0].at_ps == 100);
  CHECK(r.calls[1].tag == 9);
  CHECK(r.calls[1].at_ps == 100);
  CHECK(r.calls[2].at_ps == 110);
  CHECK(r.calls[3].at_ps == 120);
  CHECK(r.calls[3].value == 2);
}

TEST_CASE("a remote atomic costs remote latency + the caller's link round trip") {
  sim::Engine engine;
  sim::stats::StatRegistry stats;
  FlagStore store({engine, stats}, "flags", atomics());
  Recorder r{&engine, {}};
  const FlagRef on_gpu0{0, 3};
  const FlagAccess from_gpu1{1, 500};
  CHECK(store.access_latency_ps(on_gpu0, from_gpu1) == 1500);
  CHECK(store.access_latency_ps(on_gpu0, {0, 0}) == 100);
  store.atomic_add(on_gpu0, 5, from_gpu1, r.handler(), 0);
  engine.run();
  REQUIRE(r.calls.size() == 1);
  CHECK(r.calls[0].at_ps == 1500);
  CHECK(store.value(on_gpu0) == 5);
  CHECK(store.last_release_ps(on_gpu0) == 750);
  CHECK(stats.to_json()["flags.atomics"]["value"] == 1);
}

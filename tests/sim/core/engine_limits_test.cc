// The engine's wall-clock deadline and stop flag (what --max-wall and a sweep's interrupt
// become): honoured within kWallCheckInterval events, with the right stop reason, and without
// changing anything when absent.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "sim/core/engine.h"

using namespace tessera::sim;

namespace {

// An endless model: every event schedules the next; optionally sets a flag at event `trip`.
struct Forever {
  Engine& engine;
  std::uint64_t count = 0;
  std::atomic<bool>* flag = nullptr;
  std::uint64_t trip = 0;
  void on_tick(const Payload&) {
    if (++count == trip && flag != nullptr) flag->store(true);
    engine.schedule(10, bind<&Forever::on_tick>(this));
  }
};

}  // namespace

TEST_CASE("a wall-clock deadline already passed stops the run before its first event") {
  Engine engine;
  Forever f{engine};
  engine.schedule(0, bind<&Forever::on_tick>(&f));
  StopConditions stop;
  stop.wall_deadline = WallClock::now() - std::chrono::seconds(1);
  const RunResult r = engine.run(stop);
  CHECK(r.reason == StopReason::kWallLimit);
  CHECK(r.events == 0);
  CHECK_FALSE(ran_to_completion(r.reason));
  CHECK(to_string(r.reason) == "wall_limit");
}

TEST_CASE("an endless run stops at its wall-clock deadline, promptly") {
  Engine engine;
  Forever f{engine};
  engine.schedule(0, bind<&Forever::on_tick>(&f));
  const auto t0 = WallClock::now();
  StopConditions stop;
  stop.wall_deadline = t0 + std::chrono::milliseconds(50);
  const RunResult r = engine.run(stop);
  const auto took = WallClock::now() - t0;
  CHECK(r.reason == StopReason::kWallLimit);
  CHECK(r.events > 0);
  CHECK(r.events % kWallCheckInterval == 0);  // stopped at a check
  CHECK(took >= std::chrono::milliseconds(50));
  CHECK(took < std::chrono::milliseconds(1000));  // 4096 events take well under a millisecond
  // The engine stays usable: a later run goes on from where it stopped.
  const RunResult more = engine.run(StopConditions{kMaxTick, 10});
  CHECK(more.events == 10);
}

TEST_CASE("the stop flag stops a run within kWallCheckInterval events of being set") {
  Engine engine;
  std::atomic<bool> flag{false};
  Forever f{engine, 0, &flag, 10'000};
  engine.schedule(0, bind<&Forever::on_tick>(&f));
  StopConditions stop;
  stop.stop_requested = &flag;
  const RunResult r = engine.run(stop);
  CHECK(r.reason == StopReason::kInterrupted);
  CHECK(to_string(r.reason) == "interrupted");
  CHECK(r.events >= 10'000);
  CHECK(r.events <= 10'000 + kWallCheckInterval);
}

TEST_CASE("a flag set from another thread stops the run") {
  Engine engine;
  std::atomic<bool> flag{false};
  Forever f{engine};
  engine.schedule(0, bind<&Forever::on_tick>(&f));
  std::jthread setter([&flag] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    flag.store(true);
  });
  StopConditions stop;
  stop.stop_requested = &flag;
  CHECK(engine.run(stop).reason == StopReason::kInterrupted);
}

TEST_CASE("the event limit still wins exactly when wall checks are on, and a run that drains is complete") {
  Engine engine;
  Forever f{engine};
  engine.schedule(0, bind<&Forever::on_tick>(&f));
  std::atomic<bool> never{false};
  StopConditions stop;
  stop.max_events = 10'000;  // not a multiple of the check interval
  stop.wall_deadline = WallClock::now() + std::chrono::hours(1);
  stop.stop_requested = &never;
  const RunResult r = engine.run(stop);
  CHECK(r.reason == StopReason::kEventLimit);
  CHECK(r.events == 10'000);

  // A finite model under the same limits drains: complete.
  Engine finite;
  Forever counter{finite};
  for (Tick t = 0; t < 3; ++t) finite.schedule_at(t, bind<&Forever::on_tick>(&counter));
  const RunResult bounded = finite.run(RunLimits{100, WallClock::now() + std::chrono::hours(1), &never}.stop_conditions(25));
  CHECK(bounded.reason == StopReason::kEndTime);  // 0..2, then every 10 ps up to 25
  CHECK(ran_to_completion(bounded.reason));
  CHECK(ran_to_completion(StopReason::kDrained));
  CHECK(ran_to_completion(StopReason::kEndTime));
  CHECK_FALSE(ran_to_completion(StopReason::kEventLimit));
}

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "sim/component/component.h"
#include "sim/component/instance_name.h"

using namespace tessera::sim;

namespace {

// Counts down by rescheduling itself after a service time; records what it saw.
class Countdown : public Component {
 public:
  Countdown(Context context, std::string name, Tick service_ps)
      : Component(context, std::move(name)),
        service_ps_(service_ps),
        handled_(add_counter("handled", stats::Unit::kCount, "events handled")),
        times_(add_accumulator("handle_time", stats::Unit::kPs, "times of the handled events")) {}
  void start(std::uint64_t n) { pending_ = schedule_self<&Countdown::on_tick>(this, service_ps_, Payload{n, 0}); }
  bool stop() { return cancel(pending_); }
  std::vector<std::pair<Tick, std::uint64_t>> log;

 private:
  void on_tick(const Payload& p) {
    handled_.add();
    times_.sample(static_cast<double>(now()));
    log.emplace_back(now(), p.a);
    if (p.a > 0) pending_ = schedule_self<&Countdown::on_tick>(this, service_ps_, Payload{p.a - 1, 0});
  }
  Tick service_ps_;
  EventId pending_{};
  stats::Counter& handled_;
  stats::Accumulator& times_;
};

}  // namespace

TEST_CASE("instance names are validated") {
  CHECK(is_valid_instance_name("node.gpu[3].xcd[1].l2"));
  CHECK(is_valid_instance_name("gpu"));
  CHECK_FALSE(is_valid_instance_name(""));
  CHECK_FALSE(is_valid_instance_name("gpu..l2"));
  CHECK_FALSE(is_valid_instance_name("GPU"));
  CHECK_FALSE(is_valid_instance_name("gpu[x]"));
  CHECK_FALSE(is_valid_instance_name("gpu[]"));
  CHECK_FALSE(is_valid_instance_name("3gpu"));
  CHECK(child_name("node", "gpu", 3) == "node.gpu[3]");
  CHECK(child_name("", "gpu", 0) == "gpu[0]");
  CHECK(child_name("node.gpu[3]", "l2") == "node.gpu[3].l2");
  CHECK_THROWS_AS(child_name("node", "L2"), std::invalid_argument);
}

TEST_CASE("a component schedules itself and its statistics carry its name and unit") {
  Engine engine;
  stats::StatRegistry registry;
  Context ctx{engine, registry};
  Countdown a(ctx, "gpu[0].a", 7);
  a.start(3);
  engine.run();
  CHECK(a.log == std::vector<std::pair<Tick, std::uint64_t>>{{7, 3}, {14, 2}, {21, 1}, {28, 0}});
  const auto stats = registry.to_json();
  CHECK(stats["gpu[0].a.handled"]["value"] == 4);
  CHECK(stats["gpu[0].a.handled"]["unit"] == "count");
  CHECK(stats["gpu[0].a.handle_time"]["unit"] == "ps");
  CHECK(stats["gpu[0].a.handle_time"]["mean"].get<double>() == doctest::Approx(17.5));
}

TEST_CASE("a cancelled self-event never runs, names are checked, statistics are unique") {
  Engine engine;
  stats::StatRegistry registry;
  Context ctx{engine, registry};
  Countdown a(ctx, "a", 5);
  a.start(2);
  CHECK(a.stop());
  engine.run();
  CHECK(a.log.empty());
  CHECK_THROWS_AS(Countdown(ctx, "Bad Name", 0), std::invalid_argument);
  CHECK_THROWS_AS(Countdown(ctx, "a", 0), std::invalid_argument);  // stats of 'a' already registered
}

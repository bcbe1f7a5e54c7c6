#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "sim/component/component.h"
#include "sim/component/instance_name.h"
#include "sim/component/link.h"

using namespace tessera::sim;

namespace {

// Answers every ping on its port with a pong, after a service time; counts what it sees.
class Echo : public Component {
 public:
  Echo(Context context, std::string name, Tick service_ps)
      : Component(context, std::move(name)),
        service_ps_(service_ps),
        received_(add_counter("received", stats::Unit::kCount, "messages received")),
        latency_(add_accumulator("arrival_time", stats::Unit::kPs, "arrival times")) {
    add_port<&Echo::on_message>("io", this);
  }
  std::vector<std::pair<Tick, std::uint64_t>> log;

 private:
  void on_message(const Payload& p) {
    received_.add();
    latency_.sample(static_cast<double>(now()));
    log.emplace_back(now(), p.a);
    if (p.a > 0) port("io").send(Payload{p.a - 1, 0}, service_ps_);
  }
  Tick service_ps_;
  stats::Counter& received_;
  stats::Accumulator& latency_;
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

TEST_CASE("a message crosses a link after its latency plus the sender's extra delay") {
  Engine engine;
  stats::StatRegistry registry;
  Context ctx{engine, registry};
  Echo a(ctx, "a", 7);
  Echo b(ctx, "b", 3);
  Link link(engine, a.port("io"), b.port("io"), 100);
  // Start a ping-pong of 4 messages: a sends 3 at t=0.
  a.port("io").send(Payload{3, 0});
  engine.run();
  // b gets 3 at 100; replies 2 after 3+100 -> a at 203; a replies 1 after 7+100 -> b at 310;
  // b replies 0 after 103 -> a at 413.
  CHECK(b.log == std::vector<std::pair<Tick, std::uint64_t>>{{100, 3}, {310, 1}});
  CHECK(a.log == std::vector<std::pair<Tick, std::uint64_t>>{{203, 2}, {413, 0}});
  CHECK(link.messages() == 4);
  const auto stats = registry.to_json();
  CHECK(stats["a.received"]["value"] == 2);
  CHECK(stats["b.received"]["unit"] == "count");
  CHECK(stats["b.arrival_time"]["unit"] == "ps");
  CHECK(stats["b.arrival_time"]["mean"].get<double>() == doctest::Approx(205.0));
}

TEST_CASE("ports refuse a second link, unknown names and sending unconnected") {
  Engine engine;
  stats::StatRegistry registry;
  Context ctx{engine, registry};
  Echo a(ctx, "a", 0), b(ctx, "b", 0), c(ctx, "c", 0);
  CHECK_THROWS_AS(a.port("io").send(Payload{}), std::logic_error);
  Link ab(engine, a.port("io"), b.port("io"), 1);
  CHECK_THROWS_AS(Link(engine, a.port("io"), c.port("io"), 1), std::invalid_argument);
  CHECK_THROWS_WITH_AS(a.port("nope"), "a has no port 'nope' (ports: io)", std::out_of_range);
  CHECK_THROWS_AS(Echo(ctx, "Bad Name", 0), std::invalid_argument);
  CHECK_THROWS_AS(Echo(ctx, "a", 0), std::invalid_argument);  // stats of 'a' already registered
}

#include <doctest/doctest.h>

#include <vector>

#include "models/fabric/packet_network.h"
#include "sim/core/engine.h"
#include "sim/stats/stat_registry.h"

using namespace tessera::models::fabric;
using tessera::sim::Engine;
using tessera::sim::Payload;
using tessera::sim::Tick;

namespace {

struct Fixture {
  Engine engine;
  tessera::sim::stats::StatRegistry registry;
  PacketNetwork net;
  std::vector<Tick> done_at = std::vector<Tick>(16, 0);
  explicit Fixture(PacketNetworkParams p) : net(tessera::sim::Context{engine, registry}, "pkt", p) {}
  void on_done(const Payload& p) { done_at[p.a] = engine.now(); }
  tessera::sim::Handler done() { return tessera::sim::bind<&Fixture::on_done>(this); }
};

}  // namespace

TEST_CASE("packet model: one flow on one hop takes bytes / bandwidth + latency") {
  Fixture f({1000, 4});
  const ResourceId l = f.net.add_resource({"l", 1e11, 700});
  const auto r = f.net.add_route(std::vector<ResourceId>{l});
  f.net.start_flow(r, 1'000'000, f.done(), {0, 0});
  f.engine.run();
  CHECK(f.done_at[0] == 10'000'000 + 700);
  CHECK(f.net.bytes_carried(l) == 1'000'000);
  CHECK(f.net.packets() == 1000);
}

TEST_CASE("packet model: store and forward adds one packet time per extra hop") {
  Fixture f({1000, 64});
  const ResourceId a = f.net.add_resource({"a", 1e11, 100});
  const ResourceId b = f.net.add_resource({"b", 1e11, 200});
  const auto r = f.net.add_route(std::vector<ResourceId>{a, b});
  f.net.start_flow(r, 1'000'000, f.done(), {0, 0});
  f.engine.run();
  CHECK(f.done_at[0] == 10'000'000 + 10'000 + 300);  // + 1000 B / 1e11 B/s on the second hop
}

TEST_CASE("packet model: N equal window-limited flows share a FIFO hop fairly") {
  Fixture f({1000, 4});
  const ResourceId l = f.net.add_resource({"l", 1e11, 0});
  const auto r = f.net.add_route(std::vector<ResourceId>{l});
  for (std::uint64_t i = 0; i < 4; ++i) f.net.start_flow(r, 1'000'000, f.done(), {i, 0});
  f.engine.run();
  // Round robin in FIFO order: a flow's window is served as a batch, so they end within
  // flows x window packet times of the fluid answer (4e7).
  for (std::uint64_t i = 0; i < 4; ++i) {
    CHECK(f.done_at[i] <= 40'000'000);
    CHECK(f.done_at[i] >= 40'000'000 - 4 * 4 * 10'000);  // flows x window x packet time
  }
  CHECK(f.done_at[3] == 40'000'000);
}

#include <doctest/doctest.h>

#include <vector>

#include "models/topology/build_topology.h"
#include "models/topology/network_binding.h"
#include "models/topology/route_table.h"
#include "sim/core/engine.h"
#include "sim/stats/stat_registry.h"
#include "tests/support/test_systems.h"

using namespace tessera::models::topology;
namespace test = tessera::test;
namespace fabric = tessera::models::fabric;
using tessera::sim::Tick;

namespace {

struct Done {
  Tick at = 0;
  tessera::sim::Engine* engine = nullptr;
  void on_done(const tessera::sim::Payload&) { at = engine->now(); }
};

}  // namespace

TEST_CASE("a route carries a flow at its bottleneck bandwidth plus its latency") {
  const Topology t = build_topology(test::mi300x(8));
  RouteTable routes(t);
  tessera::sim::Engine engine;
  tessera::sim::stats::StatRegistry registry;
  fabric::FlowNetwork net{tessera::sim::Context{engine, registry}, "fabric"};
  net.add_resource({"unrelated", 1e9, 0});  // ids in the network then differ from the topology's
  const std::vector<fabric::ResourceId> ids = add_resources(t, net);
  CHECK(ids.size() == t.num_resources());
  CHECK(ids.front() == 1);

  const Route& r = routes.die_to_peer_memory(0, 0, 5);
  const std::vector<fabric::ResourceId> path = to_network_path(r.resources, ids);
  CHECK(net.path_latency_ps(path) == r.latency_ps);
  Done done{0, &engine};
  net.start_flow(path, 64'000'000, fabric::kUncapped, tessera::sim::bind<&Done::on_done>(&done));
  engine.run();
  // 64 MB over the 64 GB/s xGMI link: 1 ms, plus the route's unloaded latency.
  CHECK(done.at == doctest::Approx(1e9 + static_cast<double>(r.latency_ps)).epsilon(1e-9));
  CHECK(net.bytes_carried(ids[*t.find_resource("gpu[0].xgmi_to[5]")]) == 64'000'000);
}

#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/topology/build_topology.h"
#include "models/topology/route_table.h"
#include "tests/support/test_systems.h"

using namespace tessera::models::topology;
namespace test = tessera::test;
using tessera::sim::Tick;

namespace {

std::vector<std::string> names(const Topology& t, const Route& r) {
  std::vector<std::string> out;
  for (ResourceId id : r.resources) out.push_back(t.resource(id).spec.name);
  return out;
}

std::size_t count_class(const Topology& t, const Route& r, ResourceClass c) {
  return static_cast<std::size_t>(std::count_if(r.resources.begin(), r.resources.end(),
                                                [&](ResourceId id) { return t.resource(id).resource_class == c; }));
}

// The invariants every route keeps, computed independently of RouteTable.
void check_sums(const Topology& t, const Route& r) {
  Tick latency = 0;
  double bottleneck = tessera::models::fabric::kUncapped;
  for (ResourceId id : r.resources) {
    latency += t.resource(id).spec.latency_ps;
    bottleneck = std::min(bottleneck, t.resource(id).spec.bandwidth_bytes_per_s);
  }
  CHECK(r.latency_ps == latency);
  CHECK(r.bottleneck_bytes_per_s == bottleneck);
}

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("mi300x-1: die -> local memory crosses its die link and the HBM") {
  const Topology t = build_topology(test::mi300x(1));
  RouteTable routes(t);
  const Route& r = routes.die_to_local_memory(0, 3);
  CHECK(names(t, r) == Names{"gpu[0].die[3].link_up", "gpu[0].hbm"});
  // Die 3 sits on IOD 1; the memory side is reached from there without an IOD hop.
  CHECK(r.vertices == std::vector<Vertex>{t.vertex(Endpoint::die(0, 3)), t.vertex(Endpoint::iod(0, 1)),
                                          t.vertex(Endpoint::memory(0))});
  CHECK(r.latency_ps == 428'000);
  CHECK(r.bottleneck_bytes_per_s == 2.15e12);  // the die link, narrower than the HBM

  const Route& with_l2 = routes.die_to_local_memory(0, 3, {.memory = MemoryNode::kHbm, .include_l2 = true});
  CHECK(names(t, with_l2) == Names{"gpu[0].die[3].l2", "gpu[0].die[3].link_up", "gpu[0].hbm"});
  const Route& mall = routes.die_to_local_memory(0, 3, {.memory = MemoryNode::kMall});
  CHECK(names(t, mall) == Names{"gpu[0].die[3].link_up", "gpu[0].mall"});
  CHECK(mall.latency_ps == 0);
  const Route& bare = routes.die_to_local_memory(0, 3, {.memory = MemoryNode::kNone});
  CHECK(names(t, bare) == Names{"gpu[0].die[3].link_up"});

  const Route& back = routes.route(Endpoint::memory(0), Endpoint::die(0, 3));
  CHECK(names(t, back) == Names{"gpu[0].hbm", "gpu[0].die[3].link_down"});
}

TEST_CASE("mi300x-1: die -> die on another IOD crosses one IOD link, never the memory side") {
  const Topology t = build_topology(test::mi300x(1));
  RouteTable routes(t);
  // The memory side's free edges would make the 0-latency detour shorter; it is not transit.
  const Route& r = routes.route(Endpoint::die(0, 0), Endpoint::die(0, 7));
  CHECK(names(t, r) == Names{"gpu[0].die[0].link_up", "gpu[0].iod[0].to_iod[3]", "gpu[0].die[7].link_down"});
  CHECK(r.latency_ps == 20'000);
  CHECK(r.bottleneck_bytes_per_s == 1.2e12);
  const Route& same_iod = routes.route(Endpoint::die(0, 0), Endpoint::die(0, 1));
  CHECK(names(t, same_iod) == Names{"gpu[0].die[0].link_up", "gpu[0].die[1].link_down"});
  const Route& self = routes.route(Endpoint::die(0, 2), Endpoint::die(0, 2), {.include_l2 = true});
  CHECK(names(t, self) == Names{"gpu[0].die[2].l2"});
  const Route& host = routes.route(Endpoint::host(), Endpoint::memory(0));
  CHECK(names(t, host) == Names{"host.pcie_to[0]", "gpu[0].hbm"});
  CHECK(host.bottleneck_bytes_per_s == 64e9);
}

TEST_CASE("mi300x-8 full mesh: die -> peer memory crosses exactly one xGMI edge") {
  const Topology t = build_topology(test::mi300x(8));
  RouteTable routes(t);
  const Route& r = routes.die_to_peer_memory(0, 0, 5);
  // Die 0 on IOD 0; the link to GPU 5 leaves from IOD 5 mod 4 = 1 and lands on GPU 5's IOD 0.
  CHECK(names(t, r) == Names{"gpu[0].die[0].link_up", "gpu[0].iod[0].to_iod[1]", "gpu[0].xgmi_to[5]", "gpu[5].hbm"});
  CHECK(r.latency_ps == 20'000 + 700'000 + 428'000);
  CHECK(r.bottleneck_bytes_per_s == 64e9);

  const Route& dd = routes.die_to_peer_die(0, 2, 3, 5);
  CHECK(names(t, dd) == Names{"gpu[0].die[2].link_up", "gpu[0].iod[1].to_iod[3]", "gpu[0].xgmi_to[3]",
                              "gpu[3].iod[0].to_iod[2]", "gpu[3].die[5].link_down"});
  CHECK(dd.latency_ps == 2 * 20'000 + 700'000);

  for (std::uint32_t g = 0; g < 8; ++g) {
    for (std::uint32_t d = 0; d < 8; ++d) {
      for (std::uint32_t p = 0; p < 8; ++p) {
        if (p == g) continue;
        const Route& route = routes.die_to_peer_memory(g, d, p);
        CHECK(count_class(t, route, ResourceClass::kXgmi) == 1);
        CHECK(t.resource(route.resources.back()).spec.name == "gpu[" + std::to_string(p) + "].hbm");
        check_sums(t, route);
      }
    }
  }
}

TEST_CASE("full mesh: the host is not a shortcut even when it is faster") {
  auto spec = test::mi300x(8);
  spec.interconnect.link_latency_ps = 50'000'000;  // far slower than the (0-latency) PCIe path
  const Topology t = build_topology(spec);
  RouteTable routes(t);
  const Route& r = routes.die_to_peer_memory(1, 4, 6);
  CHECK(count_class(t, r, ResourceClass::kXgmi) == 1);
  CHECK(count_class(t, r, ResourceClass::kPcie) == 0);
}

TEST_CASE("no GPU links: peer traffic goes through the PCIe root") {
  auto spec = test::mi300x(2);
  spec.interconnect.topology = "none";
  const Topology t = build_topology(spec);
  RouteTable routes(t);
  const Route& r = routes.die_to_peer_memory(0, 0, 1);
  CHECK(names(t, r) == Names{"gpu[0].die[0].link_up", "gpu[0].pcie_up", "host.pcie_to[1]", "gpu[1].hbm"});
  spec.interconnect.pcie_bandwidth_bytes_per_s = 0;
  const Topology isolated = build_topology(spec);
  RouteTable none(isolated);
  CHECK_THROWS_AS(none.die_to_peer_memory(0, 0, 1), std::invalid_argument);
}

TEST_CASE("switch system: die -> peer memory crosses two switch-attached edges and the switch") {
  const Topology t = build_topology(test::hopper(8, "switch"));
  RouteTable routes(t);
  const Route& r = routes.die_to_peer_memory(0, 1, 5);
  CHECK(names(t, r) == Names{"gpu[0].die[1].link_up", "gpu[0].nvlink_up", "switch[0].crossbar",
                             "switch[0].nvlink_to[5]", "gpu[5].hbm"});
  CHECK(count_class(t, r, ResourceClass::kNvlink) == 2);
  CHECK(r.latency_ps == 500'000 + 300'000 + 500'000 + 400'000);
  CHECK(r.bottleneck_bytes_per_s == doctest::Approx(18 * 25e9));
  for (std::uint32_t g = 0; g < 8; ++g) {
    for (std::uint32_t p = 0; p < 8; ++p) {
      if (p == g) continue;
      const Route& route = routes.die_to_peer_die(g, 0, p, 1);
      CHECK(count_class(t, route, ResourceClass::kNvlink) == 2);
      CHECK(count_class(t, route, ResourceClass::kSwitch) == 1);
      check_sums(t, route);
    }
  }
  CHECK_THROWS_AS(routes.die_to_local_memory(0, 0, {.memory = MemoryNode::kMall}), std::invalid_argument);
}

TEST_CASE("direct bundle: one NVLink edge between the two GPUs") {
  const Topology t = build_topology(test::hopper(2, "direct"));
  RouteTable routes(t);
  const Route& r = routes.die_to_peer_memory(1, 0, 0, {.include_l2 = true});
  CHECK(names(t, r) == Names{"gpu[1].die[0].l2", "gpu[1].die[0].link_up", "gpu[1].nvlink_to[0]", "gpu[0].hbm"});
  CHECK(r.bottleneck_bytes_per_s == doctest::Approx(18 * 26.562e9));
  check_sums(t, r);
}

TEST_CASE("with every latency zero, ties go to the fewest hops") {
  auto spec = test::mi300x(8);
  spec.gpu.fabric.iod_hop_latency_ps = 0;
  spec.gpu.memory.hbm_latency_ps = 0;
  spec.interconnect.link_latency_ps = 0;
  const Topology t = build_topology(spec);
  RouteTable routes(t);
  const Route& r = routes.die_to_peer_memory(0, 0, 5);
  CHECK(names(t, r) == Names{"gpu[0].die[0].link_up", "gpu[0].iod[0].to_iod[1]", "gpu[0].xgmi_to[5]", "gpu[5].hbm"});
  CHECK(r.latency_ps == 0);
}

TEST_CASE("routing is deterministic and cached") {
  const auto spec = test::mi300x(8);
  const Topology a = build_topology(spec);
  const Topology b = build_topology(spec);
  RouteTable ra(a);
  RouteTable rb(b);
  for (std::uint32_t g = 0; g < 8; ++g) {
    for (std::uint32_t d = 0; d < 8; ++d) {
      for (std::uint32_t p = 0; p < 8; ++p) {
        CHECK(ra.die_to_peer_memory(g, d, p).resources == rb.die_to_peer_memory(g, d, p).resources);
        CHECK(ra.die_to_peer_die(g, d, p, 7 - d).resources == rb.die_to_peer_die(g, d, p, 7 - d).resources);
      }
    }
  }
  const std::size_t cached = ra.num_cached_routes();
  CHECK(cached == 2 * 8 * 8 * 8);
  const Route* first = &ra.die_to_peer_memory(3, 2, 6);
  CHECK(&ra.die_to_peer_memory(3, 2, 6) == first);  // the same entry, not a recomputation
  CHECK(ra.num_cached_routes() == cached);
  CHECK(&ra.die_to_peer_memory(3, 2, 6, {.include_l2 = true}) != first);  // options are part of the key
  CHECK_THROWS_AS(ra.die_to_local_memory(8, 0), std::out_of_range);
}

// With every latency zero (an uncalibrated system file), a detour through a third GPU's IODs
// ties the direct link in hops; GPUs never forward a peer's traffic, so it must not be taken.
TEST_CASE("full mesh, all latencies zero: every route to a peer, both ways, crosses one xGMI edge") {
  tessera::models::SystemSpec s = test::mi300x(8);
  s.gpu.memory.hbm_latency_ps = 0;
  s.gpu.fabric.iod_hop_latency_ps = 0;
  s.interconnect.link_latency_ps = 0;
  const Topology t = build_topology(s);
  RouteTable routes(t);
  for (std::uint32_t g = 0; g < 8; ++g) {
    for (std::uint32_t d = 0; d < 8; ++d) {
      for (std::uint32_t p = 0; p < 8; ++p) {
        if (p == g) continue;
        CHECK(count_class(t, routes.die_to_peer_memory(g, d, p), ResourceClass::kXgmi) == 1);
        CHECK(count_class(t, routes.route(Endpoint::memory(p), Endpoint::die(g, d)), ResourceClass::kXgmi) == 1);
      }
    }
  }
}

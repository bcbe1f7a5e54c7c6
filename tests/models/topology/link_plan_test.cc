// The link plan: what each shorthand generates, what a link list gives, and the graphs and
// routes built from them (rings and tori forward through a GPU's IOD; meshes never do).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "models/topology/build_topology.h"
#include "models/topology/link_plan.h"
#include "models/topology/route_table.h"
#include "tests/support/test_systems.h"

using namespace tessera::models::topology;
using tessera::models::LinkSpec;
using tessera::models::SwitchSpec;
using tessera::models::SystemSpec;
namespace test = tessera::test;

namespace {

std::vector<std::uint32_t> gpus_of(const std::vector<Neighbour>& v) {
  std::vector<std::uint32_t> out;
  for (const Neighbour& n : v) out.push_back(n.gpu);
  return out;
}

SystemSpec ring_of(std::uint32_t n, std::uint32_t links_per_gpu) {
  SystemSpec s = test::mi300x(n);
  s.interconnect.topology = "ring";
  s.interconnect.links_per_gpu = links_per_gpu;
  return s;
}

std::size_t gpu_links_on(const Topology& t, const Route& r) {
  std::size_t n = 0;
  for (ResourceId id : r.resources) {
    const ResourceClass c = t.resource(id).resource_class;
    if (c == ResourceClass::kXgmi || c == ResourceClass::kNvlink) ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("ring neighbours: the next and the previous GPU, half the links to each (rounded down)") {
  const auto four = ring_neighbours(0, 4, 7);
  CHECK(gpus_of(four) == std::vector<std::uint32_t>{1, 3});
  CHECK(four[0].count == 3);
  CHECK(four[1].count == 3);
  CHECK(gpus_of(ring_neighbours(3, 4, 4)) == std::vector<std::uint32_t>{0, 2});
  // Two GPUs: both neighbours are the other GPU, one bundle of every link (an odd one too).
  const auto two = ring_neighbours(1, 2, 7);
  REQUIRE(two.size() == 1);
  CHECK(two[0].gpu == 0);
  CHECK(two[0].count == 7);
  CHECK(ring_neighbours(0, 1, 4).empty());
}

TEST_CASE("torus neighbours: wrap-around in both dimensions, a dimension of two merges its two directions") {
  // 3 x 4: GPU 5 sits at row 1, column 1.
  const auto n = torus_neighbours(5, 3, 4, 8);
  CHECK(gpus_of(n) == std::vector<std::uint32_t>{1, 4, 6, 9});
  for (const Neighbour& x : n) CHECK(x.count == 2);
  // GPU 0 of 3 x 4: up wraps to row 2 (GPU 8), left wraps to column 3 (GPU 3).
  CHECK(gpus_of(torus_neighbours(0, 3, 4, 4)) == std::vector<std::uint32_t>{1, 3, 4, 8});
  // 2 x 4: the row above and below are the same GPU: one bundle of two shares.
  const auto m = torus_neighbours(0, 2, 4, 4);
  CHECK(gpus_of(m) == std::vector<std::uint32_t>{1, 3, 4});
  CHECK(m[2].count == 2);
  CHECK(m[0].count == 1);
  // 1 x 4: a ring, all links to the two neighbours.
  const auto row = torus_neighbours(2, 1, 4, 4);
  CHECK(gpus_of(row) == std::vector<std::uint32_t>{1, 3});
  CHECK(row[0].count == 2);
}

TEST_CASE("a full mesh plans a bundle from every GPU to every peer, GPU by GPU, peers ascending") {
  const LinkPlan plan = plan_links(test::mi300x(4));  // 7 links over 3 peers: 2 each
  REQUIRE(plan.links.size() == 12);
  CHECK(plan.switches.empty());
  CHECK(plan.links[0].name == "gpu[0].xgmi_to[1]");
  CHECK(plan.links[2].name == "gpu[0].xgmi_to[3]");
  CHECK(plan.links[3].name == "gpu[1].xgmi_to[0]");
  CHECK(plan.links[0].count == 2);
}

TEST_CASE("a link list plans each entry both ways, in the file's order, with the interconnect's defaults") {
  SystemSpec s = test::mi300x(3);
  s.interconnect.topology = "links";
  s.interconnect.switches = {SwitchSpec{"leaf", std::nullopt}};
  s.interconnect.switch_latency_ps = 250'000;
  s.interconnect.links = {LinkSpec{{"gpu0", "leaf"}, 4, std::nullopt, std::nullopt},
                          LinkSpec{{"gpu1", "leaf"}, 4, std::nullopt, std::nullopt},
                          LinkSpec{{"gpu2", "gpu1"}, 2, 100e9, 1'000'000}};
  const LinkPlan plan = plan_links(s);
  REQUIRE(plan.switches.size() == 1);
  CHECK(plan.switches[0].latency_ps == 250'000);
  REQUIRE(plan.links.size() == 6);
  CHECK(plan.links[0].name == "gpu[0].xgmi_to_switch[0]");
  CHECK(plan.links[1].name == "switch[0].xgmi_to[0]");
  CHECK(plan.links[0].bandwidth_bytes_per_s == s.interconnect.link_bandwidth_bytes_per_s);
  CHECK(plan.links[0].latency_ps == s.interconnect.link_latency_ps);
  CHECK(plan.links[4].name == "gpu[2].xgmi_to[1]");
  CHECK(plan.links[5].name == "gpu[1].xgmi_to[2]");
  CHECK(plan.links[5].bandwidth_bytes_per_s == 100e9);
  CHECK(plan.links[5].latency_ps == 1'000'000);

  // The switch's crossbar is as wide as the links into it; gpu2 reaches gpu0 through gpu1 and it.
  const Topology t = build_topology(s);
  const auto crossbar = t.find_resource("switch[0].crossbar");
  REQUIRE(crossbar);
  CHECK(t.resource(*crossbar).spec.bandwidth_bytes_per_s == 8 * s.interconnect.link_bandwidth_bytes_per_s);
  RouteTable routes(t);
  const Route& r = routes.die_to_peer_memory(2, 0, 0);
  CHECK(gpu_links_on(t, r) == 3);  // gpu2 -> gpu1 -> switch -> gpu0
}

TEST_CASE("a ring routes a neighbour over one link and the GPU opposite over two, through a neighbour's IOD") {
  const SystemSpec s = ring_of(4, 4);
  const Topology t = build_topology(s);
  CHECK(t.count_resources(ResourceClass::kXgmi) == 8);
  const auto link = t.find_resource("gpu[0].xgmi_to[1]");
  REQUIRE(link);
  CHECK(t.resource(*link).num_links == 2);
  CHECK(!t.find_resource("gpu[0].xgmi_to[2]"));
  RouteTable routes(t);
  CHECK(gpu_links_on(t, routes.die_to_peer_memory(0, 0, 1)) == 1);
  CHECK(gpu_links_on(t, routes.die_to_peer_memory(0, 0, 3)) == 1);
  const Route& opposite = routes.die_to_peer_memory(0, 0, 2);
  CHECK(gpu_links_on(t, opposite) == 2);
  CHECK(opposite.latency_ps >= 2 * s.interconnect.link_latency_ps);
}

TEST_CASE("a full mesh never forwards through a peer, even where a detour would tie") {
  SystemSpec s = test::mi300x(4);
  s.interconnect.link_latency_ps = 0;
  s.gpu.fabric.iod_hop_latency_ps = 0;
  const Topology t = build_topology(s);
  RouteTable routes(t);
  for (std::uint32_t p = 1; p < 4; ++p) CHECK(gpu_links_on(t, routes.die_to_peer_memory(0, 0, p)) == 1);
}

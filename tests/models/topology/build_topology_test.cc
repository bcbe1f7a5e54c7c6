#include <doctest/doctest.h>

#include <stdexcept>

#include "models/topology/build_topology.h"
#include "sim/component/instance_name.h"
#include "tests/support/test_systems.h"

using namespace tessera::models::topology;
namespace test = tessera::test;

namespace {

std::size_t count_edges(const Topology& t, ResourceClass c) {
  std::size_t n = 0;
  const Graph& g = t.graph();
  for (const Edge& e : boost::make_iterator_range(boost::edges(g))) {
    if (g[e].resource != kNoResource && t.resource(g[e].resource).resource_class == c) ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("mi300x-1: 8 dies, 4 IODs, one memory side, host") {
  const Topology t = build_topology(test::mi300x(1));
  CHECK(t.num_vertices() == 8 + 4 + 1 + 1);
  // die links 8 x 2, IOD mesh 4 x 3, IOD <-> memory 4 x 2 (structural), PCIe 2.
  CHECK(t.num_edges() == 16 + 12 + 8 + 2);
  CHECK(t.count_resources(ResourceClass::kDieLink) == 16);
  CHECK(t.count_resources(ResourceClass::kIodLink) == 12);
  CHECK(t.count_resources(ResourceClass::kL2) == 8);
  CHECK(t.count_resources(ResourceClass::kHbm) == 1);
  CHECK(t.count_resources(ResourceClass::kMall) == 1);
  CHECK(t.count_resources(ResourceClass::kPcie) == 2);
  CHECK(t.count_resources(ResourceClass::kXgmi) == 0);
  CHECK(t.num_resources() == 16 + 12 + 8 + 1 + 1 + 2);

  // Dies spread evenly: two per IOD.
  const Graph& g = t.graph();
  for (std::uint32_t d = 0; d < 8; ++d) {
    const Vertex die = t.vertex(Endpoint::die(0, d));
    REQUIRE(boost::out_degree(die, g) == 1);
    CHECK(boost::target(*boost::out_edges(die, g).first, g) == t.vertex(Endpoint::iod(0, d / 2)));
  }
  const auto hbm = t.find_resource("gpu[0].hbm");
  REQUIRE(hbm);
  CHECK(t.resource(*hbm).spec.bandwidth_bytes_per_s == 5.3e12);
  CHECK(t.resource(*hbm).spec.latency_ps == 428'000);
  const auto iod_link = t.find_resource("gpu[0].iod[1].to_iod[2]");
  REQUIRE(iod_link);
  CHECK(t.resource(*iod_link).label == "gpu[0].iod[1]->gpu[0].iod[2]");
  CHECK(t.resource(*iod_link).spec.latency_ps == 20'000);
  CHECK(t.info(t.vertex(Endpoint::die(0, 3))).node_resource == *t.find_resource("gpu[0].die[3].l2"));
}

TEST_CASE("mi300x-8 full mesh: 56 directed xGMI edges, one link each") {
  const Topology t = build_topology(test::mi300x(8));
  CHECK(t.num_vertices() == 8 * 13 + 1);
  CHECK(count_edges(t, ResourceClass::kXgmi) == 56);
  CHECK(t.count_resources(ResourceClass::kXgmi) == 56);
  CHECK(t.num_edges() == 8 * 36 + 56 + 16);
  const auto x = t.find_resource("gpu[2].xgmi_to[5]");
  REQUIRE(x);
  CHECK(t.resource(*x).num_links == 1);
  CHECK(t.resource(*x).spec.bandwidth_bytes_per_s == 64e9);
  CHECK(t.resource(*x).spec.latency_ps == 700'000);
  // Attached at IOD (peer mod 4) on each side: gpu[2].iod[1] -> gpu[5].iod[2].
  CHECK(t.resource(*x).label == "gpu[2].iod[1]->gpu[5].iod[2]");
}

TEST_CASE("full mesh with fewer peers than links aggregates links into one edge") {
  auto spec = test::mi300x(4);  // 7 links over 3 peers: 2 each, one spare
  const Topology t = build_topology(spec);
  CHECK(t.count_resources(ResourceClass::kXgmi) == 12);
  const auto x = t.find_resource("gpu[0].xgmi_to[3]");
  REQUIRE(x);
  CHECK(t.resource(*x).num_links == 2);
  CHECK(t.resource(*x).spec.bandwidth_bytes_per_s == 2 * 64e9);
}

TEST_CASE("2-GPU direct bundle: one NVLink edge each way with all 18 links") {
  const Topology t = build_topology(test::hopper(2, "direct"));
  CHECK(t.num_vertices() == 2 * (2 + 1 + 1));
  CHECK(t.num_edges() == 2 * (4 + 2) + 2);
  CHECK(t.count_resources(ResourceClass::kNvlink) == 2);
  CHECK(t.count_resources(ResourceClass::kMall) == 0);
  CHECK(t.num_resources() == 2 * (4 + 2 + 1) + 2);
  const auto l = t.find_resource("gpu[1].nvlink_to[0]");
  REQUIRE(l);
  CHECK(t.resource(*l).num_links == 18);
  CHECK(t.resource(*l).spec.bandwidth_bytes_per_s == doctest::Approx(18 * 26.562e9));
  CHECK_FALSE(t.find_vertex("host"));
}

TEST_CASE("8-GPU switch system: switches aggregated into one vertex") {
  const Topology t = build_topology(test::hopper(8, "switch"));
  CHECK(t.num_vertices() == 8 * 4 + 1);
  CHECK(t.num_edges() == 8 * 6 + 16);
  CHECK(count_edges(t, ResourceClass::kNvlink) == 16);
  CHECK(t.count_resources(ResourceClass::kSwitch) == 1);
  CHECK(t.num_resources() == 8 * 7 + 16 + 1);
  const Vertex sw = t.vertex(Endpoint::switch_at(0));
  CHECK(boost::out_degree(sw, t.graph()) == 8);
  CHECK(boost::in_degree(sw, t.graph()) == 8);
  const auto up = t.find_resource("gpu[3].nvlink_up");
  REQUIRE(up);
  CHECK(t.resource(*up).spec.bandwidth_bytes_per_s == doctest::Approx(18 * 25e9));
  const TopologyResource& xbar = t.resource(t.info(sw).node_resource);
  CHECK(xbar.resource_class == ResourceClass::kSwitch);
  CHECK(xbar.spec.latency_ps == 300'000);
  CHECK(xbar.num_links == 4);  // the physical switches it stands for
  CHECK_THROWS_AS(t.vertex(Endpoint::switch_at(1)), std::out_of_range);
}

TEST_CASE("every resource has a valid instance name (a FlowNetwork needs one) and a positive bandwidth") {
  for (const auto& spec : {test::mi300x(8), test::hopper(8, "switch"), test::hopper(2, "direct")}) {
    const Topology t = build_topology(spec);
    for (ResourceId id = 0; id < t.num_resources(); ++id) {
      const TopologyResource& r = t.resource(id);
      CHECK_MESSAGE(tessera::sim::is_valid_instance_name(r.spec.name), r.spec.name);
      CHECK(r.spec.bandwidth_bytes_per_s > 0);
      CHECK(t.find_resource(r.spec.name) == id);
    }
  }
}

TEST_CASE("specs that cannot be wired are rejected") {
  auto uneven = test::mi300x(1);
  uneven.gpu.fabric.num_iods = 3;
  CHECK_THROWS_AS(build_topology(uneven), std::invalid_argument);

  auto short_mesh = test::mi300x(8);
  short_mesh.interconnect.links_per_gpu = 6;
  CHECK_THROWS_AS(build_topology(short_mesh), std::invalid_argument);

  auto direct3 = test::hopper(3, "direct");
  CHECK_THROWS_AS(build_topology(direct3), std::invalid_argument);

  auto unknown = test::hopper(2, "torus");
  CHECK_THROWS_AS(build_topology(unknown), std::invalid_argument);

  auto no_switch = test::hopper(8, "switch");
  no_switch.interconnect.num_switches = 0;
  CHECK_THROWS_AS(build_topology(no_switch), std::invalid_argument);
}

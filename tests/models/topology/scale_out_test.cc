// Systems of several nodes: each node wired as its interconnect says, a NIC per GPU, leaves by
// rail or by node, a spine above several leaves; routes between nodes leave through the source's
// own NIC and cross the switches a hand count gives.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "models/topology/build_topology.h"
#include "models/topology/dot_writer.h"
#include "models/topology/link_plan.h"
#include "models/topology/route_table.h"
#include "tests/support/test_systems.h"

using namespace tessera::models::topology;
using tessera::models::SystemSpec;
namespace test = tessera::test;

namespace {

constexpr tessera::sim::Tick kNicLatency = 350'000;
constexpr tessera::sim::Tick kSwitchLatency = 300'000;

// `nodes` MI300X nodes of `per_node` GPUs (full mesh inside), 50 GB/s NICs.
SystemSpec cluster(std::uint32_t nodes, std::uint32_t per_node, const std::string& network = "rail") {
  SystemSpec s = test::mi300x(nodes * per_node);
  s.interconnect.links_per_gpu = per_node > 1 ? per_node - 1 : 0;
  if (per_node == 1) s.interconnect.topology = "none";
  s.scale_out.nodes = nodes;
  s.scale_out.nic.bandwidth_bytes_per_s = 50e9;
  s.scale_out.nic.latency_ps = kNicLatency;
  s.scale_out.nic.pcie_bandwidth_bytes_per_s = 63e9;
  s.scale_out.network.topology = network;
  s.scale_out.network.switch_latency_ps = kSwitchLatency;
  return s;
}

bool crosses(const Topology& t, const Route& r, const std::string& name) {
  return std::any_of(r.resources.begin(), r.resources.end(), [&](ResourceId id) { return t.resource(id).spec.name == name; });
}

std::size_t count_class(const Topology& t, const Route& r, ResourceClass c) {
  return static_cast<std::size_t>(std::count_if(r.resources.begin(), r.resources.end(),
                                                [&](ResourceId id) { return t.resource(id).resource_class == c; }));
}

}  // namespace

TEST_CASE("every node is wired as the interconnect says, its GPUs and switches numbered on") {
  SystemSpec s = test::hopper(8, "switch");
  s.scale_out = cluster(2, 4).scale_out;
  const LinkPlan plan = plan_links(s);
  REQUIRE(plan.switches.size() == 2);  // one switch per node
  REQUIRE(plan.links.size() == 16);    // up and down for each of 8 GPUs
  CHECK(plan.links[8].name == "gpu[4].nvlink_up");
  CHECK(plan.links[8].to.index == 1);
  CHECK(plan.links[9].name == "switch[1].nvlink_to[4]");
  // A full mesh per node: 4 GPUs x 3 peers per node, never a link between nodes.
  const LinkPlan mesh = plan_links(cluster(2, 4));
  CHECK(mesh.links.size() == 24);
  for (const PlannedLink& l : mesh.links) CHECK(l.from.index / 4 == l.to.index / 4);
}

TEST_CASE("rail: leaf r joins GPU r of every node, and a spine joins the rails") {
  const Topology t = build_topology(cluster(4, 2));
  CHECK(t.find_vertex("leaf[0]"));
  CHECK(t.find_vertex("leaf[1]"));
  CHECK_FALSE(t.find_vertex("leaf[2]"));
  CHECK(t.find_vertex("spine"));
  CHECK(t.find_resource("leaf[1].to_nic[7]"));  // GPU 7 is GPU 1 of node 3
  CHECK_FALSE(t.find_resource("leaf[0].to_nic[7]"));
  // A leaf has four NICs below it: 200 GB/s up, the crossbar as wide as everything into it.
  const TopologyResource& up = t.resource(*t.find_resource("leaf[0].up"));
  CHECK(up.resource_class == ResourceClass::kNetwork);
  CHECK(up.spec.bandwidth_bytes_per_s == doctest::Approx(200e9));
  CHECK(t.resource(*t.find_resource("leaf[0].crossbar")).spec.bandwidth_bytes_per_s == doctest::Approx(400e9));
  CHECK(t.resource(*t.find_resource("gpu[3].nic.tx")).resource_class == ResourceClass::kNic);
  CHECK(t.resource(*t.find_resource("gpu[3].nic.pcie_up")).spec.bandwidth_bytes_per_s == doctest::Approx(63e9));
}

TEST_CASE("fat tree: a leaf per nodes_per_leaf nodes, uplinks divided by the oversubscription") {
  SystemSpec s = cluster(4, 2, "fat_tree");
  s.scale_out.network.nodes_per_leaf = 2;
  s.scale_out.network.oversubscription = 2;
  const Topology t = build_topology(s);
  CHECK(t.find_resource("leaf[0].to_nic[3]"));  // node 1 under leaf 0
  CHECK(t.find_resource("leaf[1].to_nic[4]"));  // node 2 under leaf 1
  // Four NICs of 50 GB/s below, oversubscribed 2:1.
  CHECK(t.resource(*t.find_resource("leaf[1].up")).spec.bandwidth_bytes_per_s == doctest::Approx(100e9));
  // One leaf for every node: no spine.
  SystemSpec one = cluster(4, 2, "fat_tree");
  const Topology single = build_topology(one);
  CHECK(single.find_vertex("leaf[0]"));
  CHECK_FALSE(single.find_vertex("leaf[1]"));
  CHECK_FALSE(single.find_vertex("spine"));
}

TEST_CASE("a route between nodes leaves through its own GPU's NIC, the same rail skips the spine") {
  const Topology t = build_topology(cluster(2, 8));
  RouteTable routes(t);
  // GPU 1 (node 0, rail 1) to GPU 9 (node 1, rail 1): NIC, leaf, NIC.
  const Route& same_rail = routes.die_to_peer_memory(1, 0, 9, {});
  CHECK(crosses(t, same_rail, "gpu[1].nic.pcie_up"));
  CHECK(crosses(t, same_rail, "gpu[1].nic.tx"));
  CHECK(crosses(t, same_rail, "leaf[1].to_nic[9]"));
  CHECK(crosses(t, same_rail, "gpu[9].nic.pcie_down"));
  CHECK(count_class(t, same_rail, ResourceClass::kXgmi) == 0);
  CHECK(count_class(t, same_rail, ResourceClass::kNetwork) == 0);
  // GPU 1 to GPU 10 (rail 2): up through the spine, never through GPU 2's NIC over xGMI.
  const Route& cross_rail = routes.die_to_peer_memory(1, 0, 10, {});
  CHECK(crosses(t, cross_rail, "gpu[1].nic.tx"));
  CHECK(crosses(t, cross_rail, "leaf[1].up"));
  CHECK(crosses(t, cross_rail, "spine.to_leaf[2]"));
  CHECK(count_class(t, cross_rail, ResourceClass::kXgmi) == 0);
  // Hand count: two NICs and one switch, or two NICs and three switches.
  const Route& local = routes.die_to_local_memory(1, 0, {});
  CHECK(same_rail.latency_ps - local.latency_ps == 2 * kNicLatency + kSwitchLatency);
  CHECK(cross_rail.latency_ps - local.latency_ps == 2 * kNicLatency + 3 * kSwitchLatency);
  CHECK(same_rail.bottleneck_bytes_per_s == doctest::Approx(50e9));
  // Within a node the xGMI mesh, never the network.
  const Route& peer = routes.die_to_peer_memory(1, 0, 2, {});
  CHECK(count_class(t, peer, ResourceClass::kNic) == 0);
  CHECK(count_class(t, peer, ResourceClass::kXgmi) == 1);
}

TEST_CASE("one GPU per node: the network is the only way, the host never a transit") {
  SystemSpec s = cluster(4, 1);
  const Topology t = build_topology(s);
  RouteTable routes(t);
  const Route& r = routes.die_to_peer_memory(0, 0, 3, {});
  CHECK(count_class(t, r, ResourceClass::kNic) == 2);
  CHECK(count_class(t, r, ResourceClass::kPcie) == 2);  // the NICs' PCIe attach, not the host's
  CHECK_FALSE(crosses(t, r, "gpu[0].pcie_up"));
}

TEST_CASE("DOT draws a cluster per node with its GPUs, and the network outside") {
  const std::string dot = to_dot(build_topology(cluster(2, 2)));
  CHECK(dot.find("subgraph cluster_node0 {") != std::string::npos);
  CHECK(dot.find("subgraph cluster_node1 {") != std::string::npos);
  const auto node1 = dot.find("subgraph cluster_node1 {");
  CHECK(dot.find("subgraph cluster_gpu2 {") > node1);
  CHECK(dot.find("\"gpu[3].nic\" [label=\"gpu[3].nic\", shape=invtrapezium];") != std::string::npos);
  CHECK(dot.find("  \"spine\" [label=\"spine\\nswitch") != std::string::npos);
}

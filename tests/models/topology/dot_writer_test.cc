#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>

#include <boost/graph/graphviz.hpp>

#include "models/topology/build_topology.h"
#include "models/topology/dot_writer.h"
#include "tests/support/test_systems.h"

using namespace tessera::models::topology;
namespace test = tessera::test;

namespace {

struct DotVertex {
  std::string name;
};
using DotGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, DotVertex>;

}  // namespace

TEST_CASE("DOT output reads back with boost::read_graphviz: same vertices and edges") {
  for (const auto& spec : {test::mi300x(8), test::hopper(8, "switch"), test::hopper(2, "direct")}) {
    const Topology t = build_topology(spec);
    const std::string dot = to_dot(t);
    CHECK(std::count(dot.begin(), dot.end(), '{') == std::count(dot.begin(), dot.end(), '}'));
    CHECK(dot.find("subgraph cluster_gpu0") != std::string::npos);
    // Labels break lines with DOT's own escape, written once, not escaped again.
    CHECK(dot.find("gpu[0].die[0].link_up\\n") != std::string::npos);
    CHECK(dot.find("\\\\") == std::string::npos);

    DotGraph read;
    boost::dynamic_properties dp(boost::ignore_other_properties);
    dp.property("node_id", boost::get(&DotVertex::name, read));
    REQUIRE(boost::read_graphviz(dot, read, dp, "node_id"));
    CHECK(boost::num_vertices(read) == t.num_vertices());
    CHECK(boost::num_edges(read) == t.num_edges());
    std::set<std::string> names;
    for (auto v : boost::make_iterator_range(boost::vertices(read))) names.insert(read[v].name);
    for (auto v : boost::make_iterator_range(boost::vertices(t.graph()))) CHECK(names.count(t.info(v).name) == 1);
  }
}

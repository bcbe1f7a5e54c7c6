#include <doctest/doctest.h>

#include <string>

#include "models/topology/build_topology.h"
#include "models/topology/describe_topology.h"
#include "tests/support/test_systems.h"

using namespace tessera::models::topology;
namespace test = tessera::test;

TEST_CASE("describe lists the GPU, the links and every resource") {
  const Topology t = build_topology(test::mi300x(8));
  const std::string text = describe_topology(t);
  CHECK(text.find("8 x GPU MI300X (amd): 8 dies on 4 IODs") != std::string::npos);
  CHECK(text.find("interconnect: full_mesh, 7 links per GPU") != std::string::npos);
  CHECK(text.find("gpu[2].iod[1]->gpu[5].iod[2]") != std::string::npos);
  CHECK(text.find("xgmi=56") != std::string::npos);
  for (const TopologyResource& r : t.resources()) CHECK(text.find(r.spec.name) != std::string::npos);

  const std::string sw = describe_topology(build_topology(test::hopper(8, "switch")));
  CHECK(sw.find("4 switches aggregated into switch[0]") != std::string::npos);
}

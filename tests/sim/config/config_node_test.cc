#include <doctest/doctest.h>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "error_capture.h"
#include "sim/config/config_node.h"
#include "sim/config/suggest.h"
#include "sim/config/yaml_reader.h"

namespace tessera::sim::config::test {
namespace {

constexpr const char* kText =
    "system:\n"
    "  gpu:\n"
    "    l2:\n"
    "      capacity: 4 MiB\n"
    "    links:\n"
    "      - peer: a\n"
    "      - peer: b\n"
    "  empty:\n"
    "zeta: 1\n"
    "alpha: 2\n";

TEST_CASE("yaml tree: 1-based locations, key paths, insertion order") {
  const ConfigNode root = parse_yaml(kText, "t.yaml");
  REQUIRE(root.is_map());
  CHECK(root.keys() == std::vector<std::string>{"system", "zeta", "alpha"});
  const ConfigNode& capacity = root.at("system").at("gpu").at("l2").at("capacity");
  CHECK(capacity.scalar() == "4 MiB");
  CHECK(capacity.path() == "system.gpu.l2.capacity");
  CHECK(capacity.location() == SourceLocation{"t.yaml", 4, 17});
  CHECK(capacity.key_location() == SourceLocation{"t.yaml", 4, 7});
  const ConfigNode& links = root.at("system").at("gpu").at("links");
  REQUIRE(links.is_sequence());
  CHECK(links[1].at("peer").path() == "system.gpu.links[1].peer");
  CHECK(links[1].at("peer").location().line == 7);
  const ConfigNode& empty = root.at("system").at("empty");
  CHECK(empty.is_null());
  CHECK(empty.location().line == 8);  // a null value is located at its key
  CHECK(root.find("nope") == nullptr);
}

TEST_CASE("yaml tree: errors") {
  const ConfigNode root = parse_yaml(kText, "t.yaml");
  ConfigError e = config_error_of([&] { root.at("system").at("gpu").at("l3"); });
  CHECK(std::string(e.what()) == "t.yaml:3:5: system.gpu: missing required key 'l3'");
  e = config_error_of([&] { root.at("system").scalar(); });
  CHECK(e.message() == "expected a scalar value, got a map");

  e = config_error_of([] { parse_yaml("a:\n  b: [1, 2\n  c: 3\n", "bad.yaml"); });
  CHECK(e.location().file == "bad.yaml");
  CHECK(e.location().line >= 2);
  CHECK(e.message().starts_with("YAML syntax error: "));
  CHECK(std::string(e.what()).starts_with("bad.yaml:"));

  e = config_error_of([] { parse_yaml("a:\n  b: 1\n  b: 2\n", "dup.yaml"); });
  CHECK(std::string(e.what()) == "dup.yaml:3:3: a.b: duplicate key 'b' (first given at dup.yaml:2:3)");
}

// Found probing fuzz_config with YAML's "billion laughs": each alias copies its anchor's value,
// so thirty nested aliases asked for 2^30 values and the reader never returned.
TEST_CASE("yaml: aliases are copied, but nested aliases cannot expand without end") {
  const ConfigNode small = parse_yaml("a: &x [1, {b: 2}]\nc: *x\n", "alias.yaml");
  REQUIRE(small.at("c").is_sequence());
  CHECK(small.at("c")[1].at("b").scalar() == "2");
  CHECK(small.at("c")[1].at("b").path() == "c[1].b");

  std::string laughs = "l0: &l0 [x, x]\n";
  for (int i = 1; i < 30; ++i) laughs += fmt::format("l{}: &l{} [*l{}, *l{}]\n", i, i, i - 1, i - 1);
  const ConfigError e = config_error_of([&] { parse_yaml(laughs, "laughs.yaml"); });
  CHECK(e.location().file == "laughs.yaml");
  CHECK(e.message() == "the config expands to more than 100000 values (each alias repeats the whole value of its anchor)");
}

TEST_CASE("deep merge: maps merge, scalars and lists replace, locations stay") {
  ConfigNode base = parse_yaml("gpu:\n  name: a\n  l2: {capacity: 4 MiB, ways: 16}\n  tiles: [1, 2, 3]\n", "base.yaml");
  const ConfigNode over = parse_yaml("gpu:\n  l2:\n    ways: 32\n  tiles: [9]\nextra: x\n", "over.yaml");
  base.merge_from(over);
  const ConfigNode& gpu = base.at("gpu");
  CHECK(gpu.at("name").scalar() == "a");
  CHECK(gpu.at("name").location().file == "base.yaml");
  CHECK(gpu.at("l2").at("capacity").location().file == "base.yaml");
  CHECK(gpu.at("l2").at("ways").scalar() == "32");
  CHECK(gpu.at("l2").at("ways").location() == SourceLocation{"over.yaml", 3, 11});
  CHECK(gpu.at("tiles").size() == 1);
  CHECK(gpu.at("tiles")[0].path() == "gpu.tiles[0]");
  CHECK(base.at("extra").path() == "extra");
  CHECK(base.keys() == std::vector<std::string>{"gpu", "extra"});

  // An empty "gpu:" keeps the base map; a null over a scalar replaces it (unsets an optional).
  base.merge_from(parse_yaml("gpu:\nextra: ~\n", "empty.yaml"));
  CHECK(base.at("gpu").at("name").scalar() == "a");
  CHECK(base.at("extra").is_null());
  CHECK(base.at("extra").location().file == "empty.yaml");
}

TEST_CASE("re-rooting a tree rewrites every path") {
  ConfigNode tree = parse_yaml("gpu:\n  l2:\n    ways: 4\n  xs: [1]\n", "s.yaml", "system");
  CHECK(tree.at("gpu").at("l2").at("ways").path() == "system.gpu.l2.ways");
  tree.set_path("run.system");
  CHECK(tree.at("gpu").at("xs")[0].path() == "run.system.gpu.xs[0]");
}

TEST_CASE("to_yaml writes a tree that parses back the same") {
  const ConfigNode root = parse_yaml(kText, "t.yaml");
  const ConfigNode again = parse_yaml(root.to_yaml(), "again.yaml");
  CHECK(again.at("system").at("gpu").at("links")[1].at("peer").scalar() == "b");
  CHECK(again.keys() == root.keys());
  CHECK(again.at("system").at("empty").is_null());
}

TEST_CASE("suggestions") {
  CHECK(edit_distance("l2_capcity", "l2_capacity") == 1);
  CHECK(edit_distance("wasy", "ways") == 1);
  CHECK(edit_distance("", "abc") == 3);
  const std::vector<std::string> keys = {"l2_capacity", "ways", "hit_latency"};
  CHECK(nearest("l2_capcity", keys) == "l2_capacity");
  CHECK(nearest("Ways", keys) == "ways");
  CHECK(nearest("hit_latncy", keys) == "hit_latency");
  CHECK_FALSE(nearest("banana", keys).has_value());
  CHECK_FALSE(nearest("x", keys).has_value());
}

}  // namespace
}  // namespace tessera::sim::config::test

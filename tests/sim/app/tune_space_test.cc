// tessera tune's space file: lists, integer ranges, the proxy, and every error naming the file,
// line and key.
#include <doctest/doctest.h>

#include <functional>
#include <string>

#include "sim/app/tune/tune_space.h"
#include "sim/config/config_error.h"

namespace tessera::app::tune {
namespace {

using sim::config::ConfigError;
using sim::config::SourceFile;

TuneSpace space_of(const std::string& text) { return parse_tune_space(SourceFile{"space.yaml", text, false, "."}); }

ConfigError error_of(const std::string& text) {
  try {
    space_of(text);
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("expected a ConfigError");
  throw;
}

std::vector<std::string> values(const TuneSpace& s, std::size_t axis) {
  std::vector<std::string> out;
  for (const auto& row : s.axes.at(axis).rows) out.push_back(row.front().scalar());
  return out;
}

TEST_CASE("tune space: lists and ranges in file order, the proxy, the product") {
  const TuneSpace s = space_of(
      "description: tiles and order\n"
      "workload.variant: [bsp, pull]\n"
      "workload.group_m: {from: 1, to: 8, factor: 2}\n"
      "workload.collective_workgroups: {from: 4, to: 12, step: 4}\n"
      "proxy:\n"
      "  workload.k: 1024\n");
  CHECK(s.name == "space");
  CHECK(s.description == "tiles and order");
  CHECK(s.keys() == std::vector<std::string>{"workload.variant", "workload.group_m", "workload.collective_workgroups"});
  CHECK(values(s, 0) == std::vector<std::string>{"bsp", "pull"});
  CHECK(values(s, 1) == std::vector<std::string>{"1", "2", "4", "8"});
  CHECK(values(s, 2) == std::vector<std::string>{"4", "8", "12"});
  CHECK(s.num_candidates() == 24);
  REQUIRE(s.proxy.size() == 1);
  CHECK(s.proxy[0].key_path == "workload.k");
  CHECK(s.proxy[0].flag == "space.yaml:6:3");
  // The study runs candidate i as its point i: the config as its base, one axis per key.
  const sweep::Study study = tune_study(s, "run.yaml");
  CHECK(study.num_points() == 24);
  CHECK(study.base.at("base").scalar() == "run.yaml");
}

TEST_CASE("tune space: errors name the file, line and key") {
  const auto check = [](const std::string& text, int line, const std::string& key, const std::string& words) {
    const ConfigError e = error_of(text);
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(e.location().file == "space.yaml");
    CHECK(e.location().line == line);
    CHECK(e.key_path() == key);
    CHECK(std::string(e.what()).find(words) != std::string::npos);
  };
  check("workload.m: [1]\nworkload.group_m: []\n", 2, "workload.group_m", "the list of candidates is empty");
  check("workload.group_m: 4\n", 1, "workload.group_m", "expected a list of candidates or a range");
  check("workload.group_m: {from: 1, to: 8, stride: 2}\n", 1, "workload.group_m.stride", "valid keys: from, to, step or factor");
  check("workload.group_m: {from: 1, to: 8, stp: 2}\n", 1, "workload.group_m.stp", "did you mean 'step'?");
  check("workload.group_m: {from: 1, to: 8}\n", 1, "workload.group_m", "exactly one of step: and factor:");
  check("workload.group_m: {from: 1.5, to: 8, step: 1}\n", 1, "workload.group_m.from", "must be an integer");
  check("workload.group_m: {from: 1, to: 8, step: 0}\n", 1, "workload.group_m.step", "at least 1");
  check("workload.group_m: {from: 1, to: 8, factor: 1}\n", 1, "workload.group_m.factor", "at least 2");
  check("workload.group_m: {from: 8, to: 1, step: 1}\n", 1, "workload.group_m.to", "below from");
  check("workload.k: [512]\nproxy:\n  workload.k: 256\n", 3, "workload.k", "the proxy may not set it");
  check("proxy: {workload.k: 256}\n", 1, "", "the space tunes no key");
  check("workload..m: [1]\n", 1, "workload..m", "");
  check("- a\n- b\n", 1, "", "must be a map");
}

}  // namespace
}  // namespace tessera::app::tune

namespace tessera::app::tune {
namespace {

TEST_CASE("tune space: a zip: is one axis whose keys advance together") {
  const TuneSpace s = space_of(
      "zip:\n"
      "  workload.block_m: [128, 128, 64]\n"
      "  workload.block_n: [128, 64, 64]\n"
      "workload.group_m: [1, 8]\n");
  CHECK(s.keys() == std::vector<std::string>{"workload.block_m", "workload.block_n", "workload.group_m"});
  CHECK(s.axis_sizes() == std::vector<std::size_t>{3, 2});
  CHECK(s.num_candidates() == 6);
  CHECK(s.axes[0].rows[1][1].scalar() == "64");
  const ConfigError unequal = error_of("zip:\n  workload.block_m: [128, 64]\n  workload.block_n: [128]\n");
  CHECK(unequal.location().line == 3);
  CHECK(std::string(unequal.what()).find("equal lengths") != std::string::npos);
  const ConfigError twice = error_of("zip:\n  workload.block_m: [128, 64]\n  workload.block_n: [128, 64]\nworkload.block_m: [32]\n");
  CHECK(twice.location().line == 4);
  CHECK(std::string(twice.what()).find("tuned twice") != std::string::npos);
}

}  // namespace
}  // namespace tessera::app::tune

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "sim/stats/stat_registry.h"

using namespace tessera::sim::stats;

TEST_CASE("accumulator keeps sum, count, min, max and mean") {
  Accumulator a;
  CHECK(a.mean() == 0.0);
  for (double x : {4.0, 1.0, 7.0}) a.sample(x);
  CHECK(a.count() == 3);
  CHECK(a.sum() == 12.0);
  CHECK(a.min() == 1.0);
  CHECK(a.max() == 7.0);
  CHECK(a.mean() == 4.0);
}

TEST_CASE("histogram bins, underflow and overflow") {
  Histogram h(10.0, 5.0, 3);  // [10,15) [15,20) [20,25)
  for (double x : {9.9, 10.0, 14.9, 15.0, 24.9, 25.0, 100.0}) h.sample(x);
  CHECK(h.underflow() == 1);
  CHECK(h.counts() == std::vector<std::uint64_t>{2, 1, 1});
  CHECK(h.overflow() == 2);
  CHECK(h.total() == 7);
  CHECK_THROWS_AS(Histogram(0.0, 0.0, 3), std::invalid_argument);
}

TEST_CASE("registry names every statistic once, with its unit, in name order") {
  StatRegistry r;
  r.counter("gpu[1].bytes", Unit::kBytes, "bytes moved").add(64);
  r.counter("gpu[0].bytes", Unit::kBytes, "bytes moved").add(32);
  r.histogram("gpu[0].lat", Unit::kPs, "latency", 0, 100, 2).sample(50);
  CHECK_THROWS_AS(r.counter("gpu[0].bytes", Unit::kCount, "again"), std::invalid_argument);
  const auto j = r.to_json();
  CHECK(j.size() == 3);
  CHECK(j.begin().key() == "gpu[0].bytes");
  CHECK(j["gpu[0].bytes"]["value"] == 32);
  CHECK(j["gpu[1].bytes"]["unit"] == "bytes");
  CHECK(j["gpu[0].lat"]["counts"][0] == 1);
}

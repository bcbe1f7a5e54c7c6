#include <doctest/doctest.h>

#include <stdexcept>

#include "models/cache/cache_presets.h"
#include "models/cache/set_associative_cache.h"

using namespace tessera::models::cache;

TEST_CASE("CacheSpec: defaults and presets validate") {
  CHECK_FALSE(CacheSpec{}.validate().has_value());
  CHECK_FALSE(mi300x_l2_spec().validate().has_value());
  CHECK_FALSE(mi300x_mall_spec().validate().has_value());
  CHECK_FALSE(mi300x_hierarchy_spec().validate().has_value());
  CHECK_FALSE(h100_hierarchy_spec().validate().has_value());
  CHECK_FALSE(h200_hierarchy_spec().validate().has_value());
  CHECK(mi300x_l2_spec().num_sets() == 64);  // 4 MiB / (16 x 4 KiB)
  CHECK(mi300x_l2_spec().lines_per_chunk() == 32);
}

TEST_CASE("CacheSpec: nonsense is rejected with a message") {
  auto bad = [](auto mutate) {
    CacheSpec s;
    mutate(s);
    return s.validate();
  };
  CHECK(bad([](CacheSpec& s) { s.ways = 0; }).value().find("ways") != std::string::npos);
  CHECK(bad([](CacheSpec& s) { s.capacity_bytes = 0; }).has_value());
  CHECK(bad([](CacheSpec& s) { s.line_bytes = 96; }).value().find("line_bytes") != std::string::npos);
  CHECK(bad([](CacheSpec& s) { s.access_chunk_bytes = 64; }).value().find("multiple of line") != std::string::npos);
  CHECK(bad([](CacheSpec& s) { s.access_chunk_bytes = 3000; }).has_value());
  CHECK(bad([](CacheSpec& s) { s.capacity_bytes = (4ull << 20) + 4096; }).value().find("ways x access_chunk") !=
        std::string::npos);
  CHECK(bad([](CacheSpec& s) { s.bandwidth_bytes_per_s = 0; }).has_value());
  CHECK(bad([](CacheSpec& s) { s.num_channels = 0; }).has_value());

  CacheSpec s;
  s.ways = 0;
  CHECK_THROWS_AS(SetAssociativeCache{s}, std::invalid_argument);

  CacheHierarchySpec h = mi300x_hierarchy_spec();
  h.mall.write_policy = WritePolicy::kWriteBackAllocate;
  CHECK(h.validate().value().find("mall") != std::string::npos);
  h = mi300x_hierarchy_spec();
  h.num_l2 = 0;
  CHECK(h.validate().has_value());
}

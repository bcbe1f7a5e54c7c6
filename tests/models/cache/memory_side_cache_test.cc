#include <doctest/doctest.h>

#include <stdexcept>

#include "models/cache/memory_side_cache.h"
#include "test_specs.h"

using namespace tessera::models::cache;
using tessera::models::cache::testing::small_spec;

namespace {
constexpr std::uint64_t kKiB = 1024;
}

TEST_CASE("MALL: reads fill it, writes pass through and leave a clean copy") {
  MemorySideCache mall(small_spec(256 * kKiB, 16, kKiB, Replacement::kLru, WritePolicy::kWriteThroughAllocate, 64));
  REQUIRE(mall.present());
  MemorySideResult r = mall.read(0, 8 * kKiB);
  CHECK(r.miss_bytes == 8 * kKiB);
  CHECK(r.hbm_read_bytes == 8 * kKiB);
  r = mall.read(0, 8 * kKiB);
  CHECK(r.hit_bytes == 8 * kKiB);
  CHECK(r.hbm_read_bytes == 0);

  r = mall.write(64 * kKiB, 4 * kKiB);
  CHECK(r.hbm_write_bytes == 4 * kKiB);  // write-through: every byte reaches HBM
  CHECK(mall.contains(64 * kKiB, 4 * kKiB));
  CHECK(mall.read(64 * kKiB, 4 * kKiB).hit_bytes == 4 * kKiB);
}

TEST_CASE("MALL: no-allocate writes do not fill, absent MALL passes everything to HBM") {
  MemorySideCache na(small_spec(256 * kKiB, 16, kKiB, Replacement::kLru, WritePolicy::kWriteThroughNoAllocate));
  CHECK(na.write(0, kKiB).hbm_write_bytes == kKiB);
  CHECK_FALSE(na.contains(0, kKiB));

  CacheSpec none;
  none.capacity_bytes = 0;
  MemorySideCache absent(none);
  CHECK_FALSE(absent.present());
  CHECK(absent.read(0, kKiB).hbm_read_bytes == kKiB);
  CHECK(absent.read(0, kKiB).hbm_read_bytes == kKiB);
  CHECK(absent.write(0, kKiB).hbm_write_bytes == kKiB);
}

TEST_CASE("MALL: a write-back policy is refused (it must hold no dirty data)") {
  CHECK_THROWS_AS(MemorySideCache(small_spec(256 * kKiB, 16, kKiB)), std::invalid_argument);
}

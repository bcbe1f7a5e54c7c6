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

TEST_CASE("MALL: segments read or written in one call count as one call each") {
  const Segment segments[] = {{0, 4 * kKiB}, {100 * kKiB, 3 * kKiB + 64}, {0, kKiB}, {200 * kKiB, 64}};
  for (const bool present : {true, false}) {
    CacheSpec spec = small_spec(256 * kKiB, 16, kKiB, Replacement::kLru, WritePolicy::kWriteThroughAllocate, 64);
    if (!present) spec.capacity_bytes = 0;
    MemorySideCache batched(spec);
    MemorySideCache one_by_one(spec);
    for (int round = 0; round < 2; ++round) {  // misses, then hits
      const MemorySideResult a = batched.read_each(segments);
      MemorySideResult sum;
      for (const Segment& s : segments) {
        const MemorySideResult b = one_by_one.read(s.address, s.bytes);
        sum.requested_bytes += b.requested_bytes;
        sum.hit_bytes += b.hit_bytes;
        sum.miss_bytes += b.miss_bytes;
        sum.hbm_read_bytes += b.hbm_read_bytes;
      }
      CHECK(a.requested_bytes == sum.requested_bytes);
      CHECK(a.hit_bytes == sum.hit_bytes);
      CHECK(a.miss_bytes == sum.miss_bytes);
      CHECK(a.hbm_read_bytes == sum.hbm_read_bytes);
    }
    const Segment more[] = {{300 * kKiB, 2 * kKiB}, {0, 512}};
    CHECK(batched.write_each(more).hbm_write_bytes == 2 * kKiB + 512);
    for (const Segment& s : more) one_by_one.write(s.address, s.bytes);
    CHECK(batched.resident_bytes() == one_by_one.resident_bytes());
    CHECK(batched.contains(300 * kKiB, 2 * kKiB) == present);
  }
}

#include <doctest/doctest.h>

#include <random>

#include <nlohmann/json.hpp>

#include "models/cache/cache_hierarchy.h"
#include "models/cache/cache_presets.h"
#include "test_specs.h"

using namespace tessera::models::cache;
using tessera::models::cache::testing::small_spec;

namespace {

constexpr std::uint64_t kKiB = 1024;

// Two XCDs with 64 KiB private L2s in front of a 1 MiB MALL.
CacheHierarchySpec two_xcd_spec() {
  CacheHierarchySpec h;
  h.l2 = small_spec(64 * kKiB, 4, kKiB);
  h.num_l2 = 2;
  h.organization = L2Organization::kPrivatePerRequester;
  h.mall = small_spec(1024 * kKiB, 16, kKiB, Replacement::kLru, WritePolicy::kWriteThroughAllocate, 64);
  return h;
}

}  // namespace

TEST_CASE("hierarchy: L2 misses fill the MALL, another XCD hits there, not in its own L2") {
  CacheHierarchy g(two_xcd_spec());
  HierarchyResult r = g.read(0, 0, 32 * kKiB);
  CHECK(r.l2_miss_bytes == 32 * kKiB);
  CHECK(r.mall_miss_bytes == 32 * kKiB);
  CHECK(r.hbm_read_bytes == 32 * kKiB);
  CHECK(g.mall().contains(0, 32 * kKiB));

  r = g.read(1, 0, 32 * kKiB);
  CHECK(r.l2_hit_bytes == 0);  // private L2s share nothing
  CHECK(r.mall_hit_bytes == 32 * kKiB);
  CHECK(r.hbm_read_bytes == 0);

  r = g.read(0, 0, 32 * kKiB);
  CHECK(r.l2_hit_bytes == 32 * kKiB);
  CHECK(r.mall_hit_bytes + r.hbm_read_bytes == 0);
}

TEST_CASE("hierarchy: dirty L2 data reaches the MALL only when written back") {
  CacheHierarchy g(two_xcd_spec());
  const std::uint64_t x = 512 * kKiB;
  HierarchyResult r = g.write(0, x, 4 * kKiB);
  CHECK(r.l2_miss_bytes == 4 * kKiB);
  CHECK(r.hbm_write_bytes == 0);
  CHECK_FALSE(g.mall().contains(x, 1));
  CHECK(g.l2(0).dirty_bytes() == 4 * kKiB);

  r = g.read(1, x, 4 * kKiB);  // the other XCD cannot see it yet: it reads memory
  CHECK(r.hbm_read_bytes == 4 * kKiB);
  g.reset();

  g.write(0, x, 4 * kKiB);
  r = g.release(0);
  CHECK(r.l2_writeback_bytes == 4 * kKiB);
  CHECK(r.hbm_write_bytes == 4 * kKiB);
  CHECK(g.mall().contains(x, 4 * kKiB));
  CHECK(g.l2(0).dirty_bytes() == 0);
  r = g.read(1, x, 4 * kKiB);
  CHECK(r.mall_hit_bytes == 4 * kKiB);
  CHECK(r.hbm_read_bytes == 0);
}

TEST_CASE("hierarchy: a remote store lands at the memory side, acquire drops the stale L2 copy") {
  CacheHierarchy g(two_xcd_spec());
  const std::uint64_t inbox = 256 * kKiB;
  g.read(0, inbox, 8 * kKiB);  // the consumer has old inbox contents in its L2
  REQUIRE(g.l2(0).contains(inbox, 8 * kKiB));

  HierarchyResult r = g.remote_write_arrives(inbox, 8 * kKiB);
  CHECK(r.hbm_write_bytes == 8 * kKiB);
  CHECK(r.l2_hit_bytes + r.l2_miss_bytes == 0);  // never touches an L2
  CHECK(g.l2(0).contains(inbox, 8 * kKiB));      // stale until the consumer acquires

  r = g.acquire(0, inbox, 8 * kKiB);
  CHECK(r.invalidated_bytes == 8 * kKiB);
  CHECK_FALSE(g.l2(0).contains(inbox, 1));

  r = g.read(0, inbox, 8 * kKiB);
  CHECK(r.l2_miss_bytes == 8 * kKiB);
  CHECK(r.mall_hit_bytes == 8 * kKiB);  // the pushed data passed through the MALL
  CHECK(r.hbm_read_bytes == 0);

  r = g.remote_read_arrives(inbox, 8 * kKiB);
  CHECK(r.mall_hit_bytes == 8 * kKiB);
  CHECK(r.l2_hit_bytes == 0);
}

TEST_CASE("hierarchy: a peer's lines fill the reader's L2 only, the second read hits, an acquire drops them") {
  CacheHierarchy g(two_xcd_spec());
  const std::uint64_t peer = std::uint64_t{1} << 48;  // a tagged peer address (MemorySystem tags them so)
  HierarchyResult r = g.peer_read(0, peer, 32 * kKiB);
  CHECK(r.l2_miss_bytes == 32 * kKiB);
  CHECK(r.l2_hit_bytes == 0);
  CHECK(r.hbm_read_bytes == 0);  // the misses are the caller's to fetch from the peer
  CHECK_FALSE(g.mall().contains(peer, 32 * kKiB));
  r = g.peer_read(0, peer, 32 * kKiB);
  CHECK(r.l2_hit_bytes == 32 * kKiB);
  CHECK(g.peer_read(1, peer, 32 * kKiB).l2_hit_bytes == 0);  // another XCD's L2 holds none of it
  // The fills evict this GPU's dirty data, which is written back.
  g.write(0, 0, 64 * kKiB);
  r = g.peer_read(0, peer + 64 * kKiB, 64 * kKiB);
  CHECK(r.l2_writeback_bytes > 0);
  CHECK(r.hbm_write_bytes == r.l2_writeback_bytes);
  g.acquire(0, peer, 128 * kKiB);
  CHECK(g.peer_read(0, peer + 64 * kKiB, 64 * kKiB).l2_hit_bytes == 0);
}

TEST_CASE("hierarchy: byte accounting holds at every level") {
  CacheHierarchy g(two_xcd_spec());
  std::mt19937_64 rng(3);
  std::uint64_t written = 0, hbm_written = 0;
  for (int i = 0; i < 3000; ++i) {
    const auto xcd = static_cast<std::uint32_t>(rng() % 2);
    const std::uint64_t addr = rng() % (2048 * kKiB);
    const std::uint64_t bytes = 1 + rng() % (16 * kKiB);
    HierarchyResult r;
    switch (rng() % 5) {
      case 0:
        r = g.write(xcd, addr, bytes);
        written += bytes;
        REQUIRE(r.l2_hit_bytes + r.l2_miss_bytes == bytes);
        break;
      case 1:
        r = g.remote_write_arrives(addr, bytes);
        REQUIRE(r.hbm_write_bytes == bytes);
        break;
      case 2:
        r = g.acquire(xcd, addr, bytes);
        break;
      default:
        r = g.read(xcd, addr, bytes);
        REQUIRE(r.l2_hit_bytes + r.l2_miss_bytes == bytes);
        REQUIRE(r.l2_miss_bytes == r.mall_hit_bytes + r.mall_miss_bytes);
        REQUIRE(r.l2_hit_bytes + r.mall_hit_bytes + r.hbm_read_bytes == bytes);
    }
    REQUIRE(r.hbm_write_bytes >= r.l2_writeback_bytes);
    hbm_written += r.l2_writeback_bytes;
  }
  hbm_written += g.flush_all().l2_writeback_bytes;
  CHECK(g.l2(0).dirty_bytes() + g.l2(1).dirty_bytes() == 0);
  CHECK(hbm_written >= written / 2);  // sanity: most written bytes were written back
}

TEST_CASE("hierarchy: address-partitioned L2 (NVIDIA) is shared and is the point of coherence") {
  CacheHierarchySpec h;
  h.l2 = small_spec(64 * kKiB, 4, kKiB);
  h.num_l2 = 2;
  h.organization = L2Organization::kAddressPartitioned;
  h.mall.capacity_bytes = 0;
  CacheHierarchy g(h);
  REQUIRE_FALSE(g.mall().present());

  HierarchyResult r = g.read(0, 0, 64 * kKiB);
  CHECK(r.hbm_read_bytes == 64 * kKiB);
  CHECK(r.mall_miss_bytes == 64 * kKiB);
  // Both partitions got a share of the chunks.
  CHECK(g.l2(0).resident_bytes() > 16 * kKiB);
  CHECK(g.l2(1).resident_bytes() > 16 * kKiB);
  CHECK(g.l2(0).resident_bytes() + g.l2(1).resident_bytes() == 64 * kKiB);

  r = g.read(7, 0, 64 * kKiB);  // any SM: same partitions, so it hits
  CHECK(r.l2_hit_bytes == 64 * kKiB);

  r = g.remote_write_arrives(200 * kKiB, 4 * kKiB);  // lands in the owning partition
  CHECK(r.l2_miss_bytes == 4 * kKiB);
  CHECK(r.hbm_write_bytes == 0);
  CHECK(g.acquire(0, 200 * kKiB, 4 * kKiB).invalidated_bytes == 0);
  CHECK(g.read(3, 200 * kKiB, 4 * kKiB).l2_hit_bytes == 4 * kKiB);
  CHECK(g.release(0).hbm_write_bytes == 0);
  CHECK(g.flush_all().hbm_write_bytes == 4 * kKiB);
}

TEST_CASE("hierarchy: statistics per XCD and per level under the caller's prefix") {
  tessera::sim::stats::StatRegistry reg;
  CacheHierarchy g(two_xcd_spec());
  g.attach_stats(reg, "gpu[0]");
  g.read(1, 0, 8 * kKiB);
  g.read(1, 0, 8 * kKiB);
  g.read(0, 0, 8 * kKiB);
  const auto j = reg.to_json();
  CHECK(j["gpu[0].xcd[1].l2.hit_bytes"]["value"] == 8 * kKiB);
  CHECK(j["gpu[0].xcd[1].l2.miss_bytes"]["value"] == 8 * kKiB);
  CHECK(j["gpu[0].xcd[0].l2.miss_bytes"]["value"] == 8 * kKiB);
  CHECK(j["gpu[0].mall.hit_bytes"]["value"] == 8 * kKiB);
  CHECK(j["gpu[0].cache.hbm_read_bytes"]["value"] == 8 * kKiB);
  CHECK(j["gpu[0].cache.hbm_read_bytes"]["unit"] == "bytes");
}

TEST_CASE("hierarchy: MI300X preset, a 64 MiB stream misses the L2 and then hits the MALL") {
  CacheHierarchy g(mi300x_hierarchy_spec());
  const std::uint64_t bytes = 64ull << 20;
  HierarchyResult r = g.read(0, 0, bytes);
  CHECK(r.hbm_read_bytes == bytes);
  r = g.read(0, 0, bytes);
  CHECK(r.l2_hit_bytes == 0);  // 64 MiB cycles through a 4 MiB LRU L2
  CHECK(r.mall_hit_bytes == bytes);
  CHECK(g.l2(0).resident_bytes() == (4ull << 20));
}

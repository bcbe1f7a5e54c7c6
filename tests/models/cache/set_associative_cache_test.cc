#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/cache/set_associative_cache.h"
#include "sim/stats/stat_registry.h"
#include "test_specs.h"

using namespace tessera::models::cache;
using tessera::models::cache::testing::small_spec;

namespace {

constexpr std::uint64_t kKiB = 1024;

// Reads [0, bytes) `passes` times in chunk-sized requests; returns the hit fraction of the last pass.
double last_pass_hit_frac(SetAssociativeCache& c, std::uint64_t bytes, int passes, std::uint64_t step) {
  std::uint64_t hit = 0;
  std::uint64_t total = 0;
  for (int p = 0; p < passes; ++p) {
    hit = total = 0;
    for (std::uint64_t a = 0; a < bytes; a += step) {
      const AccessResult r = c.access(a, step, AccessKind::kRead);
      hit += r.hit_bytes;
      total += r.requested_bytes;
    }
  }
  return static_cast<double>(hit) / static_cast<double>(total);
}

}  // namespace

TEST_CASE("working set below capacity: the second pass hits everything") {
  SetAssociativeCache c(small_spec(64 * kKiB, 4, kKiB));
  CHECK(last_pass_hit_frac(c, 48 * kKiB, 1, kKiB) == 0.0);
  CHECK(last_pass_hit_frac(c, 48 * kKiB, 1, kKiB) == 1.0);
  CHECK(c.resident_bytes() == 48 * kKiB);
}

TEST_CASE("cyclic stream above capacity: LRU hits nothing, random hits part") {
  // 5 chunks per 4-way set, visited cyclically: LRU always evicts the chunk needed next.
  const std::uint64_t ws = 80 * kKiB;  // 1.25 x 64 KiB
  SetAssociativeCache lru(small_spec(64 * kKiB, 4, kKiB, Replacement::kLru));
  CHECK(last_pass_hit_frac(lru, ws, 4, kKiB) == 0.0);
  SetAssociativeCache fifo(small_spec(64 * kKiB, 4, kKiB, Replacement::kFifo));
  CHECK(last_pass_hit_frac(fifo, ws, 4, kKiB) == 0.0);

  SetAssociativeCache rnd(small_spec(64 * kKiB, 4, kKiB, Replacement::kRandom));
  const double h = last_pass_hit_frac(rnd, ws, 20, kKiB);
  CHECK(h > 0.2);
  CHECK(h < 0.9);

  // Deterministic: the same seed replays the same victims.
  SetAssociativeCache rnd2(small_spec(64 * kKiB, 4, kKiB, Replacement::kRandom));
  CHECK(last_pass_hit_frac(rnd2, ws, 20, kKiB) == h);
}

namespace {

// Writes whole chunks of a one-set, 4-way cache in the given order; the write-back of each
// eviction names its victim (every chunk is dirty).
std::vector<std::uint64_t> victims(Replacement policy, const std::vector<std::uint64_t>& order, int& hits) {
  SetAssociativeCache c(small_spec(4 * kKiB, 4, kKiB, policy));
  std::vector<std::uint64_t> out;
  hits = 0;
  for (std::uint64_t chunk : order) {
    const AccessResult r = c.access(chunk * kKiB, kKiB, AccessKind::kWrite);
    hits += static_cast<int>(r.hit_chunks);
    for (const Segment& s : r.writebacks) {
      REQUIRE(s.bytes == kKiB);
      out.push_back(s.address / kKiB);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("replacement order in one 4-way set matches the hand-computed victims") {
  const std::vector<std::uint64_t> order{0, 1, 2, 3, 0, 4, 1, 5};
  int hits = 0;
  // LRU: 0 is refreshed, so 4 evicts 1; 1 returns and evicts 2; 5 evicts 3.
  CHECK(victims(Replacement::kLru, order, hits) == std::vector<std::uint64_t>{1, 2, 3});
  CHECK(hits == 1);
  // FIFO: the hit on 0 changes nothing; 4 evicts 0, 1 still hits, 5 evicts 1.
  CHECK(victims(Replacement::kFifo, order, hits) == std::vector<std::uint64_t>{0, 1});
  CHECK(hits == 2);
}

TEST_CASE("write-back: dirty evictions and flush return exactly the written bytes") {
  SetAssociativeCache c(small_spec(4 * kKiB, 4, kKiB));  // one set, 4 ways, 128 B sectors
  for (std::uint64_t i = 0; i < 3; ++i) c.access(i * kKiB, kKiB, AccessKind::kWrite);
  c.access(3 * kKiB + 256, 256, AccessKind::kWrite);  // two lines of chunk 3
  CHECK(c.dirty_bytes() == 3 * kKiB + 256);

  std::uint64_t written_back = 0;
  for (std::uint64_t i = 4; i < 8; ++i) written_back += c.access(i * kKiB, kKiB, AccessKind::kRead).writeback_bytes;
  CHECK(written_back == 3 * kKiB + 256);
  CHECK(c.dirty_bytes() == 0);

  c.access(100 * kKiB, 300, AccessKind::kWrite);  // lines 0..2 of a chunk: 384 B dirty
  const MaintenanceResult f = c.flush();
  CHECK(f.writeback_bytes == 384);
  REQUIRE(f.writebacks.size() == 1);
  CHECK(f.writebacks[0] == Segment{100 * kKiB, 384});
  CHECK(c.flush().writeback_bytes == 0);
  CHECK(c.contains(100 * kKiB, 300));  // flush keeps a clean copy
}

TEST_CASE("write-through: no dirty data, writes are forwarded, misses do not allocate") {
  SetAssociativeCache c(small_spec(8 * kKiB, 4, kKiB, Replacement::kLru, WritePolicy::kWriteThroughNoAllocate));
  const AccessResult w = c.access(0, 3 * kKiB, AccessKind::kWrite);
  CHECK(w.miss_bytes == 3 * kKiB);
  CHECK(w.forwarded_bytes == 3 * kKiB);
  REQUIRE(w.forwarded.size() == 1);
  CHECK_FALSE(c.contains(0, 1));
  c.access(0, kKiB, AccessKind::kRead);
  const AccessResult w2 = c.access(0, kKiB, AccessKind::kWrite);
  CHECK(w2.hit_bytes == kKiB);
  CHECK(w2.forwarded_bytes == kKiB);
  CHECK(c.dirty_bytes() == 0);
  CHECK(c.flush().writeback_bytes == 0);
}

TEST_CASE("partial chunks: bytes count proportionally, sectors track lines inside a chunk") {
  SetAssociativeCache c(small_spec(16 * kKiB, 4, kKiB));
  AccessResult r = c.access(50, 100, AccessKind::kRead);  // touches lines 0 and 1
  CHECK(r.miss_bytes == 100);
  CHECK(r.forwarded.size() == 1);
  CHECK(r.forwarded[0] == Segment{50, 100});
  r = c.access(0, 256, AccessKind::kRead);
  CHECK(r.hit_bytes == 256);
  r = c.access(256, 44, AccessKind::kRead);
  CHECK(r.miss_bytes == 44);
  r = c.access(0, kKiB, AccessKind::kRead);  // lines 0..2 present, 3..7 missing
  CHECK(r.hit_bytes == 384);
  CHECK(r.miss_bytes == 640);
  REQUIRE(r.forwarded.size() == 1);
  CHECK(r.forwarded[0] == Segment{384, 640});
  CHECK(r.miss_chunks == 1);
}

TEST_CASE("a missing stream forwards one merged segment") {
  SetAssociativeCache c(small_spec(16 * kKiB, 4, kKiB));
  const AccessResult r = c.access(10, 64 * kKiB, AccessKind::kRead);
  REQUIRE(r.forwarded.size() == 1);
  CHECK(r.forwarded[0] == Segment{10, 64 * kKiB});
  CHECK(r.miss_chunks == 65);
  CHECK(r.evicted_chunks == 65 - 16);
}

TEST_CASE("invalidate writes back dirty bytes, then drops the range") {
  SetAssociativeCache c(small_spec(16 * kKiB, 4, kKiB));
  c.access(0, 4 * kKiB, AccessKind::kRead);
  c.access(kKiB, 512, AccessKind::kWrite);
  const MaintenanceResult m = c.invalidate(kKiB, 2 * kKiB);
  CHECK(m.writeback_bytes == 512);
  CHECK(m.invalidated_bytes == 2 * kKiB);
  CHECK_FALSE(c.contains(kKiB, 1));
  CHECK_FALSE(c.contains(2 * kKiB, 1));
  CHECK(c.contains(0, kKiB));
  CHECK(c.contains(3 * kKiB, kKiB));
  // A range far larger than the cache takes the scan-every-way path: same semantics.
  const MaintenanceResult all = c.invalidate(0, 1ull << 40);
  CHECK(all.invalidated_bytes == 2 * kKiB);
  CHECK(c.resident_bytes() == 0);
}

TEST_CASE("byte accounting holds for every operation") {
  for (auto policy : {WritePolicy::kWriteBackAllocate, WritePolicy::kWriteThroughNoAllocate,
                      WritePolicy::kWriteThroughAllocate}) {
    for (auto repl : {Replacement::kLru, Replacement::kFifo, Replacement::kRandom}) {
      SetAssociativeCache c(small_spec(32 * kKiB, 4, 4 * kKiB, repl, policy));
      std::mt19937_64 rng(7);
      std::uint64_t written = 0;
      std::uint64_t written_back = 0;
      for (int i = 0; i < 2000; ++i) {
        const std::uint64_t addr = rng() % (256 * kKiB);
        const std::uint64_t bytes = 1 + rng() % (20 * kKiB);
        const bool write = rng() % 3 == 0;
        const AccessResult r = c.access(addr, bytes, write ? AccessKind::kWrite : AccessKind::kRead);
        REQUIRE(r.hit_bytes + r.miss_bytes == bytes);
        std::uint64_t wb = 0;
        for (const Segment& s : r.writebacks) wb += s.bytes;
        REQUIRE(wb == r.writeback_bytes);
        written_back += wb;
        if (!write) REQUIRE(r.forwarded_bytes == r.miss_bytes);
        if (write && policy != WritePolicy::kWriteBackAllocate) REQUIRE(r.forwarded_bytes == bytes);
        if (write) written += bytes;
      }
      written_back += c.flush().writeback_bytes;
      if (policy == WritePolicy::kWriteBackAllocate) {
        CHECK(written_back > 0);
      } else {
        CHECK(written_back == 0);
      }
      CHECK(c.dirty_bytes() == 0);
    }
  }
}

TEST_CASE("statistics are registered under the caller's prefix and count bytes") {
  tessera::sim::stats::StatRegistry reg;
  SetAssociativeCache c(small_spec(16 * kKiB, 4, kKiB));
  c.attach_stats(reg, "gpu[0].xcd[3].l2");
  c.access(0, 2 * kKiB, AccessKind::kRead);
  c.access(0, 3 * kKiB, AccessKind::kRead);
  CHECK(reg.contains("gpu[0].xcd[3].l2.hit_bytes"));
  const auto j = reg.to_json();
  CHECK(j["gpu[0].xcd[3].l2.hit_bytes"]["value"] == 2 * kKiB);
  CHECK(j["gpu[0].xcd[3].l2.miss_bytes"]["value"] == 3 * kKiB);
  CHECK(j["gpu[0].xcd[3].l2.hit_accesses"]["value"] == 2);
  CHECK(j["gpu[0].xcd[3].l2.miss_accesses"]["value"] == 3);
  CHECK(j["gpu[0].xcd[3].l2.hit_bytes"]["unit"] == "bytes");
}

TEST_CASE("sparse chunks cost the lines they hold, not a whole chunk each") {
  // 4 sets x 4 ways x 1 KiB: 128 sectors of 128 B. One line from each of 128 chunks is exactly
  // the capacity in lines: with spare tag slots it all stays; with one chunk per way, 32 chunks
  // per set cycle through 4 ways and LRU keeps nothing.
  auto second_pass = [](std::uint32_t factor) {
    CacheSpec s = small_spec(16 * kKiB, 4, kKiB);
    s.sparse_tag_factor = factor;
    SetAssociativeCache c(s);
    std::uint64_t hit = 0;
    for (int pass = 0; pass < 2; ++pass) {
      hit = 0;
      for (std::uint64_t i = 0; i < 128; ++i) hit += c.access(i * kKiB, 128, AccessKind::kRead).hit_bytes;
    }
    return hit;
  };
  CHECK(second_pass(8) == 128 * 128);
  CHECK(second_pass(1) == 0);
}

namespace {

// One random access sequence on two caches of one spec, one with the fast paths (the default:
// the whole-chunk path, the fingerprint lookup) and one with the path `slow_down` turns off:
// every result, range list and final state must agree.
template <class SlowDown>
void check_fast_path_is_exact(const CacheSpec& spec, std::uint64_t seed, SlowDown slow_down) {
  SetAssociativeCache fast(spec);
  SetAssociativeCache slow(spec);
  slow_down(slow);
  std::mt19937_64 rng(seed);
  const std::uint64_t chunk = spec.access_chunk_bytes;
  const std::uint64_t span = spec.capacity_bytes * 3;  // reuse and eviction both happen
  for (int i = 0; i < 4000; ++i) {
    const std::uint64_t pick = rng() % 16;
    std::uint64_t address;
    std::uint64_t bytes;
    if (pick < 10) {  // whole chunks, often several: the fast path
      address = (rng() % (span / chunk)) * chunk;
      bytes = (1 + rng() % 24) * chunk;
    } else if (pick < 14) {  // lines or odd bytes, straddling chunks: the general path, mixed in
      address = rng() % span;
      bytes = 1 + rng() % (3 * chunk);
    } else {
      address = (rng() % (span / chunk)) * chunk + (rng() % 4) * spec.line_bytes;
      bytes = (1 + rng() % 4) * chunk;
    }
    if (pick == 15 && rng() % 4 == 0) {
      const MaintenanceResult a = fast.invalidate(address, bytes);
      const MaintenanceResult b = slow.invalidate(address, bytes);
      REQUIRE(a.writeback_bytes == b.writeback_bytes);
      REQUIRE(a.invalidated_bytes == b.invalidated_bytes);
      REQUIRE(std::vector<Segment>(a.writebacks.begin(), a.writebacks.end()) ==
              std::vector<Segment>(b.writebacks.begin(), b.writebacks.end()));
      continue;
    }
    const AccessKind kind = rng() % 3 == 0 ? AccessKind::kWrite : AccessKind::kRead;
    const AccessResult a = fast.access(address, bytes, kind);
    const std::vector<Segment> a_fwd(a.forwarded.begin(), a.forwarded.end());
    const std::vector<Segment> a_wb(a.writebacks.begin(), a.writebacks.end());
    const AccessResult b = slow.access(address, bytes, kind);
    INFO("access " << i << " at " << address << " + " << bytes);
    REQUIRE(a.hit_bytes == b.hit_bytes);
    REQUIRE(a.miss_bytes == b.miss_bytes);
    REQUIRE(a.hit_chunks == b.hit_chunks);
    REQUIRE(a.miss_chunks == b.miss_chunks);
    REQUIRE(a.evicted_chunks == b.evicted_chunks);
    REQUIRE(a.writeback_bytes == b.writeback_bytes);
    REQUIRE(a.forwarded_bytes == b.forwarded_bytes);
    REQUIRE(a_fwd == std::vector<Segment>(b.forwarded.begin(), b.forwarded.end()));
    REQUIRE(a_wb == std::vector<Segment>(b.writebacks.begin(), b.writebacks.end()));
  }
  CHECK(fast.resident_bytes() == slow.resident_bytes());
  CHECK(fast.dirty_bytes() == slow.dirty_bytes());
  const MaintenanceResult a = fast.flush();
  const MaintenanceResult b = slow.flush();
  CHECK(std::vector<Segment>(a.writebacks.begin(), a.writebacks.end()) ==
        std::vector<Segment>(b.writebacks.begin(), b.writebacks.end()));
  for (std::uint64_t address = 0; address < spec.capacity_bytes * 3; address += chunk) {
    REQUIRE(fast.contains(address, chunk) == slow.contains(address, chunk));
  }
}

void check_whole_chunk_path_is_exact(const CacheSpec& spec, std::uint64_t seed) {
  check_fast_path_is_exact(spec, seed, [](SetAssociativeCache& c) { c.set_whole_chunk_path(false); });
}

void check_fingerprint_find_is_exact(const CacheSpec& spec, std::uint64_t seed) {
  check_fast_path_is_exact(spec, seed, [](SetAssociativeCache& c) { c.set_fingerprint_find(false); });
}

}  // namespace

// Runs `check(policy, write, indexing, chunk)` over every replacement policy, the given write
// policies, both indexings and three chunk sizes, with the combination captured for failures.
template <class Check>
void for_each_cache_variant(std::initializer_list<WritePolicy> writes, Check check) {
  for (Replacement policy : {Replacement::kLru, Replacement::kFifo, Replacement::kRandom}) {
    for (WritePolicy write : writes) {
      for (SetIndexing indexing : {SetIndexing::kModulo, SetIndexing::kHash}) {
        for (std::uint32_t chunk : {1024u, 4096u, 16384u}) {
          CAPTURE(static_cast<int>(policy));
          CAPTURE(static_cast<int>(write));
          CAPTURE(static_cast<int>(indexing));
          CAPTURE(chunk);
          check(policy, write, indexing, chunk);
        }
      }
    }
  }
}

TEST_CASE("the whole-chunk path gives exactly the general path's results on random sequences") {
  std::uint64_t seed = 1;
  for_each_cache_variant({WritePolicy::kWriteBackAllocate, WritePolicy::kWriteThroughNoAllocate,
                          WritePolicy::kWriteThroughAllocate},
                         [&](Replacement policy, WritePolicy write, SetIndexing indexing, std::uint32_t chunk) {
                           CacheSpec spec = small_spec(256 * kKiB, 4, chunk, policy, write, 128, indexing);
                           check_whole_chunk_path_is_exact(spec, seed++);
                           spec.sparse_tag_factor = 1;
                           check_whole_chunk_path_is_exact(spec, seed++);
                         });
}

TEST_CASE("the fingerprint lookup finds exactly the slots of the tag scan on random sequences") {
  std::uint64_t seed = 1000;
  for_each_cache_variant({WritePolicy::kWriteBackAllocate, WritePolicy::kWriteThroughAllocate},
                         [&](Replacement policy, WritePolicy write, SetIndexing indexing, std::uint32_t chunk) {
                           // 4 ways x 8 sparse slots (32 per set, beyond one 16-slot compare) and 1; 16 ways.
                           CacheSpec spec = small_spec(256 * kKiB, 4, chunk, policy, write, 128, indexing);
                           check_fingerprint_find_is_exact(spec, seed++);
                           spec.sparse_tag_factor = 1;
                           check_fingerprint_find_is_exact(spec, seed++);
                           check_fingerprint_find_is_exact(small_spec(256 * kKiB, 16, chunk, policy, write, 128, indexing), seed++);
                         });
}

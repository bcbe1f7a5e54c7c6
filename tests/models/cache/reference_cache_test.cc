#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "models/cache/set_associative_cache.h"
#include "reference_cache.h"
#include "test_specs.h"

using namespace tessera::models::cache;
using tessera::models::cache::testing::ReferenceCache;
using tessera::models::cache::testing::small_spec;

namespace {

constexpr std::uint64_t kKiB = 1024;

std::vector<Segment> copy(std::span<const Segment> s) { return {s.begin(), s.end()}; }

// How one random sequence is drawn: the production class is configured by `setup` (its fast
// paths on or off), and the shapes stress what the fast paths assume.
struct Mix {
  std::uint64_t seed = 1;
  int operations = 1500;
};

// Runs one random sequence of accesses (single, and several in one call), invalidations,
// flushes, resets and queries on the production cache and on the reference model, and requires
// every result, every forwarded and written-back range and every query to agree, then the final
// state.
template <class Setup>
void check_against_reference(const CacheSpec& spec, const Mix& mix, Setup setup) {
  SetAssociativeCache fast(spec);
  setup(fast);
  ReferenceCache reference(spec);
  std::mt19937_64 rng(mix.seed);
  const std::uint64_t chunk = spec.access_chunk_bytes;
  const std::uint64_t span = spec.capacity_bytes * 3;  // reuse and eviction both happen
  for (int i = 0; i < mix.operations; ++i) {
    const std::uint64_t pick = rng() % 32;
    std::uint64_t address;
    std::uint64_t bytes;
    if (pick < 14) {  // runs of whole chunks: the fast loop
      address = (rng() % (span / chunk)) * chunk;
      bytes = (1 + rng() % 40) * chunk;
    } else if (pick < 16) {  // a stream larger than the cache
      address = (rng() % (span / chunk)) * chunk;
      bytes = spec.capacity_bytes + (1 + rng() % 8) * chunk;
    } else if (pick < 22) {  // lines or odd bytes, straddling chunks: the general path, mixed in
      address = rng() % span;
      bytes = 1 + rng() % (3 * chunk);
    } else if (pick < 26) {  // whole chunks with ragged ends
      address = (rng() % (span / chunk)) * chunk + (rng() % 4) * spec.line_bytes;
      bytes = (1 + rng() % 12) * chunk + (rng() % 3) * spec.line_bytes;
    } else {  // one line of a chunk: sparse chunks, sets of more than 16 slots
      address = (rng() % (span / chunk)) * chunk + (rng() % (chunk / spec.line_bytes)) * spec.line_bytes;
      bytes = spec.line_bytes;
    }
    INFO("operation " << i << " at " << address << " + " << bytes);
    if (pick == 31) {
      const std::uint64_t kind = rng() % 8;
      if (kind < 3) {
        const MaintenanceResult a = fast.invalidate(address, bytes);
        const MaintenanceResult b = reference.invalidate(address, bytes);
        REQUIRE(a.writeback_bytes == b.writeback_bytes);
        REQUIRE(a.invalidated_bytes == b.invalidated_bytes);
        REQUIRE(copy(a.writebacks) == copy(b.writebacks));
      } else if (kind < 5) {
        const MaintenanceResult a = fast.flush(address, bytes);
        const MaintenanceResult b = reference.flush(address, bytes);
        REQUIRE(a.writeback_bytes == b.writeback_bytes);
        REQUIRE(copy(a.writebacks) == copy(b.writebacks));
      } else if (kind < 7) {
        const MaintenanceResult a = fast.flush();
        const MaintenanceResult b = reference.flush();
        REQUIRE(a.writeback_bytes == b.writeback_bytes);
        REQUIRE(copy(a.writebacks) == copy(b.writebacks));
      } else if (rng() % 4 == 0) {
        fast.reset();
        reference.reset();
      } else {  // an invalidation larger than the cache: the scan of every held slot
        const MaintenanceResult a = fast.invalidate(0, span);
        const MaintenanceResult b = reference.invalidate(0, span);
        REQUIRE(a.invalidated_bytes == b.invalidated_bytes);
        REQUIRE(copy(a.writebacks) == copy(b.writebacks));
      }
      continue;
    }
    if (pick == 29) {  // several accesses in one call: as many calls of the reference, summed
      std::vector<Segment> segments(1 + rng() % 12);
      for (Segment& s : segments) {
        s.address = (rng() % (span / chunk)) * chunk + (rng() % 4 == 0 ? rng() % chunk : 0);
        s.bytes = rng() % 3 == 0 ? 1 + rng() % (2 * chunk) : chunk;
      }
      const AccessKind kind = rng() % 2 == 0 ? AccessKind::kWrite : AccessKind::kRead;
      const AccessResult a = fast.access_each(segments, kind);
      AccessResult sum;
      for (const Segment& s : segments) {
        const AccessResult b = reference.access(s.address, s.bytes, kind);
        sum.requested_bytes += b.requested_bytes;
        sum.hit_bytes += b.hit_bytes;
        sum.miss_bytes += b.miss_bytes;
        sum.hit_chunks += b.hit_chunks;
        sum.miss_chunks += b.miss_chunks;
        sum.evicted_chunks += b.evicted_chunks;
        sum.writeback_bytes += b.writeback_bytes;
        sum.forwarded_bytes += b.forwarded_bytes;
      }
      REQUIRE(a.requested_bytes == sum.requested_bytes);
      REQUIRE(a.hit_bytes == sum.hit_bytes);
      REQUIRE(a.miss_bytes == sum.miss_bytes);
      REQUIRE(a.hit_chunks == sum.hit_chunks);
      REQUIRE(a.miss_chunks == sum.miss_chunks);
      REQUIRE(a.evicted_chunks == sum.evicted_chunks);
      REQUIRE(a.writeback_bytes == sum.writeback_bytes);
      REQUIRE(a.forwarded_bytes == sum.forwarded_bytes);
      continue;
    }
    if (pick == 30) {
      REQUIRE(fast.contains(address, bytes) == reference.contains(address, bytes));
      REQUIRE(fast.resident_bytes() == reference.resident_bytes());
      REQUIRE(fast.dirty_bytes() == reference.dirty_bytes());
      continue;
    }
    const AccessKind kind = rng() % 3 == 0 ? AccessKind::kWrite : AccessKind::kRead;
    const AccessResult a = fast.access(address, bytes, kind);
    const std::vector<Segment> a_forwarded = copy(a.forwarded);
    const std::vector<Segment> a_writebacks = copy(a.writebacks);
    const AccessResult b = reference.access(address, bytes, kind);
    REQUIRE(a.requested_bytes == b.requested_bytes);
    REQUIRE(a.hit_bytes == b.hit_bytes);
    REQUIRE(a.miss_bytes == b.miss_bytes);
    REQUIRE(a.hit_chunks == b.hit_chunks);
    REQUIRE(a.miss_chunks == b.miss_chunks);
    REQUIRE(a.evicted_chunks == b.evicted_chunks);
    REQUIRE(a.writeback_bytes == b.writeback_bytes);
    REQUIRE(a.forwarded_bytes == b.forwarded_bytes);
    REQUIRE(a_forwarded == copy(b.forwarded));
    REQUIRE(a_writebacks == copy(b.writebacks));
  }
  CHECK(fast.resident_bytes() == reference.resident_bytes());
  CHECK(fast.dirty_bytes() == reference.dirty_bytes());
  for (std::uint64_t address = 0; address < span; address += spec.line_bytes) {
    REQUIRE(fast.contains(address, spec.line_bytes) == reference.contains(address, spec.line_bytes));
  }
  const MaintenanceResult a = fast.flush();
  const MaintenanceResult b = reference.flush();
  CHECK(copy(a.writebacks) == copy(b.writebacks));
}

// The geometries: chunks of 8 to 64 sectors (a sector is a line up to 64 per chunk, then
// several), sets of 4 to 128 slots in one-byte links, and sets of 256 (the largest with them)
// and 512 (links kept wide).
struct Geometry {
  std::uint64_t capacity;
  std::uint32_t ways;
  std::uint32_t chunk;
  std::uint32_t line;
  std::uint32_t sparse;
};

const Geometry kGeometries[] = {
    {64 * kKiB, 4, 1024, 128, 8},       // 8 sectors of a line; 32 slots per set
    {256 * kKiB, 4, 4096, 128, 1},      // one chunk per way
    {256 * kKiB, 16, 4096, 128, 8},     // the MI300X L2's set shape: 128 slots of 32 sectors
    {256 * kKiB, 16, 4096, 64, 8},      // the MALL's: 64 sectors of a line
    {512 * kKiB, 4, 16384, 128, 8},     // 64 sectors of two lines
    {512 * kKiB, 32, 4096, 128, 8},     // 256 slots: the largest set with one-byte links
    {1024 * kKiB, 64, 4096, 128, 8},    // 512 slots: links kept wide
};

}  // namespace

TEST_CASE("the cache gives exactly the reference model's results on random sequences") {
  std::uint64_t seed = 1;
  for (const Geometry& g : kGeometries) {
    for (Replacement policy : {Replacement::kLru, Replacement::kFifo, Replacement::kRandom}) {
      for (WritePolicy write : {WritePolicy::kWriteBackAllocate, WritePolicy::kWriteThroughNoAllocate,
                                WritePolicy::kWriteThroughAllocate}) {
        for (SetIndexing indexing : {SetIndexing::kModulo, SetIndexing::kHash}) {
          CAPTURE(g.capacity);
          CAPTURE(g.ways);
          CAPTURE(g.chunk);
          CAPTURE(g.line);
          CAPTURE(g.sparse);
          CAPTURE(static_cast<int>(policy));
          CAPTURE(static_cast<int>(write));
          CAPTURE(static_cast<int>(indexing));
          CacheSpec spec = small_spec(g.capacity, g.ways, g.chunk, policy, write, g.line, indexing);
          spec.sparse_tag_factor = g.sparse;
          check_against_reference(spec, Mix{seed++}, [](SetAssociativeCache&) {});
        }
      }
    }
  }
}

TEST_CASE("with its fast paths off, the cache still gives exactly the reference model's results") {
  std::uint64_t seed = 5000;
  for (const Geometry& g : {kGeometries[2], kGeometries[3], kGeometries[6]}) {
    for (Replacement policy : {Replacement::kLru, Replacement::kFifo}) {
      CAPTURE(g.ways);
      CAPTURE(g.line);
      CAPTURE(static_cast<int>(policy));
      CacheSpec spec = small_spec(g.capacity, g.ways, g.chunk, policy, WritePolicy::kWriteBackAllocate, g.line,
                                  SetIndexing::kHash);
      spec.sparse_tag_factor = g.sparse;
      check_against_reference(spec, Mix{seed++}, [](SetAssociativeCache& c) { c.set_whole_chunk_path(false); });
      check_against_reference(spec, Mix{seed++}, [](SetAssociativeCache& c) { c.set_fingerprint_find(false); });
    }
  }
}

TEST_CASE("a copied cache continues exactly as the original") {
  CacheSpec spec = small_spec(256 * kKiB, 16, 4096, Replacement::kLru, WritePolicy::kWriteBackAllocate, 64,
                              SetIndexing::kHash);
  SetAssociativeCache original(spec);
  std::mt19937_64 rng(77);
  for (int i = 0; i < 500; ++i) {
    original.access((rng() % 192) * 4096, (1 + rng() % 16) * 4096, rng() % 2 ? AccessKind::kWrite : AccessKind::kRead);
  }
  SetAssociativeCache copy_of(original);
  for (int i = 0; i < 500; ++i) {
    const std::uint64_t address = (rng() % 192) * 4096 + (rng() % 3) * 64;
    const std::uint64_t bytes = (1 + rng() % 16) * 4096;
    const AccessResult a = original.access(address, bytes, AccessKind::kRead);
    const std::vector<Segment> a_writebacks = copy(a.writebacks);
    const AccessResult b = copy_of.access(address, bytes, AccessKind::kRead);
    REQUIRE(a.hit_bytes == b.hit_bytes);
    REQUIRE(a_writebacks == copy(b.writebacks));
  }
  CHECK(original.dirty_bytes() == copy_of.dirty_bytes());
}

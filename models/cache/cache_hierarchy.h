#pragma once
// The caches of one GPU: N L2 instances -> optional memory-side cache (MALL) -> HBM.
//
// Every call returns the bytes each level served, so the caller (the fabric / memory timing)
// can charge latency and bandwidth per level; this class keeps only state and statistics.
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "models/cache/cache_hierarchy_spec.h"
#include "models/cache/memory_side_cache.h"
#include "models/cache/set_associative_cache.h"
#include "sim/stats/stat_registry.h"

namespace tessera::models::cache {

struct HierarchyResult {
  std::uint64_t requested_bytes = 0;
  std::uint64_t l2_hit_bytes = 0;
  std::uint64_t l2_miss_bytes = 0;        // l2_hit + l2_miss == requested for reads and writes
  std::uint64_t mall_hit_bytes = 0;       // reads served by the MALL
  std::uint64_t mall_miss_bytes = 0;      // reads the MALL passed to HBM (== all when absent)
  std::uint64_t hbm_read_bytes = 0;       // for a read: l2_hit + mall_hit + hbm_read == requested
  std::uint64_t hbm_write_bytes = 0;      // write-backs and write-throughs reaching HBM
  std::uint64_t l2_writeback_bytes = 0;   // dirty L2 data sent to the memory side
  std::uint64_t invalidated_bytes = 0;    // valid L2 bytes dropped by an acquire

  HierarchyResult& operator+=(const HierarchyResult& o);
};

class CacheHierarchy {
 public:
  // Throws std::invalid_argument when spec.validate() fails.
  explicit CacheHierarchy(const CacheHierarchySpec& spec);

  const CacheHierarchySpec& spec() const { return spec_; }

  // Registers per-level statistics under `prefix` (e.g. "gpu[0]"): `<prefix>.xcd[i].l2.*`
  // (private L2s) or `<prefix>.l2[i].*` (partitions), `<prefix>.mall.*`, and the hierarchy's
  // own `<prefix>.cache.{hbm_read_bytes,hbm_write_bytes,remote_read_bytes,remote_write_bytes}`.
  void attach_stats(sim::stats::StatRegistry& registry, std::string_view prefix);

  // A load / store by a workgroup on `requester` (an XCD; ignored when L2 is address-partitioned).
  HierarchyResult read(std::uint32_t requester, std::uint64_t address, std::uint64_t bytes);
  HierarchyResult write(std::uint32_t requester, std::uint64_t address, std::uint64_t bytes);

  // A peer GPU's load / store to this GPU's memory. With private L2s they are served at the
  // memory side and never touch an L2 (a stale L2 copy stays until that XCD acquires); with an
  // address-partitioned L2 they go through the owning partition like local accesses.
  HierarchyResult remote_read_arrives(std::uint64_t address, std::uint64_t bytes);
  HierarchyResult remote_write_arrives(std::uint64_t address, std::uint64_t bytes);

  // A load by `requester` of a peer GPU's memory that this GPU's L2 may keep (coarse-grained
  // peer memory on MI300X, mapped MTYPE NC): looks the range up in the requester's private L2
  // under `tagged_address` (the peer's address, tagged so that it never aliases this GPU's own
  // memory) and allocates the misses there, clean; it never reaches this GPU's MALL or HBM
  // except for the dirty data its fills evict. The caller sends l2_miss_bytes to the peer.
  // Under an address-partitioned L2 nothing is looked up: every byte is a miss.
  HierarchyResult peer_read(std::uint32_t requester, std::uint64_t tagged_address, std::uint64_t bytes);

  // Acquire on `requester` for a range: with private L2s, drops that L2's copies (writing any
  // dirty bytes back first) so the next read goes to the memory side; a no-op when the L2 is the
  // point of coherence.
  HierarchyResult acquire(std::uint32_t requester, std::uint64_t address, std::uint64_t bytes);
  // Release by `requester`: with private L2s, writes back all of that L2's dirty data to the
  // memory side, where other XCDs and peers see it; a no-op when the L2 is the point of coherence.
  HierarchyResult release(std::uint32_t requester);

  // Writes back every dirty byte of every L2 (end of a run, or a device-wide flush).
  HierarchyResult flush_all();
  // Forgets every cached byte without write-back (the benchmarks' cache flush between iterations).
  void reset();

  std::uint32_t num_l2() const { return static_cast<std::uint32_t>(l2_.size()); }
  // The L2 instance that serves `address` for `requester`.
  std::uint32_t l2_index(std::uint32_t requester, std::uint64_t address) const;
  const SetAssociativeCache& l2(std::uint32_t index) const { return l2_.at(index); }
  const MemorySideCache& mall() const { return mall_; }

 private:
  HierarchyResult access_l2(std::uint32_t requester, std::uint64_t address, std::uint64_t bytes, AccessKind kind);
  void access_one_l2(std::uint32_t index, std::uint64_t address, std::uint64_t bytes, AccessKind kind,
                     HierarchyResult& r);
  void memory_side_read(std::span<const Segment> segments, HierarchyResult& r);
  void memory_side_write(std::span<const Segment> segments, HierarchyResult& r);
  void memory_side_write(std::uint64_t address, std::uint64_t bytes, HierarchyResult& r);
  std::uint32_t checked_requester(std::uint32_t requester) const;
  void record(const HierarchyResult& r);

  struct Stats {
    sim::stats::Counter* hbm_read_bytes = nullptr;
    sim::stats::Counter* hbm_write_bytes = nullptr;
    sim::stats::Counter* remote_read_bytes = nullptr;
    sim::stats::Counter* remote_write_bytes = nullptr;
  };

  CacheHierarchySpec spec_;
  std::vector<SetAssociativeCache> l2_;
  MemorySideCache mall_;
  Stats stats_;
};

}  // namespace tessera::models::cache

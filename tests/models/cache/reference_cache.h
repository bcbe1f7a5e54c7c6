#pragma once
// The reference model of SetAssociativeCache for the tests: the same chunk-tagged, sectored,
// set-associative cache in its earlier, plainer layout (one array per field: tags, order
// links, presence, fingerprints), walked chunk by chunk. The production class keeps a set's
// state in a denser layout and has fast paths; reference_cache_test.cc requires that both give
// the same results, ranges and final state on random access sequences. A change of behaviour
// is made here and in the production class together (models/cache/README.md).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "models/cache/access_result.h"
#include "models/cache/cache_spec.h"
#include "models/cache/cache_stats.h"

namespace tessera::models::cache::testing {

class ReferenceCache {
 public:
  // Throws std::invalid_argument with spec.validate()'s message when the spec is unusable.
  explicit ReferenceCache(const CacheSpec& spec);

  // The bytes the constructor allocates for a valid spec (tag, order and presence tables, per-set
  // occupancy), saturating at 2^64 - 1: what a config asks for before the cache is built, so
  // that an absurd capacity is refused instead of exhausting memory (models/system/system_limits.h).
  static std::uint64_t state_bytes(const CacheSpec& spec);

  const CacheSpec& spec() const { return spec_; }
  std::uint64_t num_sets() const { return num_sets_; }
  std::uint32_t sector_bytes() const { return std::uint32_t{1} << sector_shift_; }

  // Optional: count this cache's traffic in `registry` under `prefix` (e.g. "gpu[0].xcd[3].l2").
  void attach_stats(sim::stats::StatRegistry& registry, std::string_view prefix);

  // Reads or writes [address, address + bytes). The result's spans stay valid until the next
  // call on this cache.
  AccessResult access(std::uint64_t address, std::uint64_t bytes, AccessKind kind);

  // Asks the host for the state of the set holding `address`, so that an access to it soon
  // waits less (a caller that knows the next access early). No effect on results.
  void prefetch(std::uint64_t address) const;

  // Writes back dirty sectors overlapping the range, then drops every sector it overlaps.
  MaintenanceResult invalidate(std::uint64_t address, std::uint64_t bytes);
  // Writes back every dirty sector (all, or those overlapping the range); copies stay, clean.
  MaintenanceResult flush();
  MaintenanceResult flush(std::uint64_t address, std::uint64_t bytes);
  // Forgets everything without write-back: the state of a freshly built cache.
  void reset();

  // True when every byte of the range is present (the sectors covering it are valid).
  bool contains(std::uint64_t address, std::uint64_t bytes) const;
  std::uint64_t resident_bytes() const;  // valid sectors x sector bytes
  std::uint64_t dirty_bytes() const;

  std::uint64_t set_of(std::uint64_t address) const { return set_index(address >> chunk_shift_); }
  // For tests: off, whole-chunk lookups take the general per-sector path too (same results;
  // tests/models/cache check the two against each other on random access sequences).
  void set_whole_chunk_path(bool on) { whole_chunk_path_ = on; }
  // For tests: off, a lookup compares every held tag of the set instead of first matching the
  // one-byte fingerprints of its tags (same slot found: tags are unique in a set).
  void set_fingerprint_find(bool on) { fingerprint_find_ = on; }

  // Channel serving an address: lines interleave over channels (the caller times bandwidth).
  std::uint32_t channel_of(std::uint64_t address) const {
    return static_cast<std::uint32_t>((address >> line_shift_) % spec_.num_channels);
  }

 private:
  static constexpr std::uint32_t kNil = ~std::uint32_t{0};  // no slot (in a set's order)
  // Replacement and presence state of one tag slot; the slot is empty when `valid` is 0.
  struct Meta {
    std::uint64_t valid = 0;  // one bit per sector
    std::uint64_t dirty = 0;  // subset of valid
  };
  // Occupancy of one set: a set holds at most slots_per_set_ chunks and budget_sectors_ sectors.
  // `oldest` and `newest` end the set's replacement order (slot indices within the set).
  struct SetUse {
    std::uint32_t chunks = 0;
    std::uint32_t sectors = 0;
    std::uint32_t oldest = kNil;
    std::uint32_t newest = kNil;
  };
  // A held slot's neighbours in its set's replacement order (LRU: by last use; FIFO: by fill),
  // so that the victim is found in O(1) rather than by scanning the set.
  struct Link {
    std::uint32_t older = kNil;
    std::uint32_t newer = kNil;
  };
  enum class Op { kInvalidate, kFlush };
  // What an access does with the chunks it touches (from its kind and the write policy).
  struct Plan {
    bool write = false;
    bool write_through = false;  // a write forwarded in full to the next level
    bool allocate = true;        // a missing chunk gets a slot
    bool mark_dirty = false;     // written sectors become dirty (write-back)
  };
  static constexpr std::uint64_t kNoTag = ~std::uint64_t{0};
  static constexpr std::size_t kNoSlot = ~std::size_t{0};

  std::uint64_t set_index(std::uint64_t chunk) const;
  static std::uint8_t fingerprint(std::uint64_t chunk);
  void set_tag(std::size_t slot, std::uint64_t chunk);  // the tag and its fingerprint
  std::size_t find(std::uint64_t set, std::uint64_t chunk) const;  // slot index or kNoSlot
  std::size_t find_by_fingerprint(std::uint64_t set, std::uint64_t chunk) const;
  std::size_t choose_victim(std::uint64_t set, std::size_t keep);   // a held slot other than `keep`
  void make_newest(std::uint64_t set, std::size_t slot);  // append, or move to the newest end
  void unlink(std::uint64_t set, std::size_t slot);        // remove from the set's order
  // Evicts until `sectors` more fit in the set (and a slot is free when `need_slot`). Returns
  // where `keep` now lives (slots move when the set is compacted).
  std::size_t make_room(std::uint64_t set, std::size_t keep, std::uint32_t sectors, bool need_slot, AccessResult& r);
  // A slot for a missing chunk (tag set, newest in the order, no sectors yet), evicting as needed.
  std::size_t fill_slot(std::uint64_t set, std::uint64_t chunk, std::uint32_t sectors, AccessResult& r);
  // Ask for a set's state ahead of its use (no effect on results).
  void prefetch_set(std::uint64_t set) const;
  void prefetch_victim(std::uint64_t set) const;
  // One chunk of an access: [lo, hi) inside it (general), or all of it (whole).
  void access_part(std::uint64_t set, std::uint64_t chunk, std::uint64_t lo, std::uint64_t hi, const Plan& plan,
                   AccessResult& r);
  void access_whole(std::uint64_t set, std::uint64_t chunk, const Plan& plan, AccessResult& r);
  template <class Result>  // AccessResult or MaintenanceResult
  void write_back(std::size_t slot, std::uint64_t dirty, Result& result);  // records the dirty runs
  std::uint64_t sector_mask(std::uint64_t lo, std::uint64_t hi) const;  // sectors overlapping [lo, hi)
  std::uint64_t overlap_bytes(std::uint64_t mask, std::uint64_t lo, std::uint64_t hi) const;
  // Appends the runs of `mask` (clipped to [lo, hi) inside the chunk at `base`) to `out`.
  void append_runs(std::vector<Segment>& out, std::uint64_t base, std::uint64_t mask, std::uint64_t lo,
                   std::uint64_t hi) const;
  // Clears sectors; a slot left empty is filled by the set's last held slot, so held slots
  // stay at the front of the set and lookups scan only them. Returns the index that moved
  // into `slot` (kNoSlot when none did).
  std::size_t drop(std::size_t slot, std::uint64_t mask);
  std::size_t evict(std::size_t slot, AccessResult& result);
  std::size_t maintain(std::size_t slot, std::uint64_t mask, Op op, MaintenanceResult& result);
  MaintenanceResult maintain_range(std::uint64_t address, std::uint64_t bytes, Op op);
  std::uint64_t next_random();

  CacheSpec spec_;
  std::uint64_t num_sets_;
  std::uint32_t chunk_shift_;
  std::uint32_t line_shift_;
  std::uint32_t sector_shift_;
  std::uint64_t set_mask_;         // num_sets_ - 1 when that is a power of two, else 0
  std::uint64_t full_mask_;        // every sector of a chunk
  std::size_t slots_per_set_;      // ways x effective sparse_tag_factor
  std::uint32_t budget_sectors_;   // ways x sectors per chunk: the set's capacity in sectors
  std::uint32_t sectors_per_chunk_ = 0;
  template <class T>
  using Table = std::vector<T>;
  Table<std::uint64_t> tags_;    // chunk index per slot; a set's held slots first, contiguous
  Table<Link> order_;            // parallel to tags_: the replacement order of each set's held slots
  Table<Meta> meta_;             // parallel to tags_; tags apart so that their scan stays dense
  // Parallel to tags_ (plus kFingerprintPad bytes): one byte of a hash of each slot's tag, so
  // that one 16-byte compare finds the candidates among 16 slots of a set (a scan of the tags
  // mispredicts its exit at every hit, whose depth in the set is spread evenly).
  Table<std::uint8_t> fingerprints_;
  static constexpr std::size_t kFingerprintPad = 16;
  std::vector<SetUse> use_;          // per set
  std::uint64_t rng_state_;
  bool whole_chunk_path_ = true;
  bool fingerprint_find_ = true;
  std::vector<Segment> forwarded_;   // scratch behind AccessResult::forwarded
  std::vector<Segment> writebacks_;  // scratch behind *Result::writebacks
  CacheStats stats_;
};

}  // namespace tessera::models::cache::testing

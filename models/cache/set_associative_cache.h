#pragma once
// A set-associative cache tracked per access chunk: the functional state (tags, valid and
// dirty bits, replacement order) of one cache level, with no notion of time.
//
// A chunk (e.g. 4 KiB) is `chunk / line` hardware lines sharing one tag and one replacement
// stamp, so a 64 MiB stream costs 16 Ki tag lookups instead of 512 Ki. Inside a chunk, presence
// and dirtiness are kept per sector (max(line, chunk / 64) bytes, a 64-bit mask), so touching
// one line of a chunk neither pretends the other lines were fetched nor, thanks to a per-set
// sector budget with spare tag slots, charges the whole chunk's capacity. See README.md.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "models/cache/access_result.h"
#include "models/cache/huge_page_table.h"
#include "models/cache/cache_spec.h"
#include "models/cache/cache_stats.h"

namespace tessera::models::cache {

class SetAssociativeCache {
 public:
  // Throws std::invalid_argument with spec.validate()'s message when the spec is unusable.
  explicit SetAssociativeCache(const CacheSpec& spec);

  // The cache's state for a valid spec as the system limits count it (33 bytes per tag slot and
  // 16 per set, saturating at 2^64 - 1): what a config asks for before the cache is built, so
  // that an absurd capacity is refused instead of exhausting memory (models/system/system_limits.h).
  // The constructor reserves a little less (28 bytes per slot in sets of 16 slots or more, 36
  // in sets of more than 256), of which a run touches only the slots it fills.
  static std::uint64_t state_bytes(const CacheSpec& spec);

  const CacheSpec& spec() const { return spec_; }
  std::uint64_t num_sets() const { return num_sets_; }
  std::uint32_t sector_bytes() const { return std::uint32_t{1} << sector_shift_; }

  // Optional: count this cache's traffic in `registry` under `prefix` (e.g. "gpu[0].xcd[3].l2").
  void attach_stats(sim::stats::StatRegistry& registry, std::string_view prefix);

  // Reads or writes [address, address + bytes). The result's spans stay valid until the next
  // call on this cache.
  AccessResult access(std::uint64_t address, std::uint64_t bytes, AccessKind kind);
  // Several accesses of one kind, made one after the other exactly as access() makes each, with
  // the state of the segments a few ahead requested early (an L2's write-backs reach the next
  // level one chunk each, on unrelated sets). Returns their counts summed; the result's spans
  // are empty, so this is for a caller that needs no ranges back (the memory-side cache).
  AccessResult access_each(std::span<const Segment> segments, AccessKind kind);

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
  // Layout. A set's state is kept so that looking up a chunk touches two host cache lines: the
  // set's first group (occupancy, order, fingerprints and presence of its first 16 slots) and
  // the tag of the slot the lookup finds or replaces. Held slots are contiguous from slot 0 of
  // their set (a freed slot is refilled by the set's last held one), and nothing of a slot is
  // read before it is filled, so the tables need no initialisation beyond zero (empty sets).
  //
  // A set's slots in groups of 16, one host cache line each, stored group-major (group 0 of
  // every set, then group 1...). Group 0 of a set also holds its occupancy (at most
  // slots_per_set_ chunks and budget_sectors_ sectors) and the two ends of its replacement
  // order (LRU: by last use; FIFO: by fill), a list through the held slots, so that the victim
  // is found in O(1). In sets of at most 256 slots (every preset) `newer` links each held slot
  // but the newest to the next newer one (a slot index within the set, one byte), and a slot's
  // predecessor is found by comparing the group's 16 links at once; larger sets keep both links
  // in `links_`. Links are read only where they point to a held slot.
  struct alignas(64) Group {
    std::uint32_t chunks;   // group 0 only: held slots
    std::uint32_t sectors;  // group 0 only: valid sectors over the held slots
    std::uint32_t oldest;   // group 0 only, when chunks > 0: the ends of the order
    std::uint32_t newest;
    std::uint8_t print[16];     // one byte of a hash of each slot's tag (see fingerprint())
    std::uint8_t newer[16];     // sets of at most 256 slots
    std::uint8_t presence[16];  // kWholeClean, kWholeDirty or kInMasks
  };
  static_assert(sizeof(Group) == 64);
  // A slot's presence: every sector valid and none dirty, or every sector valid and dirty (what
  // whole-chunk accesses leave, so that they never touch `masks_`), or anything else, spelt
  // out in `masks_`.
  static constexpr std::uint8_t kInMasks = 0;
  static constexpr std::uint8_t kWholeClean = 1;
  static constexpr std::uint8_t kWholeDirty = 2;
  struct Masks {
    std::uint64_t valid = 0;  // one bit per sector
    std::uint64_t dirty = 0;  // subset of valid
  };
  struct Link {
    std::uint32_t older = 0;
    std::uint32_t newer = 0;
  };
  static constexpr std::uint32_t kGroupSlots = 16;
  static constexpr std::uint32_t kMaxNarrowSlots = 256;  // slots addressable by a one-byte link
  enum class Op { kInvalidate, kFlush };
  // What an access does with the chunks it touches (from its kind and the write policy).
  struct Plan {
    bool write = false;
    bool write_through = false;  // a write forwarded in full to the next level
    bool allocate = true;        // a missing chunk gets a slot
    bool mark_dirty = false;     // written sectors become dirty (write-back)
  };
  static constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};

  std::uint64_t set_index(std::uint64_t chunk) const;
  static std::uint8_t fingerprint(std::uint64_t chunk);
  Plan plan_for(AccessKind kind) const;
  // The chunks of [address, address + bytes) in order, counted into `r` (forwarded and
  // written-back ranges appended to the scratch lists).
  void walk(std::uint64_t address, std::uint64_t bytes, const Plan& plan, AccessResult& r);
  // Per-slot tables are slot-major (slot i of every set, then slot i + 1): the slots a set
  // fills first share pages, and those only sparsely touched chunks use are never touched by
  // a run that has none.
  std::size_t at(std::uint64_t set, std::uint32_t slot) const { return slot * num_sets_ + set; }
  Group& head(std::uint64_t set) { return groups_[set]; }
  const Group& head(std::uint64_t set) const { return groups_[set]; }
  Group& group(std::uint64_t set, std::uint32_t slot) { return groups_[slot / kGroupSlots * num_sets_ + set]; }
  const Group& group(std::uint64_t set, std::uint32_t slot) const {
    return groups_[slot / kGroupSlots * num_sets_ + set];
  }
  Masks masks(std::uint64_t set, std::uint32_t slot) const;
  void set_masks(std::uint64_t set, std::uint32_t slot, std::uint64_t valid, std::uint64_t dirty);
  std::uint32_t older(std::uint64_t set, std::uint32_t slot) const;
  std::uint32_t newer(std::uint64_t set, std::uint32_t slot) const;
  void set_older(std::uint64_t set, std::uint32_t slot, std::uint32_t to);
  void set_newer(std::uint64_t set, std::uint32_t slot, std::uint32_t to);
  // Sets of one-byte links: the slot among [0, limit), other than the newest and `skip`,
  // whose newer link is `slot` (kNoSlot when none).
  std::uint32_t predecessor(std::uint64_t set, std::uint32_t slot, std::uint32_t limit, std::uint32_t skip) const;
  void set_tag(std::uint64_t set, std::uint32_t slot, std::uint64_t chunk);  // the tag and its fingerprint
  std::uint32_t find(std::uint64_t set, std::uint64_t chunk) const;  // slot or kNoSlot
  std::uint32_t find_by_fingerprint(std::uint64_t set, std::uint64_t chunk) const;
  std::uint32_t choose_victim(std::uint64_t set, std::uint32_t keep);  // a held slot other than `keep`
  // The replacement order: `append` a slot not in it (the set's other held slots are), move a
  // slot in it to the newest end, take one out (before the set's count drops), or move the
  // set's last held slot `from` into the hole `to` that unlink left.
  void append(std::uint64_t set, std::uint32_t slot, std::uint32_t ordered);  // `ordered` slots are in it
  void make_newest(std::uint64_t set, std::uint32_t slot);
  void unlink(std::uint64_t set, std::uint32_t slot);
  void relink(std::uint64_t set, std::uint32_t from, std::uint32_t to);
  // Evicts until `sectors` more fit in the set. Returns where `keep` now lives (slots move
  // when the set is compacted).
  std::uint32_t make_room(std::uint64_t set, std::uint32_t keep, std::uint32_t sectors, AccessResult& r);
  // A slot for a missing chunk (tag set, newest in the order, no sectors yet), evicting as needed.
  std::uint32_t fill_slot(std::uint64_t set, std::uint64_t chunk, std::uint32_t sectors, AccessResult& r);
  // Ask for a set's state ahead of its use (no effect on results): its first group, then (a
  // second stage, which reads that group) the tag a lookup of `chunk` will read.
  void prefetch_set(std::uint64_t set) const;
  void prefetch_record(std::uint64_t set, std::uint64_t chunk) const;
  // One chunk of an access: [lo, hi) inside it (general), or all of it (whole).
  void access_part(std::uint64_t set, std::uint64_t chunk, std::uint64_t lo, std::uint64_t hi, const Plan& plan,
                   AccessResult& r);
  void access_whole(std::uint64_t set, std::uint64_t chunk, const Plan& plan, AccessResult& r);
  // The chunks [first, end), every one touched whole, in order: the same decisions as
  // access_whole for each, in one loop that keeps the tables' addresses, the counts and the
  // forwarded range being built in registers. For LRU and FIFO sets with one-byte links (every
  // preset); other caches walk the chunks one call each.
  void access_whole_run(std::uint64_t first, std::uint64_t end, const Plan& plan, AccessResult& r);
  template <class Result>  // AccessResult or MaintenanceResult
  void write_back(std::uint64_t tag, std::uint64_t dirty, Result& result);  // records the dirty runs
  std::uint64_t sector_mask(std::uint64_t lo, std::uint64_t hi) const;  // sectors overlapping [lo, hi)
  std::uint64_t overlap_bytes(std::uint64_t mask, std::uint64_t lo, std::uint64_t hi) const;
  // Appends the runs of `mask` (clipped to [lo, hi) inside the chunk at `base`) to `out`.
  void append_runs(std::vector<Segment>& out, std::uint64_t base, std::uint64_t mask, std::uint64_t lo,
                   std::uint64_t hi) const;
  void mark_dirty_set(std::uint64_t set) { dirty_sets_[set >> 6] |= std::uint64_t{1} << (set & 63); }
  // Clears sectors; a slot left empty is filled by the set's last held slot, so held slots
  // stay at the front of the set and lookups scan only them. Returns the index that moved
  // into `slot` (kNoSlot when none did).
  std::uint32_t drop(std::uint64_t set, std::uint32_t slot, std::uint64_t mask);
  std::uint32_t evict(std::uint64_t set, std::uint32_t slot, AccessResult& result);
  std::uint32_t maintain(std::uint64_t set, std::uint32_t slot, std::uint64_t mask, Op op, MaintenanceResult& result);
  MaintenanceResult maintain_range(std::uint64_t address, std::uint64_t bytes, Op op);
  std::uint64_t next_random();

  CacheSpec spec_;
  std::uint64_t num_sets_;
  std::uint32_t chunk_shift_;
  std::uint32_t line_shift_;
  std::uint32_t sector_shift_;
  std::uint64_t set_mask_;         // num_sets_ - 1 when that is a power of two, else 0
  std::uint64_t full_mask_;        // every sector of a chunk
  std::uint32_t slots_per_set_;    // ways x effective sparse_tag_factor
  std::uint32_t groups_per_set_;   // slots_per_set_ / kGroupSlots, rounded up
  std::uint32_t budget_sectors_;   // ways x sectors per chunk: the set's capacity in sectors
  std::uint32_t sectors_per_chunk_ = 0;
  bool wide_links_ = false;        // more than kMaxNarrowSlots slots per set: links in links_
  HugePageTable<Group> groups_;
  HugePageTable<std::uint64_t> tags_;  // chunk index per slot
  HugePageTable<Masks> masks_;         // per slot, read only where its presence is kInMasks
  HugePageTable<Link> links_;          // per slot, in sets of more than 256 slots only
  // One bit per set that may hold dirty data (set when a write marks sectors dirty, cleared by
  // flush()), so that a flush, which every release does, visits only those sets.
  std::vector<std::uint64_t> dirty_sets_;
  std::uint64_t rng_state_;
  bool whole_chunk_path_ = true;
  bool fingerprint_find_ = true;
  std::vector<Segment> forwarded_;   // scratch behind AccessResult::forwarded
  std::vector<Segment> writebacks_;  // scratch behind *Result::writebacks
  CacheStats stats_;
};

}  // namespace tessera::models::cache

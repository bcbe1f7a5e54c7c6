#include "models/cache/set_associative_cache.h"

#include <algorithm>
#include <bit>
#include <new>
#include <stdexcept>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tessera::models::cache {
namespace {

constexpr std::uint32_t kMaxSectorsPerChunk = 64;  // one bit each in a 64-bit mask

// Appends a range, merging it into the last one when they touch (streams stay one segment).
void push_merged(std::vector<Segment>& out, std::uint64_t address, std::uint64_t bytes) {
  if (bytes == 0) return;
  if (!out.empty() && out.back().address + out.back().bytes == address) {
    out.back().bytes += bytes;
    return;
  }
  out.push_back(Segment{address, bytes});
}

// splitmix64's finaliser: cheap, and every input bit moves every output bit.
std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

const CacheSpec& checked(const CacheSpec& spec) {
  if (auto error = spec.validate()) throw std::invalid_argument("cache spec: " + *error);
  return spec;
}

}  // namespace

SetAssociativeCache::SetAssociativeCache(const CacheSpec& spec)
    : spec_(checked(spec)),
      num_sets_(spec.num_sets()),
      chunk_shift_(static_cast<std::uint32_t>(std::countr_zero(spec.access_chunk_bytes))),
      line_shift_(static_cast<std::uint32_t>(std::countr_zero(spec.line_bytes))),
      sector_shift_(std::max(line_shift_, chunk_shift_ > 6 ? chunk_shift_ - 6 : 0u)),
      set_mask_(std::has_single_bit(num_sets_) ? num_sets_ - 1 : 0),
      full_mask_(0),
      slots_per_set_(0),
      groups_per_set_(0),
      budget_sectors_(0),
      rng_state_(mix(spec.random_seed) | 1) {
  const std::uint32_t sectors = std::uint32_t{1} << (chunk_shift_ - sector_shift_);
  full_mask_ = sectors == kMaxSectorsPerChunk ? ~std::uint64_t{0} : (std::uint64_t{1} << sectors) - 1;
  // More slots than sectors per chunk can never be filled (every held chunk has >= 1 sector).
  const std::uint64_t slots = std::uint64_t{spec.ways} * std::min(spec.sparse_tag_factor, sectors);
  // Slot indices are 32-bit, and the tables' sizes must not wrap: beyond that no host has the memory.
  if (slots >= kNoSlot || num_sets_ > (~std::uint64_t{0} / sizeof(Masks)) / slots) throw std::bad_alloc();
  slots_per_set_ = static_cast<std::uint32_t>(slots);
  groups_per_set_ = static_cast<std::uint32_t>((slots + kGroupSlots - 1) / kGroupSlots);
  budget_sectors_ = spec.ways * sectors;
  sectors_per_chunk_ = sectors;
  wide_links_ = slots > kMaxNarrowSlots;
  // Zero is the empty state (no chunk held in any set); nothing of a slot is read before it is
  // filled, so no table is written here, and the kernel zeroes only the pages a run touches.
  groups_ = HugePageTable<Group>(num_sets_ * groups_per_set_);
  tags_ = HugePageTable<std::uint64_t>(num_sets_ * slots_per_set_);
  masks_ = HugePageTable<Masks>(num_sets_ * slots_per_set_);
  if (wide_links_) links_ = HugePageTable<Link>(num_sets_ * slots_per_set_);
  dirty_sets_.assign((num_sets_ + 63) / 64, 0);
}

std::uint64_t SetAssociativeCache::state_bytes(const CacheSpec& spec) {
  if (spec.validate()) return 0;  // an absent (0 B) or invalid cache is never built
  // The same geometry as the constructor's.
  const auto chunk_shift = static_cast<std::uint32_t>(std::countr_zero(spec.access_chunk_bytes));
  const auto line_shift = static_cast<std::uint32_t>(std::countr_zero(spec.line_bytes));
  const std::uint32_t sector_shift = std::max(line_shift, chunk_shift > 6 ? chunk_shift - 6 : 0u);
  const std::uint32_t sectors = std::uint32_t{1} << (chunk_shift - sector_shift);
  const std::uint64_t slots_per_set = std::uint64_t{spec.ways} * std::min(spec.sparse_tag_factor, sectors);
  __extension__ typedef unsigned __int128 Wide;
  const Wide sets = spec.num_sets();
  // The count the limits have always used (a tag, two links, two masks and a fingerprint per
  // slot; four counters per set), kept so that the same configs pass them.
  constexpr std::uint64_t kSlotBytes = 8 + 8 + 16 + 1;
  constexpr std::uint64_t kSetBytes = 16;
  const Wide bytes = sets * slots_per_set * kSlotBytes + sets * kSetBytes;
  return bytes > Wide{~std::uint64_t{0}} ? ~std::uint64_t{0} : static_cast<std::uint64_t>(bytes);
}

void SetAssociativeCache::attach_stats(sim::stats::StatRegistry& registry, std::string_view prefix) {
  stats_ = CacheStats::register_in(registry, prefix);
}

std::uint64_t SetAssociativeCache::set_index(std::uint64_t chunk) const {
  const std::uint64_t key = spec_.set_indexing == SetIndexing::kHash ? mix(chunk) : chunk;
  // A mask when the set count is a power of two (every preset): a 64-bit division costs tens of
  // cycles and this runs for every chunk of every access.
  return set_mask_ != 0 ? key & set_mask_ : key % num_sets_;
}

std::uint8_t SetAssociativeCache::fingerprint(std::uint64_t chunk) {
  // The top byte of a multiplicative hash: every bit of the chunk index moves it (the low bits
  // alone would be equal across a set under modulo indexing).
  return static_cast<std::uint8_t>((chunk * 0x9e3779b97f4a7c15ull) >> 56);
}

SetAssociativeCache::Masks SetAssociativeCache::masks(std::uint64_t set, std::uint32_t slot) const {
  switch (group(set, slot).presence[slot % kGroupSlots]) {
    case kWholeClean: return Masks{full_mask_, 0};
    case kWholeDirty: return Masks{full_mask_, full_mask_};
    default: return masks_[at(set, slot)];
  }
}

void SetAssociativeCache::set_masks(std::uint64_t set, std::uint32_t slot, std::uint64_t valid, std::uint64_t dirty) {
  std::uint8_t& presence = group(set, slot).presence[slot % kGroupSlots];
  if (valid == full_mask_ && dirty == 0) {
    presence = kWholeClean;
  } else if (valid == full_mask_ && dirty == full_mask_) {
    presence = kWholeDirty;
  } else {
    presence = kInMasks;
    masks_[at(set, slot)] = Masks{valid, dirty};
  }
}

std::uint32_t SetAssociativeCache::predecessor(std::uint64_t set, std::uint32_t slot, std::uint32_t limit,
                                               std::uint32_t skip) const {
  const std::uint32_t newest = head(set).newest;
  for (std::uint32_t base = 0; base < limit; base += kGroupSlots) {
    const Group& g = groups_[base / kGroupSlots * num_sets_ + set];
#if defined(__SSE2__)
    const __m128i links = _mm_load_si128(reinterpret_cast<const __m128i*>(g.newer));
    auto match = static_cast<std::uint32_t>(
        _mm_movemask_epi8(_mm_cmpeq_epi8(links, _mm_set1_epi8(static_cast<char>(slot)))));
#else
    std::uint32_t match = 0;
    for (std::uint32_t i = 0; i < kGroupSlots; ++i) match |= std::uint32_t{g.newer[i] == slot} << i;
#endif
    if (limit - base < kGroupSlots) match &= (std::uint32_t{1} << (limit - base)) - 1;
    // The newest's link and a hole's are stale: they point nowhere.
    if (newest - base < kGroupSlots) match &= ~(std::uint32_t{1} << (newest - base));
    if (skip - base < kGroupSlots) match &= ~(std::uint32_t{1} << (skip - base));
    if (match != 0) return base + static_cast<std::uint32_t>(std::countr_zero(match));
  }
  return kNoSlot;
}

std::uint32_t SetAssociativeCache::older(std::uint64_t set, std::uint32_t slot) const {
  return wide_links_ ? links_[at(set, slot)].older : predecessor(set, slot, head(set).chunks, kNoSlot);
}

std::uint32_t SetAssociativeCache::newer(std::uint64_t set, std::uint32_t slot) const {
  return wide_links_ ? links_[at(set, slot)].newer : group(set, slot).newer[slot % kGroupSlots];
}

void SetAssociativeCache::set_older(std::uint64_t set, std::uint32_t slot, std::uint32_t to) {
  if (wide_links_) links_[at(set, slot)].older = to;  // one-byte links keep no older link
}

void SetAssociativeCache::set_newer(std::uint64_t set, std::uint32_t slot, std::uint32_t to) {
  if (wide_links_) {
    links_[at(set, slot)].newer = to;
  } else {
    group(set, slot).newer[slot % kGroupSlots] = static_cast<std::uint8_t>(to);
  }
}

void SetAssociativeCache::set_tag(std::uint64_t set, std::uint32_t slot, std::uint64_t chunk) {
  tags_[at(set, slot)] = chunk;
  group(set, slot).print[slot % kGroupSlots] = fingerprint(chunk);
}

std::uint32_t SetAssociativeCache::find(std::uint64_t set, std::uint64_t chunk) const {
  if (fingerprint_find_) return find_by_fingerprint(set, chunk);
  const std::uint32_t held = head(set).chunks;
  for (std::uint32_t i = 0; i < held; ++i) {
    if (tags_[at(set, i)] == chunk) return i;
  }
  return kNoSlot;
}

// The held slots whose fingerprint matches, 16 at a time (one group), then their tags: the slot
// the scan finds (tags are unique in a set), with about one tag compare per lookup. Where the
// scan's exit would mispredict at almost every hit (hits spread over every recency depth),
// this reads the set's first line and, mostly, the one tag it needs.
std::uint32_t SetAssociativeCache::find_by_fingerprint(std::uint64_t set, std::uint64_t chunk) const {
  const std::uint32_t held = head(set).chunks;
  const std::uint8_t want = fingerprint(chunk);
  for (std::uint32_t base = 0; base < held; base += kGroupSlots) {
    const Group& g = groups_[base / kGroupSlots * num_sets_ + set];
#if defined(__SSE2__)
    const __m128i block = _mm_load_si128(reinterpret_cast<const __m128i*>(g.print));
    auto match = static_cast<std::uint32_t>(
        _mm_movemask_epi8(_mm_cmpeq_epi8(block, _mm_set1_epi8(static_cast<char>(want)))));
#else
    std::uint32_t match = 0;
    for (std::uint32_t i = 0; i < kGroupSlots; ++i) match |= std::uint32_t{g.print[i] == want} << i;
#endif
    if (held - base < kGroupSlots) match &= (std::uint32_t{1} << (held - base)) - 1;
    for (; match != 0; match &= match - 1) {
      const std::uint32_t i = base + static_cast<std::uint32_t>(std::countr_zero(match));
      if (tags_[at(set, i)] == chunk) return i;
    }
  }
  return kNoSlot;
}

std::uint64_t SetAssociativeCache::next_random() {
  // xorshift64*: deterministic for a given seed, independent of any global state.
  rng_state_ ^= rng_state_ >> 12;
  rng_state_ ^= rng_state_ << 25;
  rng_state_ ^= rng_state_ >> 27;
  return rng_state_ * 0x2545f4914f6cdd1dull;
}

std::uint32_t SetAssociativeCache::choose_victim(std::uint64_t set, std::uint32_t keep) {
  const Group& h = head(set);
  const std::uint32_t others = h.chunks - (keep != kNoSlot ? 1 : 0);
  if (others == 0) return kNoSlot;
  if (spec_.replacement == Replacement::kRandom) {
    // Uniform over the held slots other than `keep`.
    auto slot = static_cast<std::uint32_t>(next_random() % others);
    if (keep != kNoSlot && slot >= keep) ++slot;
    return slot;
  }
  // LRU and FIFO: the oldest of the set's order, skipping `keep`.
  return h.oldest != keep ? h.oldest : newer(set, keep);
}

void SetAssociativeCache::append(std::uint64_t set, std::uint32_t slot, std::uint32_t ordered) {
  Group& h = head(set);
  if (ordered == 0) {
    h.oldest = h.newest = slot;
    return;
  }
  set_newer(set, h.newest, slot);
  set_older(set, slot, h.newest);
  h.newest = slot;
}

void SetAssociativeCache::make_newest(std::uint64_t set, std::uint32_t slot) {
  Group& h = head(set);
  if (h.newest == slot) return;
  // Not the newest, so it has a newer neighbour. The oldest end needs no link into it.
  const std::uint32_t next = newer(set, slot);
  if (h.oldest == slot) {
    h.oldest = next;
  } else {
    const std::uint32_t prev = older(set, slot);
    set_newer(set, prev, next);
    set_older(set, next, prev);
  }
  set_newer(set, h.newest, slot);
  set_older(set, slot, h.newest);
  h.newest = slot;
}

void SetAssociativeCache::unlink(std::uint64_t set, std::uint32_t slot) {
  Group& h = head(set);
  const bool is_oldest = h.oldest == slot;
  const bool is_newest = h.newest == slot;
  if (is_oldest && is_newest) return;  // the only one: the set is about to hold none
  if (is_oldest) {
    h.oldest = newer(set, slot);
  } else if (is_newest) {
    h.newest = older(set, slot);
  } else {
    const std::uint32_t prev = older(set, slot);
    const std::uint32_t next = newer(set, slot);
    set_newer(set, prev, next);
    set_older(set, next, prev);
  }
}

void SetAssociativeCache::relink(std::uint64_t set, std::uint32_t from, std::uint32_t to) {
  Group& h = head(set);
  // The order holds the set's slots [0, from] but the hole `to`, whose links are stale.
  const std::uint32_t prev = h.oldest == from ? kNoSlot
                             : wide_links_    ? links_[at(set, from)].older
                                              : predecessor(set, from, from + 1, to);
  const std::uint32_t next = h.newest == from ? kNoSlot : newer(set, from);
  if (prev == kNoSlot) {
    h.oldest = to;
  } else {
    set_older(set, to, prev);
    set_newer(set, prev, to);
  }
  if (next == kNoSlot) {
    h.newest = to;
  } else {
    set_newer(set, to, next);
    set_older(set, next, to);
  }
}

std::uint32_t SetAssociativeCache::make_room(std::uint64_t set, std::uint32_t keep, std::uint32_t sectors,
                                             AccessResult& r) {
  const Group& h = head(set);
  while (h.sectors + sectors > budget_sectors_) {
    const std::uint32_t victim = choose_victim(set, keep);
    if (victim == kNoSlot) break;  // unreachable: a chunk never exceeds the budget alone
    if (evict(set, victim, r) == keep) keep = victim;
  }
  return keep;
}

std::uint64_t SetAssociativeCache::sector_mask(std::uint64_t lo, std::uint64_t hi) const {
  const std::uint64_t s0 = lo >> sector_shift_;
  const std::uint64_t s1 = (hi - 1) >> sector_shift_;  // inclusive
  const std::uint64_t upto = s1 == 63 ? ~std::uint64_t{0} : (std::uint64_t{1} << (s1 + 1)) - 1;
  return upto & ~((std::uint64_t{1} << s0) - 1);
}

std::uint64_t SetAssociativeCache::overlap_bytes(std::uint64_t mask, std::uint64_t lo, std::uint64_t hi) const {
  std::uint64_t total = 0;
  while (mask != 0) {
    const auto s = static_cast<std::uint64_t>(std::countr_zero(mask));
    mask &= mask - 1;
    const std::uint64_t a = std::max(lo, s << sector_shift_);
    const std::uint64_t b = std::min(hi, (s + 1) << sector_shift_);
    if (b > a) total += b - a;
  }
  return total;
}

void SetAssociativeCache::append_runs(std::vector<Segment>& out, std::uint64_t base, std::uint64_t mask,
                                      std::uint64_t lo, std::uint64_t hi) const {
  while (mask != 0) {
    const auto start = static_cast<std::uint64_t>(std::countr_zero(mask));
    const auto len = static_cast<std::uint64_t>(std::countr_one(mask >> start));
    const std::uint64_t a = std::max(lo, start << sector_shift_);
    const std::uint64_t b = std::min(hi, (start + len) << sector_shift_);
    if (b > a) push_merged(out, base + a, b - a);
    mask = start + len >= 64 ? 0 : mask & ~((std::uint64_t{1} << (start + len)) - 1);
  }
}

std::uint32_t SetAssociativeCache::drop(std::uint64_t set, std::uint32_t slot, std::uint64_t mask) {
  Group& h = head(set);
  const Masks m = masks(set, slot);
  const std::uint64_t dropped = m.valid & mask;
  h.sectors -= static_cast<std::uint32_t>(std::popcount(dropped));
  if ((m.valid & ~dropped) != 0) {
    set_masks(set, slot, m.valid & ~dropped, m.dirty & ~dropped);
    return kNoSlot;
  }
  unlink(set, slot);
  const std::uint32_t last = h.chunks - 1;
  std::uint32_t moved = kNoSlot;
  if (last != slot) {
    // The last held slot moves into the hole, keeping its place in the order. What it leaves
    // behind is never read again before the slot is filled anew.
    tags_[at(set, slot)] = tags_[at(set, last)];
    const Group& from = group(set, last);
    Group& to = group(set, slot);
    to.print[slot % kGroupSlots] = from.print[last % kGroupSlots];
    to.presence[slot % kGroupSlots] = from.presence[last % kGroupSlots];
    if (to.presence[slot % kGroupSlots] == kInMasks) masks_[at(set, slot)] = masks_[at(set, last)];
    relink(set, last, slot);
    moved = last;
  }
  h.chunks = last;
  return moved;
}

template <class Result>
void SetAssociativeCache::write_back(std::uint64_t tag, std::uint64_t dirty, Result& result) {
  if (dirty == 0) return;
  append_runs(writebacks_, tag << chunk_shift_, dirty, 0, spec_.access_chunk_bytes);
  result.writeback_bytes += static_cast<std::uint64_t>(std::popcount(dirty)) << sector_shift_;
}

std::uint32_t SetAssociativeCache::fill_slot(std::uint64_t set, std::uint64_t chunk, std::uint32_t sectors,
                                             AccessResult& r) {
  Group& h = head(set);
  if (h.chunks == slots_per_set_ || h.sectors + sectors > budget_sectors_) {
    // The common case of a full set: the first victim's slot takes the new chunk in place, so
    // the set needs no compaction (which would move its last slot and relink its neighbours).
    const std::uint32_t slot = choose_victim(set, kNoSlot);
    const Masks m = masks(set, slot);
    ++r.evicted_chunks;
    write_back(tags_[at(set, slot)], m.dirty, r);
    h.sectors -= static_cast<std::uint32_t>(std::popcount(m.valid));
    set_masks(set, slot, 0, 0);
    set_tag(set, slot, chunk);
    make_newest(set, slot);  // FIFO order is fill order
    return make_room(set, slot, sectors, r);  // more victims when one was not enough
  }
  const std::uint32_t slot = h.chunks++;  // the first free slot
  set_tag(set, slot, chunk);
  set_masks(set, slot, 0, 0);
  append(set, slot, slot);
  return slot;
}

std::uint32_t SetAssociativeCache::evict(std::uint64_t set, std::uint32_t slot, AccessResult& result) {
  ++result.evicted_chunks;
  write_back(tags_[at(set, slot)], masks(set, slot).dirty, result);
  return drop(set, slot, full_mask_);
}

// The prefetch helpers are always inlined: a separate function whose only effect is a prefetch
// may be judged free of side effects by the compiler and its calls dropped (GCC 12 dropped
// prefetch_record so, and the misses it exists to hide came back).
[[gnu::always_inline]] inline void SetAssociativeCache::prefetch_set(std::uint64_t set) const {
  __builtin_prefetch(&head(set), 1);  // occupancy, order ends, the first 16 fingerprints, links, presence
}

[[gnu::always_inline]] inline void SetAssociativeCache::prefetch_record(std::uint64_t set,
                                                                         std::uint64_t chunk) const {
  // The tag a lookup of `chunk` will read: a slot whose fingerprint in the first group matches
  // (a hit, mostly), else the victim of a full set or the slot a fill takes. A guess from the
  // set's state now, which the chunks in between may change: no effect on results.
  const Group& h = head(set);
  std::uint32_t slot = h.chunks;
  if (slot != 0) {
#if defined(__SSE2__)
    const __m128i block = _mm_load_si128(reinterpret_cast<const __m128i*>(h.print));
    auto match = static_cast<std::uint32_t>(
        _mm_movemask_epi8(_mm_cmpeq_epi8(block, _mm_set1_epi8(static_cast<char>(fingerprint(chunk))))));
    if (slot < kGroupSlots) match &= (std::uint32_t{1} << slot) - 1;
    if (match != 0) {
      __builtin_prefetch(&tags_[at(set, static_cast<std::uint32_t>(std::countr_zero(match)))], 1);
      return;
    }
#endif
    if (slot == slots_per_set_ || h.sectors + sectors_per_chunk_ > budget_sectors_) slot = h.oldest;
  }
  if (slot < slots_per_set_) __builtin_prefetch(&tags_[at(set, slot)], 1);
}

void SetAssociativeCache::prefetch(std::uint64_t address) const {
  prefetch_set(set_index(address >> chunk_shift_));
}

// One chunk of an access, any part of it: the general path.
void SetAssociativeCache::access_part(std::uint64_t set, std::uint64_t chunk, std::uint64_t lo, std::uint64_t hi,
                                      const Plan& plan, AccessResult& r) {
  const std::uint64_t base = chunk << chunk_shift_;
  const std::uint64_t touch = sector_mask(lo, hi);
  std::uint32_t slot = find(set, chunk);
  const std::uint64_t present = slot != kNoSlot ? masks(set, slot).valid & touch : 0;
  std::uint64_t hit = 0;
  if (present == touch) {
    hit = hi - lo;
  } else if (present != 0) {
    hit = overlap_bytes(present, lo, hi);
  }
  r.hit_bytes += hit;
  r.miss_bytes += (hi - lo) - hit;
  ++(hit == hi - lo ? r.hit_chunks : r.miss_chunks);

  if (!plan.write) {
    append_runs(forwarded_, base, touch & ~present, lo, hi);
  } else if (plan.write_through) {
    push_merged(forwarded_, base + lo, hi - lo);
  }

  const auto added = static_cast<std::uint32_t>(std::popcount(touch & ~present));
  if (slot == kNoSlot && plan.allocate) {
    slot = fill_slot(set, chunk, added, r);
  } else if (slot != kNoSlot && added != 0) {
    slot = make_room(set, slot, added, r);
  }
  if (slot != kNoSlot) {
    const Masks m = masks(set, slot);
    set_masks(set, slot, m.valid | touch, plan.mark_dirty ? m.dirty | touch : m.dirty);
    head(set).sectors += added;
    if (plan.mark_dirty) mark_dirty_set(set);
    if (spec_.replacement == Replacement::kLru) make_newest(set, slot);
  }
}

// A whole chunk (every sector touched): the same decisions as access_part with touch = every
// sector, without the sector arithmetic. A chunk held in part takes the general path.
void SetAssociativeCache::access_whole(std::uint64_t set, std::uint64_t chunk, const Plan& plan, AccessResult& r) {
  const std::uint64_t base = chunk << chunk_shift_;
  const std::uint64_t bytes = spec_.access_chunk_bytes;
  std::uint32_t slot = find(set, chunk);
  if (slot != kNoSlot) {
    const Masks m = masks(set, slot);
    if (m.valid != full_mask_) {
      access_part(set, chunk, 0, bytes, plan, r);
      return;
    }
    r.hit_bytes += bytes;
    ++r.hit_chunks;
    if (plan.write_through) push_merged(forwarded_, base, bytes);
    if (plan.mark_dirty) {
      set_masks(set, slot, full_mask_, full_mask_);
      mark_dirty_set(set);
    }
    if (spec_.replacement == Replacement::kLru) make_newest(set, slot);
    return;
  }
  r.miss_bytes += bytes;
  ++r.miss_chunks;
  if (!plan.write || plan.write_through) push_merged(forwarded_, base, bytes);
  if (!plan.allocate) return;
  // fill_slot leaves the chunk the newest of its set (further victims are other slots, and a
  // slot that moves keeps its place in the order), so LRU has nothing more to do.
  slot = fill_slot(set, chunk, sectors_per_chunk_, r);
  set_masks(set, slot, full_mask_, plan.mark_dirty ? full_mask_ : 0);
  head(set).sectors += sectors_per_chunk_;
  if (plan.mark_dirty) mark_dirty_set(set);
}

void SetAssociativeCache::access_whole_run(std::uint64_t first, std::uint64_t end, const Plan& plan,
                                           AccessResult& r) {
  // Locals, not members: the one-byte stores into the groups may alias anything, and would
  // make the compiler reload every member after each of them.
  Group* const groups = groups_.data();
  std::uint64_t* const tags = tags_.data();
  const std::uint64_t sets = num_sets_;
  const std::uint64_t set_mask = set_mask_;
  const bool hash = spec_.set_indexing == SetIndexing::kHash;
  const std::uint32_t slots = slots_per_set_;
  const std::uint32_t sectors = sectors_per_chunk_;
  const std::uint32_t budget = budget_sectors_;
  const std::uint64_t bytes = spec_.access_chunk_bytes;
  const std::uint32_t shift = chunk_shift_;
  const bool lru = spec_.replacement == Replacement::kLru;
  const bool fingerprints = fingerprint_find_;
  const bool forward_hit = plan.write_through;
  const bool forward_miss = !plan.write || plan.write_through;
  const bool allocate = plan.allocate;
  const bool mark_dirty = plan.mark_dirty;
  const std::uint8_t filled = mark_dirty ? kWholeDirty : kWholeClean;
  auto set_of_chunk = [&](std::uint64_t chunk) {
    const std::uint64_t key = hash ? mix(chunk) : chunk;
    return set_mask != 0 ? key & set_mask : key % sets;
  };
  auto link_group = [&](std::uint64_t set, std::uint32_t slot) -> Group& {
    return groups[slot / kGroupSlots * sets + set];
  };
  // The held slots of the set's first group whose fingerprint is `print`, one bit each.
  auto first_group_matches = [](const Group& h, std::uint8_t print) {
#if defined(__SSE2__)
    const __m128i block = _mm_load_si128(reinterpret_cast<const __m128i*>(h.print));
    auto match = static_cast<std::uint32_t>(
        _mm_movemask_epi8(_mm_cmpeq_epi8(block, _mm_set1_epi8(static_cast<char>(print)))));
#else
    std::uint32_t match = 0;
    for (std::uint32_t i = 0; i < kGroupSlots; ++i) match |= std::uint32_t{h.print[i] == print} << i;
#endif
    if (h.chunks < kGroupSlots) match &= (std::uint32_t{1} << h.chunks) - 1;
    return match;
  };
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t evicted = 0;
  // The forwarded range being built (consecutive chunks whose bytes go on), pushed whole when
  // the next one does not continue it: the same segments as pushing chunk by chunk.
  std::uint64_t run_begin = 0;
  std::uint64_t run_end = 0;
  auto forward = [&](std::uint64_t base) {
    if (run_end == base && run_end != run_begin) {
      run_end += bytes;
      return;
    }
    if (run_end != run_begin) push_merged(forwarded_, run_begin, run_end - run_begin);
    run_begin = base;
    run_end = base + bytes;
  };
  auto flush_forward = [&] {
    if (run_end != run_begin) push_merged(forwarded_, run_begin, run_end - run_begin);
    run_begin = run_end = 0;
  };

  // Chunks land on unrelated sets, so the loop is bound by memory latency: the state of the
  // sets a few chunks ahead is requested while this one is handled, in two stages (the set's
  // first group kAheadSet chunks ahead; kAheadRecord ahead, from that group, the tag the lookup
  // will read: a slot whose fingerprint matches, else the victim or the free slot). The set
  // and fingerprint of each chunk are computed once, into small rings. A guess from the state
  // at the time, which the chunks in between may change: no effect on results.
  constexpr std::uint64_t kAheadSet = 16;
  constexpr std::uint64_t kAheadRecord = 8;
  constexpr std::uint64_t kRing = 32;  // a power of two above kAheadSet
  std::uint64_t ring_set[kRing];
  std::uint8_t ring_print[kRing];
  // Always inlined (see prefetch_set): a lambda whose only effect were a prefetch could be
  // judged free of side effects and dropped.
  auto stage_set = [&](std::uint64_t chunk) __attribute__((always_inline)) {
    const std::uint64_t set = set_of_chunk(chunk);
    ring_set[chunk & (kRing - 1)] = set;
    ring_print[chunk & (kRing - 1)] = fingerprint(chunk);
    __builtin_prefetch(&groups[set], 1);
  };
  auto stage_record = [&](std::uint64_t chunk) __attribute__((always_inline)) {
    const std::uint64_t set = ring_set[chunk & (kRing - 1)];
    const Group& h = groups[set];
    std::uint32_t slot = h.chunks;
    if (slot != 0) {
      const std::uint32_t match = first_group_matches(h, ring_print[chunk & (kRing - 1)]);
      if (match != 0) {
        slot = static_cast<std::uint32_t>(std::countr_zero(match));
      } else if (slot == slots || h.sectors + sectors > budget) {
        slot = h.oldest;
      }
    }
    if (slot < slots) __builtin_prefetch(&tags[slot * sets + set], 1);
  };
  // The first chunks have no lead: both stages are asked for at once, so that at least their
  // misses overlap (the second stage's reads of independent groups proceed in parallel).
  for (std::uint64_t c = first; c < end && c < first + kAheadSet; ++c) stage_set(c);
  for (std::uint64_t c = first; c < end && c < first + kAheadRecord; ++c) stage_record(c);

  for (std::uint64_t chunk = first; chunk < end; ++chunk) {
    if (chunk + kAheadSet < end) stage_set(chunk + kAheadSet);
    if (chunk + kAheadRecord < end) stage_record(chunk + kAheadRecord);
    const std::uint64_t set = ring_set[chunk & (kRing - 1)];
    const std::uint8_t print = ring_print[chunk & (kRing - 1)];
    const std::uint64_t base = chunk << shift;
    Group& h = groups[set];
    const std::uint32_t held = h.chunks;

    // The lookup: the first group's fingerprints inline, a set of more than 16 chunks (sparse
    // chunks only) through the general search. The same slot either way (tags are unique).
    std::uint32_t slot = kNoSlot;
    if (fingerprints && held <= kGroupSlots) {
      for (std::uint32_t match = first_group_matches(h, print); match != 0; match &= match - 1) {
        const auto i = static_cast<std::uint32_t>(std::countr_zero(match));
        if (tags[i * sets + set] == chunk) {
          slot = i;
          break;
        }
      }
    } else {
      slot = find(set, chunk);
    }

    if (slot != kNoSlot) {
      Group& g = link_group(set, slot);
      std::uint8_t& presence = g.presence[slot % kGroupSlots];
      if (presence == kInMasks) {  // held in part, or dirty in part: the general path
        flush_forward();
        access_part(set, chunk, 0, bytes, plan, r);
        continue;
      }
      ++hits;
      if (forward_hit) forward(base);
      if (mark_dirty) {
        presence = kWholeDirty;
        mark_dirty_set(set);
      }
      if (lru && h.newest != slot) {  // make_newest: out of its place, onto the newest end
        const std::uint32_t next = g.newer[slot % kGroupSlots];
        if (h.oldest == slot) {
          h.oldest = next;
        } else {
          std::uint32_t prev;
          if (held <= kGroupSlots) {  // predecessor() within the one group, inline
#if defined(__SSE2__)
            const __m128i links = _mm_load_si128(reinterpret_cast<const __m128i*>(h.newer));
            auto match = static_cast<std::uint32_t>(
                _mm_movemask_epi8(_mm_cmpeq_epi8(links, _mm_set1_epi8(static_cast<char>(slot)))));
#else
            std::uint32_t match = 0;
            for (std::uint32_t i = 0; i < kGroupSlots; ++i) match |= std::uint32_t{h.newer[i] == slot} << i;
#endif
            if (held < kGroupSlots) match &= (std::uint32_t{1} << held) - 1;
            match &= ~(std::uint32_t{1} << h.newest);  // the newest's link is stale
            prev = static_cast<std::uint32_t>(std::countr_zero(match));
          } else {
            prev = predecessor(set, slot, held, kNoSlot);
          }
          link_group(set, prev).newer[prev % kGroupSlots] = static_cast<std::uint8_t>(next);
        }
        const std::uint32_t newest = h.newest;
        link_group(set, newest).newer[newest % kGroupSlots] = static_cast<std::uint8_t>(slot);
        h.newest = slot;
      }
      continue;
    }

    ++misses;
    if (forward_miss) forward(base);
    if (!allocate) continue;
    if (held == slots || h.sectors + sectors > budget) {
      // fill_slot's full set: the oldest chunk's slot takes this one in place and becomes the
      // newest (FIFO order is fill order too).
      slot = h.oldest;
      Group& g = link_group(set, slot);
      std::uint64_t& tag = tags[slot * sets + set];
      ++evicted;
      switch (g.presence[slot % kGroupSlots]) {
        case kWholeClean:
          h.sectors -= sectors;
          break;
        case kWholeDirty:
          write_back(tag, full_mask_, r);
          h.sectors -= sectors;
          break;
        default: {
          const Masks m = masks_[slot * sets + set];
          write_back(tag, m.dirty, r);
          h.sectors -= static_cast<std::uint32_t>(std::popcount(m.valid));
        }
      }
      tag = chunk;
      g.print[slot % kGroupSlots] = print;
      if (h.newest != slot) {  // it is the oldest, so it has a newer neighbour
        const std::uint32_t newest = h.newest;
        h.oldest = g.newer[slot % kGroupSlots];
        link_group(set, newest).newer[newest % kGroupSlots] = static_cast<std::uint8_t>(slot);
        h.newest = slot;
      }
      // One victim is not enough when it held fewer sectors than a whole chunk needs (as
      // fill_slot, with the new chunk present in no sector meanwhile).
      if (h.sectors + sectors > budget) {
        set_masks(set, slot, 0, 0);
        slot = make_room(set, slot, sectors, r);
      }
    } else {
      slot = held;  // the first free slot, appended at the newest end
      h.chunks = held + 1;
      tags[slot * sets + set] = chunk;
      link_group(set, slot).print[slot % kGroupSlots] = print;
      if (held == 0) {
        h.oldest = h.newest = slot;
      } else {
        const std::uint32_t newest = h.newest;
        link_group(set, newest).newer[newest % kGroupSlots] = static_cast<std::uint8_t>(slot);
        h.newest = slot;
      }
    }
    link_group(set, slot).presence[slot % kGroupSlots] = filled;
    h.sectors += sectors;
    if (mark_dirty) mark_dirty_set(set);
  }
  flush_forward();
  r.hit_chunks += hits;
  r.hit_bytes += hits * bytes;
  r.miss_chunks += misses;
  r.miss_bytes += misses * bytes;
  r.evicted_chunks += evicted;
}

SetAssociativeCache::Plan SetAssociativeCache::plan_for(AccessKind kind) const {
  Plan plan;
  plan.write = kind == AccessKind::kWrite;
  plan.write_through = plan.write && spec_.write_policy != WritePolicy::kWriteBackAllocate;
  plan.allocate = !plan.write || spec_.write_policy != WritePolicy::kWriteThroughNoAllocate;
  plan.mark_dirty = plan.write && spec_.write_policy == WritePolicy::kWriteBackAllocate;
  return plan;
}

void SetAssociativeCache::walk(std::uint64_t address, std::uint64_t bytes, const Plan& plan, AccessResult& r) {
  if (bytes != 0) {
    const std::uint64_t end = address + bytes;
    const std::uint64_t first_chunk = address >> chunk_shift_;
    const std::uint64_t last_chunk = (end - 1) >> chunk_shift_;
    const std::uint64_t chunk_bytes = spec_.access_chunk_bytes;
    if (whole_chunk_path_ && !wide_links_ && spec_.replacement != Replacement::kRandom) {
      // A partial first chunk, the whole ones in one run, a partial last chunk: in the order
      // of the chunks, as the walk below.
      std::uint64_t chunk = first_chunk;
      const std::uint64_t first_base = first_chunk << chunk_shift_;
      const std::uint64_t first_hi = first_chunk == last_chunk ? end - first_base : chunk_bytes;
      if (address != first_base || first_hi != chunk_bytes) {
        access_part(set_index(chunk), chunk, address - first_base, first_hi, plan, r);
        ++chunk;
      }
      const std::uint64_t last_base = last_chunk << chunk_shift_;
      const bool partial_last = chunk <= last_chunk && end - last_base != chunk_bytes;
      const std::uint64_t whole_end = partial_last ? last_chunk : last_chunk + 1;
      if (chunk < whole_end) access_whole_run(chunk, whole_end, plan, r);
      if (partial_last) access_part(set_index(last_chunk), last_chunk, 0, end - last_base, plan, r);
    } else {
      // Chunk by chunk, with the set state of the chunks a few ahead requested early (see
      // access_whole_run). No effect on results.
      constexpr std::uint64_t kAheadSet = 16;
      constexpr std::uint64_t kAheadRecord = 8;
      constexpr std::uint64_t kRing = 32;
      std::uint64_t sets[kRing];
      for (std::uint64_t c = first_chunk; c <= last_chunk && c < first_chunk + kAheadSet; ++c) {
        sets[c & (kRing - 1)] = set_index(c);
        prefetch_set(sets[c & (kRing - 1)]);
      }
      for (std::uint64_t chunk = first_chunk; chunk <= last_chunk; ++chunk) {
        const std::uint64_t set = sets[chunk & (kRing - 1)];
        if (chunk + kAheadSet <= last_chunk) {
          const std::uint64_t ahead = set_index(chunk + kAheadSet);
          sets[(chunk + kAheadSet) & (kRing - 1)] = ahead;
          prefetch_set(ahead);
        }
        if (chunk + kAheadRecord <= last_chunk) {
          prefetch_record(sets[(chunk + kAheadRecord) & (kRing - 1)], chunk + kAheadRecord);
        }
        const std::uint64_t base = chunk << chunk_shift_;
        const std::uint64_t lo = chunk == first_chunk ? address - base : 0;
        const std::uint64_t hi = chunk == last_chunk ? end - base : chunk_bytes;
        if (whole_chunk_path_ && lo == 0 && hi == chunk_bytes) {
          access_whole(set, chunk, plan, r);
        } else {
          access_part(set, chunk, lo, hi, plan, r);
        }
      }
    }
  }

}

AccessResult SetAssociativeCache::access(std::uint64_t address, std::uint64_t bytes, AccessKind kind) {
  forwarded_.clear();
  writebacks_.clear();
  AccessResult r;
  r.requested_bytes = bytes;
  walk(address, bytes, plan_for(kind), r);
  for (const Segment& s : forwarded_) r.forwarded_bytes += s.bytes;
  r.forwarded = forwarded_;
  r.writebacks = writebacks_;
  stats_.record(r, kind);
  return r;
}

AccessResult SetAssociativeCache::access_each(std::span<const Segment> segments, AccessKind kind) {
  const Plan plan = plan_for(kind);
  AccessResult total;
  // Within a short segment there is nothing to look ahead at: the first set of the segments a
  // few ahead is asked for in the walk's two stages instead. No effect on results.
  constexpr std::size_t kAheadSet = 16;
  constexpr std::size_t kAheadRecord = 8;
  const std::size_t n = segments.size();
  // Always inlined, as the prefetch helpers (see prefetch_set): a lambda whose only effect is a
  // prefetch is a function the compiler may judge free of side effects and drop.
  auto stage_set = [&](std::size_t i) __attribute__((always_inline)) {
    prefetch_set(set_index(segments[i].address >> chunk_shift_));
  };
  auto stage_record = [&](std::size_t i) __attribute__((always_inline)) {
    const std::uint64_t chunk = segments[i].address >> chunk_shift_;
    prefetch_record(set_index(chunk), chunk);
  };
  for (std::size_t i = 0; i < n && i < kAheadSet; ++i) stage_set(i);
  for (std::size_t i = 0; i < n && i < kAheadRecord; ++i) stage_record(i);
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kAheadSet < n) stage_set(i + kAheadSet);
    if (i + kAheadRecord < n) stage_record(i + kAheadRecord);
    forwarded_.clear();
    writebacks_.clear();
    total.requested_bytes += segments[i].bytes;
    walk(segments[i].address, segments[i].bytes, plan, total);
    for (const Segment& s : forwarded_) total.forwarded_bytes += s.bytes;
  }
  forwarded_.clear();
  writebacks_.clear();
  stats_.record(total, kind);
  return total;
}

std::uint32_t SetAssociativeCache::maintain(std::uint64_t set, std::uint32_t slot, std::uint64_t mask, Op op,
                                            MaintenanceResult& result) {
  const Masks m = masks(set, slot);
  const std::uint64_t dirty = m.dirty & mask;
  write_back(tags_[at(set, slot)], dirty, result);
  if (dirty != 0) set_masks(set, slot, m.valid, m.dirty & ~dirty);
  if (op == Op::kInvalidate) {
    result.invalidated_bytes += static_cast<std::uint64_t>(std::popcount(m.valid & mask)) << sector_shift_;
    return drop(set, slot, mask);
  }
  return kNoSlot;
}

MaintenanceResult SetAssociativeCache::maintain_range(std::uint64_t address, std::uint64_t bytes, Op op) {
  writebacks_.clear();
  MaintenanceResult r;
  if (bytes != 0) {
    const std::uint64_t end = address + bytes;
    const std::uint64_t first_chunk = address >> chunk_shift_;
    const std::uint64_t last_chunk = (end - 1) >> chunk_shift_;
    if (last_chunk - first_chunk >= num_sets_ * slots_per_set_) {
      // A range larger than the cache: scanning every held slot is cheaper than every chunk.
      for (std::uint64_t set = 0; set < num_sets_; ++set) {
        for (std::uint32_t slot = 0; slot < head(set).chunks;) {
          const std::uint64_t tag = tags_[at(set, slot)];
          if (tag < first_chunk || tag > last_chunk) {
            ++slot;
            continue;
          }
          const std::uint64_t base = tag << chunk_shift_;
          const std::uint64_t lo = std::max(address, base) - base;
          const std::uint64_t hi = std::min<std::uint64_t>(end - base, spec_.access_chunk_bytes);
          // When the slot emptied, the set's last chunk moved into it: look at it again. (When
          // the emptied slot was the last, the loop ends either way.)
          if (maintain(set, slot, sector_mask(lo, hi), op, r) == kNoSlot) ++slot;
        }
      }
    } else {
      // Chunk by chunk, with the state of the chunks ahead asked for in two stages, as an
      // access does (an acquire invalidates hundreds of chunks). No effect on results.
      constexpr std::uint64_t kAheadSet = 16;
      constexpr std::uint64_t kAheadRecord = 8;
      auto stage_set = [&](std::uint64_t chunk) __attribute__((always_inline)) { prefetch_set(set_index(chunk)); };
      auto stage_record = [&](std::uint64_t chunk) __attribute__((always_inline)) {
        prefetch_record(set_index(chunk), chunk);
      };
      for (std::uint64_t c = first_chunk; c <= last_chunk && c < first_chunk + kAheadSet; ++c) stage_set(c);
      for (std::uint64_t c = first_chunk; c <= last_chunk && c < first_chunk + kAheadRecord; ++c) stage_record(c);
      for (std::uint64_t chunk = first_chunk; chunk <= last_chunk; ++chunk) {
        if (chunk + kAheadSet <= last_chunk) stage_set(chunk + kAheadSet);
        if (chunk + kAheadRecord <= last_chunk) stage_record(chunk + kAheadRecord);
        const std::uint64_t base = chunk << chunk_shift_;
        const std::uint64_t lo = chunk == first_chunk ? address - base : 0;
        const std::uint64_t hi = chunk == last_chunk ? end - base : spec_.access_chunk_bytes;
        const std::uint64_t set = set_index(chunk);
        const std::uint32_t slot = find(set, chunk);
        if (slot != kNoSlot) maintain(set, slot, sector_mask(lo, hi), op, r);
      }
    }
  }
  r.writebacks = writebacks_;
  stats_.record(r);
  return r;
}

MaintenanceResult SetAssociativeCache::invalidate(std::uint64_t address, std::uint64_t bytes) {
  return maintain_range(address, bytes, Op::kInvalidate);
}

MaintenanceResult SetAssociativeCache::flush(std::uint64_t address, std::uint64_t bytes) {
  return maintain_range(address, bytes, Op::kFlush);
}

MaintenanceResult SetAssociativeCache::flush() {
  writebacks_.clear();
  MaintenanceResult r;
  // Only the sets a write marked dirty since the last flush, in the order of a scan of every
  // set (a release flushes its L2, most often with nothing or little dirty in it).
  for (std::size_t word = 0; word < dirty_sets_.size(); ++word) {
    for (std::uint64_t bits = std::exchange(dirty_sets_[word], 0); bits != 0; bits &= bits - 1) {
      const std::uint64_t set = word * 64 + static_cast<std::uint64_t>(std::countr_zero(bits));
      const std::uint32_t held = head(set).chunks;
      for (std::uint32_t base = 0; base < held; base += kGroupSlots) {
        // A group's slots that may be dirty (whole and dirty, or spelt out in masks_), in order.
        const Group& g = groups_[base / kGroupSlots * num_sets_ + set];
#if defined(__SSE2__)
        const __m128i presence = _mm_load_si128(reinterpret_cast<const __m128i*>(g.presence));
        auto candidates = static_cast<std::uint32_t>(
            ~_mm_movemask_epi8(_mm_cmpeq_epi8(presence, _mm_set1_epi8(static_cast<char>(kWholeClean)))) & 0xffff);
#else
        std::uint32_t candidates = 0;
        for (std::uint32_t i = 0; i < kGroupSlots; ++i) {
          candidates |= std::uint32_t{g.presence[i] != kWholeClean} << i;
        }
#endif
        if (held - base < kGroupSlots) candidates &= (std::uint32_t{1} << (held - base)) - 1;
        for (; candidates != 0; candidates &= candidates - 1) {
          const std::uint32_t slot = base + static_cast<std::uint32_t>(std::countr_zero(candidates));
          if (masks(set, slot).dirty != 0) maintain(set, slot, full_mask_, Op::kFlush, r);
        }
      }
    }
  }
  r.writebacks = writebacks_;
  stats_.record(r);
  return r;
}

void SetAssociativeCache::reset() {
  for (std::uint64_t set = 0; set < num_sets_; ++set) {
    Group& h = head(set);
    h.chunks = 0;
    h.sectors = 0;
  }
  std::fill(dirty_sets_.begin(), dirty_sets_.end(), 0);
  rng_state_ = mix(spec_.random_seed) | 1;
}

bool SetAssociativeCache::contains(std::uint64_t address, std::uint64_t bytes) const {
  const std::uint64_t end = address + bytes;
  for (std::uint64_t a = address; a < end;) {
    const std::uint64_t chunk = a >> chunk_shift_;
    const std::uint64_t base = chunk << chunk_shift_;
    const std::uint64_t hi = std::min<std::uint64_t>(end - base, spec_.access_chunk_bytes);
    const std::uint64_t touch = sector_mask(a - base, hi);
    const std::uint64_t set = set_index(chunk);
    const std::uint32_t slot = find(set, chunk);
    if (slot == kNoSlot || (masks(set, slot).valid & touch) != touch) return false;
    a = base + hi;
  }
  return true;
}

std::uint64_t SetAssociativeCache::resident_bytes() const {
  std::uint64_t sectors = 0;
  for (std::uint64_t set = 0; set < num_sets_; ++set) sectors += head(set).sectors;
  return sectors << sector_shift_;
}

std::uint64_t SetAssociativeCache::dirty_bytes() const {
  std::uint64_t sectors = 0;
  for (std::uint64_t set = 0; set < num_sets_; ++set) {
    for (std::uint32_t slot = 0; slot < head(set).chunks; ++slot) {
      sectors += static_cast<std::uint64_t>(std::popcount(masks(set, slot).dirty));
    }
  }
  return sectors << sector_shift_;
}

}  // namespace tessera::models::cache

#include "reference_cache.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tessera::models::cache::testing {
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

ReferenceCache::ReferenceCache(const CacheSpec& spec)
    : spec_(checked(spec)),
      num_sets_(spec.num_sets()),
      chunk_shift_(static_cast<std::uint32_t>(std::countr_zero(spec.access_chunk_bytes))),
      line_shift_(static_cast<std::uint32_t>(std::countr_zero(spec.line_bytes))),
      sector_shift_(std::max(line_shift_, chunk_shift_ > 6 ? chunk_shift_ - 6 : 0u)),
      set_mask_(std::has_single_bit(num_sets_) ? num_sets_ - 1 : 0),
      full_mask_(0),
      slots_per_set_(0),
      budget_sectors_(0),
      rng_state_(mix(spec.random_seed) | 1) {
  const std::uint32_t sectors = std::uint32_t{1} << (chunk_shift_ - sector_shift_);
  full_mask_ = sectors == kMaxSectorsPerChunk ? ~std::uint64_t{0} : (std::uint64_t{1} << sectors) - 1;
  // More slots than sectors per chunk can never be filled (every held chunk has >= 1 sector).
  slots_per_set_ = std::size_t{spec.ways} * std::min(spec.sparse_tag_factor, sectors);
  budget_sectors_ = spec.ways * sectors;
  sectors_per_chunk_ = sectors;
  tags_.assign(num_sets_ * slots_per_set_, kNoTag);
  order_.assign(tags_.size(), Link{});
  meta_.assign(tags_.size(), Meta{});
  // Padded: a lookup reads 16 fingerprints from a set's first, masking off those past its held slots.
  fingerprints_.assign(tags_.size() + kFingerprintPad, 0);
  use_.assign(num_sets_, SetUse{});
}

std::uint64_t ReferenceCache::state_bytes(const CacheSpec& spec) {
  if (spec.validate()) return 0;  // an absent (0 B) or invalid cache is never built
  // The same geometry as the constructor's.
  const auto chunk_shift = static_cast<std::uint32_t>(std::countr_zero(spec.access_chunk_bytes));
  const auto line_shift = static_cast<std::uint32_t>(std::countr_zero(spec.line_bytes));
  const std::uint32_t sector_shift = std::max(line_shift, chunk_shift > 6 ? chunk_shift - 6 : 0u);
  const std::uint32_t sectors = std::uint32_t{1} << (chunk_shift - sector_shift);
  const std::uint64_t slots_per_set = std::uint64_t{spec.ways} * std::min(spec.sparse_tag_factor, sectors);
  __extension__ typedef unsigned __int128 Wide;
  const Wide sets = spec.num_sets();
  const Wide bytes = sets * slots_per_set * (sizeof(std::uint64_t) + sizeof(Link) + sizeof(Meta) + 1) +
                     sets * sizeof(SetUse);
  return bytes > Wide{~std::uint64_t{0}} ? ~std::uint64_t{0} : static_cast<std::uint64_t>(bytes);
}

void ReferenceCache::attach_stats(sim::stats::StatRegistry& registry, std::string_view prefix) {
  stats_ = CacheStats::register_in(registry, prefix);
}

std::uint64_t ReferenceCache::set_index(std::uint64_t chunk) const {
  const std::uint64_t key = spec_.set_indexing == SetIndexing::kHash ? mix(chunk) : chunk;
  // A mask when the set count is a power of two (every preset): a 64-bit division costs tens of
  // cycles and this runs for every chunk of every access, several times with the look-ahead.
  return set_mask_ != 0 ? key & set_mask_ : key % num_sets_;
}

std::uint8_t ReferenceCache::fingerprint(std::uint64_t chunk) {
  // The top byte of a multiplicative hash: every bit of the chunk index moves it (the low bits
  // alone would be equal across a set under modulo indexing).
  return static_cast<std::uint8_t>((chunk * 0x9e3779b97f4a7c15ull) >> 56);
}

void ReferenceCache::set_tag(std::size_t slot, std::uint64_t chunk) {
  tags_[slot] = chunk;
  fingerprints_[slot] = fingerprint(chunk);
}

std::size_t ReferenceCache::find(std::uint64_t set, std::uint64_t chunk) const {
  const std::size_t first = set * slots_per_set_;
  const std::uint64_t* tags = tags_.data() + first;
  const SetUse& use = use_[set];
  // The set's newest chunk first: streams that many workgroups read in step (attention's K and
  // V, a GEMM's shared tiles) touch a chunk again before anything else enters its set. Tags are
  // unique in a set, so this finds the same slot as the scan.
  if (use.newest != kNil && tags[use.newest] == chunk) return first + use.newest;
  if (fingerprint_find_) return find_by_fingerprint(set, chunk);
  const std::size_t held = use.chunks;
  for (std::size_t i = 0; i < held; ++i) {
    if (tags[i] == chunk) return first + i;
  }
  return kNoSlot;
}

// The held slots whose fingerprint matches, 16 at a time, then their tags: the slot the scan
// finds (tags are unique in a set), with about one tag compare per lookup.
std::size_t ReferenceCache::find_by_fingerprint(std::uint64_t set, std::uint64_t chunk) const {
  const std::size_t first = set * slots_per_set_;
  const std::uint64_t* tags = tags_.data() + first;
  const std::size_t held = use_[set].chunks;
  const std::uint8_t* prints = fingerprints_.data() + first;
  const std::uint8_t want = fingerprint(chunk);
#if defined(__SSE2__)
  const __m128i key = _mm_set1_epi8(static_cast<char>(want));
  for (std::size_t base = 0; base < held; base += 16) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(prints + base));
    auto match = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(block, key)));
    if (held - base < 16) match &= (std::uint32_t{1} << (held - base)) - 1;
    while (match != 0) {
      const std::size_t i = base + static_cast<std::size_t>(std::countr_zero(match));
      if (tags[i] == chunk) return first + i;
      match &= match - 1;
    }
  }
#else
  for (std::size_t i = 0; i < held; ++i) {
    if (prints[i] == want && tags[i] == chunk) return first + i;
  }
#endif
  return kNoSlot;
}

std::uint64_t ReferenceCache::next_random() {
  // xorshift64*: deterministic for a given seed, independent of any global state.
  rng_state_ ^= rng_state_ >> 12;
  rng_state_ ^= rng_state_ << 25;
  rng_state_ ^= rng_state_ >> 27;
  return rng_state_ * 0x2545f4914f6cdd1dull;
}

std::size_t ReferenceCache::choose_victim(std::uint64_t set, std::size_t keep) {
  const std::size_t first = set * slots_per_set_;
  const SetUse& use = use_[set];
  const std::size_t others = use.chunks - (keep != kNoSlot ? 1 : 0);
  if (others == 0) return kNoSlot;
  if (spec_.replacement == Replacement::kRandom) {
    // Uniform over the held slots other than `keep`.
    std::size_t slot = first + next_random() % others;
    if (keep != kNoSlot && slot >= keep) ++slot;
    return slot;
  }
  // LRU and FIFO: the oldest of the set's order, skipping `keep`.
  std::uint32_t victim = use.oldest;
  if (keep != kNoSlot && first + victim == keep) victim = order_[keep].newer;
  return first + victim;
}

void ReferenceCache::unlink(std::uint64_t set, std::size_t slot) {
  const std::size_t first = set * slots_per_set_;
  SetUse& use = use_[set];
  const Link link = order_[slot];
  (link.older != kNil ? order_[first + link.older].newer : use.oldest) = link.newer;
  (link.newer != kNil ? order_[first + link.newer].older : use.newest) = link.older;
  order_[slot] = Link{};
}

void ReferenceCache::make_newest(std::uint64_t set, std::size_t slot) {
  const std::size_t first = set * slots_per_set_;
  const auto local = static_cast<std::uint32_t>(slot - first);
  SetUse& use = use_[set];
  if (use.newest == local) return;
  if (order_[slot].older != kNil || order_[slot].newer != kNil || use.oldest == local) unlink(set, slot);
  order_[slot] = Link{use.newest, kNil};
  (use.newest != kNil ? order_[first + use.newest].newer : use.oldest) = local;
  use.newest = local;
}

std::size_t ReferenceCache::make_room(std::uint64_t set, std::size_t keep, std::uint32_t sectors,
                                           bool need_slot, AccessResult& r) {
  SetUse& use = use_[set];
  while (use.sectors + sectors > budget_sectors_ || (need_slot && use.chunks == slots_per_set_)) {
    const std::size_t victim = choose_victim(set, keep);
    if (victim == kNoSlot) break;  // unreachable: a chunk never exceeds the budget alone
    if (evict(victim, r) == keep) keep = victim;
  }
  return keep;
}

std::uint64_t ReferenceCache::sector_mask(std::uint64_t lo, std::uint64_t hi) const {
  const std::uint64_t s0 = lo >> sector_shift_;
  const std::uint64_t s1 = (hi - 1) >> sector_shift_;  // inclusive
  const std::uint64_t upto = s1 == 63 ? ~std::uint64_t{0} : (std::uint64_t{1} << (s1 + 1)) - 1;
  return upto & ~((std::uint64_t{1} << s0) - 1);
}

std::uint64_t ReferenceCache::overlap_bytes(std::uint64_t mask, std::uint64_t lo, std::uint64_t hi) const {
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

void ReferenceCache::append_runs(std::vector<Segment>& out, std::uint64_t base, std::uint64_t mask,
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

std::size_t ReferenceCache::drop(std::size_t slot, std::uint64_t mask) {
  const std::uint64_t set = slot / slots_per_set_;
  Meta& m = meta_[slot];
  SetUse& use = use_[set];
  const std::uint64_t dropped = m.valid & mask;
  use.sectors -= static_cast<std::uint32_t>(std::popcount(dropped));
  m.valid &= ~dropped;
  m.dirty &= ~dropped;
  if (m.valid != 0) return kNoSlot;
  unlink(set, slot);
  const std::size_t first = set * slots_per_set_;
  const std::size_t last = first + use.chunks - 1;
  --use.chunks;
  std::size_t moved = kNoSlot;
  if (last != slot) {
    // The last held slot moves into the hole, keeping its place in the order.
    set_tag(slot, tags_[last]);
    meta_[slot] = meta_[last];
    const Link link = order_[last];
    order_[slot] = link;
    const auto local = static_cast<std::uint32_t>(slot - first);
    (link.older != kNil ? order_[first + link.older].newer : use.oldest) = local;
    (link.newer != kNil ? order_[first + link.newer].older : use.newest) = local;
    moved = last;
  }
  tags_[last] = kNoTag;
  order_[last] = Link{};
  meta_[last] = Meta{};
  return moved;
}

template <class Result>
void ReferenceCache::write_back(std::size_t slot, std::uint64_t dirty, Result& result) {
  if (dirty == 0) return;
  append_runs(writebacks_, tags_[slot] << chunk_shift_, dirty, 0, spec_.access_chunk_bytes);
  result.writeback_bytes += static_cast<std::uint64_t>(std::popcount(dirty)) << sector_shift_;
}

std::size_t ReferenceCache::fill_slot(std::uint64_t set, std::uint64_t chunk, std::uint32_t sectors,
                                          AccessResult& r) {
  SetUse& use = use_[set];
  std::size_t slot = kNoSlot;
  if (use.chunks == slots_per_set_ || use.sectors + sectors > budget_sectors_) {
    // The common case of a full set: the first victim's slot takes the new chunk in place, so
    // the set needs no compaction (which would move its last slot and relink its neighbours).
    slot = choose_victim(set, kNoSlot);
    Meta& m = meta_[slot];
    ++r.evicted_chunks;
    write_back(slot, m.dirty, r);
    use.sectors -= static_cast<std::uint32_t>(std::popcount(m.valid));
    m = Meta{};
    set_tag(slot, chunk);
    make_newest(set, slot);  // FIFO order is fill order
    return make_room(set, slot, sectors, false, r);  // more victims when one was not enough
  }
  slot = set * slots_per_set_ + use.chunks++;  // the first free slot
  set_tag(slot, chunk);
  make_newest(set, slot);
  return slot;
}

std::size_t ReferenceCache::evict(std::size_t slot, AccessResult& result) {
  ++result.evicted_chunks;
  write_back(slot, meta_[slot].dirty, result);
  return drop(slot, full_mask_);
}

void ReferenceCache::prefetch_set(std::uint64_t set) const {
  // The occupancy and the first tags (held slots sit at the front of their set).
  __builtin_prefetch(&use_[set]);
  __builtin_prefetch(tags_.data() + set * slots_per_set_);
  __builtin_prefetch(tags_.data() + set * slots_per_set_ + 8);
  __builtin_prefetch(fingerprints_.data() + set * slots_per_set_);
}

void ReferenceCache::prefetch_victim(std::uint64_t set) const {
  // The presence and order of the set's oldest slot (needs the occupancy: a second stage).
  const SetUse& use = use_[set];
  if (use.oldest == kNil) return;
  const std::size_t first = set * slots_per_set_;
  __builtin_prefetch(meta_.data() + first + use.oldest);
  __builtin_prefetch(order_.data() + first + use.oldest);
}

void ReferenceCache::prefetch(std::uint64_t address) const {
  const std::uint64_t set = set_index(address >> chunk_shift_);
  prefetch_set(set);
}

// One chunk of an access, any part of it: the general path.
void ReferenceCache::access_part(std::uint64_t set, std::uint64_t chunk, std::uint64_t lo, std::uint64_t hi,
                                      const Plan& plan, AccessResult& r) {
  const std::uint64_t base = chunk << chunk_shift_;
  const std::uint64_t touch = sector_mask(lo, hi);
  std::size_t slot = find(set, chunk);
  const std::uint64_t present = slot != kNoSlot ? meta_[slot].valid & touch : 0;
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
    slot = make_room(set, slot, added, false, r);
  }
  if (slot != kNoSlot) {
    Meta& m = meta_[slot];
    m.valid |= touch;
    use_[set].sectors += added;
    if (plan.mark_dirty) m.dirty |= touch;
    if (spec_.replacement == Replacement::kLru) make_newest(set, slot);
  }
}

// A whole chunk (every sector touched): the same decisions as access_part with touch = every
// sector, without the sector arithmetic. A chunk held in part takes the general path.
void ReferenceCache::access_whole(std::uint64_t set, std::uint64_t chunk, const Plan& plan, AccessResult& r) {
  const std::uint64_t base = chunk << chunk_shift_;
  const std::uint64_t bytes = spec_.access_chunk_bytes;
  std::size_t slot = find(set, chunk);
  if (slot != kNoSlot) {
    Meta& m = meta_[slot];
    if (m.valid != full_mask_) {
      access_part(set, chunk, 0, bytes, plan, r);
      return;
    }
    r.hit_bytes += bytes;
    ++r.hit_chunks;
    if (plan.write_through) push_merged(forwarded_, base, bytes);
    if (plan.mark_dirty) m.dirty = full_mask_;
    if (spec_.replacement == Replacement::kLru) make_newest(set, slot);
    return;
  }
  r.miss_bytes += bytes;
  ++r.miss_chunks;
  if (!plan.write || plan.write_through) push_merged(forwarded_, base, bytes);
  if (!plan.allocate) return;
  const std::uint32_t sectors = sectors_per_chunk_;
  slot = fill_slot(set, chunk, sectors, r);
  Meta& m = meta_[slot];
  m.valid = full_mask_;
  use_[set].sectors += sectors;
  if (plan.mark_dirty) m.dirty = full_mask_;
  if (spec_.replacement == Replacement::kLru) make_newest(set, slot);
}

AccessResult ReferenceCache::access(std::uint64_t address, std::uint64_t bytes, AccessKind kind) {
  forwarded_.clear();
  writebacks_.clear();
  AccessResult r;
  r.requested_bytes = bytes;
  Plan plan;
  plan.write = kind == AccessKind::kWrite;
  plan.write_through = plan.write && spec_.write_policy != WritePolicy::kWriteBackAllocate;
  plan.allocate = !plan.write || spec_.write_policy != WritePolicy::kWriteThroughNoAllocate;
  plan.mark_dirty = plan.write && spec_.write_policy == WritePolicy::kWriteBackAllocate;

  if (bytes != 0) {
    const std::uint64_t end = address + bytes;
    const std::uint64_t first_chunk = address >> chunk_shift_;
    const std::uint64_t last_chunk = (end - 1) >> chunk_shift_;
    // Chunks land on unrelated sets, so an access is bound by memory latency: the state of the
    // sets a few chunks ahead is requested while this one is handled, in two stages (the set's
    // occupancy and tags kAheadSet chunks ahead, then its oldest slot, which needs the
    // occupancy, kAheadVictim ahead). The set of each chunk is computed once, into a small
    // ring. No effect on results.
    constexpr std::uint64_t kAheadSet = 8;
    constexpr std::uint64_t kAheadVictim = 4;
    constexpr std::uint64_t kRing = 16;  // a power of two above kAheadSet
    std::uint64_t sets[kRing];
    for (std::uint64_t c = first_chunk; c <= last_chunk && c < first_chunk + kAheadSet; ++c) {
      sets[c & (kRing - 1)] = set_index(c);
      if (c != first_chunk) prefetch_set(sets[c & (kRing - 1)]);
    }
    for (std::uint64_t chunk = first_chunk; chunk <= last_chunk; ++chunk) {
      const std::uint64_t set = sets[chunk & (kRing - 1)];
      if (chunk + kAheadSet <= last_chunk) {
        const std::uint64_t ahead = set_index(chunk + kAheadSet);
        sets[(chunk + kAheadSet) & (kRing - 1)] = ahead;
        prefetch_set(ahead);
      }
      if (chunk + kAheadVictim <= last_chunk) prefetch_victim(sets[(chunk + kAheadVictim) & (kRing - 1)]);
      const std::uint64_t base = chunk << chunk_shift_;
      const std::uint64_t lo = chunk == first_chunk ? address - base : 0;
      const std::uint64_t hi = chunk == last_chunk ? end - base : spec_.access_chunk_bytes;
      if (whole_chunk_path_ && lo == 0 && hi == spec_.access_chunk_bytes) {
        access_whole(set, chunk, plan, r);
      } else {
        access_part(set, chunk, lo, hi, plan, r);
      }
    }
  }

  for (const Segment& s : forwarded_) r.forwarded_bytes += s.bytes;
  r.forwarded = forwarded_;
  r.writebacks = writebacks_;
  stats_.record(r, kind);
  return r;
}

std::size_t ReferenceCache::maintain(std::size_t slot, std::uint64_t mask, Op op, MaintenanceResult& result) {
  Meta& m = meta_[slot];
  const std::uint64_t dirty = m.dirty & mask;
  write_back(slot, dirty, result);
  m.dirty &= ~dirty;
  if (op == Op::kInvalidate) {
    result.invalidated_bytes += static_cast<std::uint64_t>(std::popcount(m.valid & mask)) << sector_shift_;
    return drop(slot, mask);
  }
  return kNoSlot;
}

MaintenanceResult ReferenceCache::maintain_range(std::uint64_t address, std::uint64_t bytes, Op op) {
  writebacks_.clear();
  MaintenanceResult r;
  if (bytes != 0) {
    const std::uint64_t end = address + bytes;
    const std::uint64_t first_chunk = address >> chunk_shift_;
    const std::uint64_t last_chunk = (end - 1) >> chunk_shift_;
    if (last_chunk - first_chunk >= tags_.size()) {
      // A range larger than the cache: scanning every held slot is cheaper than every chunk.
      for (std::uint64_t set = 0; set < num_sets_; ++set) {
        const std::size_t first = set * slots_per_set_;
        for (std::size_t slot = first; slot < first + use_[set].chunks;) {
          const std::uint64_t tag = tags_[slot];
          if (tag < first_chunk || tag > last_chunk) {
            ++slot;
            continue;
          }
          const std::uint64_t base = tag << chunk_shift_;
          const std::uint64_t lo = std::max(address, base) - base;
          const std::uint64_t hi = std::min<std::uint64_t>(end - base, spec_.access_chunk_bytes);
          // When the slot emptied, another chunk moved into it: look at it again.
          if (maintain(slot, sector_mask(lo, hi), op, r) == kNoSlot && tags_[slot] == tag) ++slot;
        }
      }
    } else {
      for (std::uint64_t a = address; a < end;) {
        const std::uint64_t chunk = a >> chunk_shift_;
        const std::uint64_t base = chunk << chunk_shift_;
        const std::uint64_t hi = std::min<std::uint64_t>(end - base, spec_.access_chunk_bytes);
        const std::size_t slot = find(set_index(chunk), chunk);
        if (slot != kNoSlot) maintain(slot, sector_mask(a - base, hi), op, r);
        a = base + hi;
      }
    }
  }
  r.writebacks = writebacks_;
  stats_.record(r);
  return r;
}

MaintenanceResult ReferenceCache::invalidate(std::uint64_t address, std::uint64_t bytes) {
  return maintain_range(address, bytes, Op::kInvalidate);
}

MaintenanceResult ReferenceCache::flush(std::uint64_t address, std::uint64_t bytes) {
  return maintain_range(address, bytes, Op::kFlush);
}

MaintenanceResult ReferenceCache::flush() {
  writebacks_.clear();
  MaintenanceResult r;
  // Held slots sit at the front of their set: the rest (most of a sparse-tag table) is skipped.
  for (std::uint64_t set = 0; set < num_sets_; ++set) {
    const std::size_t first = set * slots_per_set_;
    for (std::size_t slot = first; slot < first + use_[set].chunks; ++slot) {
      if (meta_[slot].dirty != 0) maintain(slot, full_mask_, Op::kFlush, r);
    }
  }
  r.writebacks = writebacks_;
  stats_.record(r);
  return r;
}

void ReferenceCache::reset() {
  std::fill(tags_.begin(), tags_.end(), kNoTag);
  std::fill(order_.begin(), order_.end(), Link{});
  std::fill(meta_.begin(), meta_.end(), Meta{});
  std::fill(fingerprints_.begin(), fingerprints_.end(), 0);
  std::fill(use_.begin(), use_.end(), SetUse{});
  rng_state_ = mix(spec_.random_seed) | 1;
}

bool ReferenceCache::contains(std::uint64_t address, std::uint64_t bytes) const {
  const std::uint64_t end = address + bytes;
  for (std::uint64_t a = address; a < end;) {
    const std::uint64_t chunk = a >> chunk_shift_;
    const std::uint64_t base = chunk << chunk_shift_;
    const std::uint64_t hi = std::min<std::uint64_t>(end - base, spec_.access_chunk_bytes);
    const std::uint64_t touch = sector_mask(a - base, hi);
    const std::size_t slot = find(set_index(chunk), chunk);
    if (slot == kNoSlot || (meta_[slot].valid & touch) != touch) return false;
    a = base + hi;
  }
  return true;
}

std::uint64_t ReferenceCache::resident_bytes() const {
  std::uint64_t sectors = 0;
  for (const SetUse& u : use_) sectors += u.sectors;
  return sectors << sector_shift_;
}

std::uint64_t ReferenceCache::dirty_bytes() const {
  std::uint64_t sectors = 0;
  for (const Meta& m : meta_) sectors += static_cast<std::uint64_t>(std::popcount(m.dirty));
  return sectors << sector_shift_;
}

}  // namespace tessera::models::cache::testing

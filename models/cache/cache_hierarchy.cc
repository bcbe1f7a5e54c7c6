#include "models/cache/cache_hierarchy.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace tessera::models::cache {
namespace {

const CacheHierarchySpec& checked(const CacheHierarchySpec& spec) {
  if (auto error = spec.validate()) throw std::invalid_argument("cache hierarchy spec: " + *error);
  return spec;
}

// Picks a partition from a chunk index. A full mixer, so that the partition choice is not
// correlated with the low bits the L2 uses for its set index (else each partition would only
// ever see half of its sets).
std::uint64_t partition_hash(std::uint64_t chunk) {
  chunk ^= chunk >> 33;
  chunk *= 0xff51afd7ed558ccdull;
  chunk ^= chunk >> 33;
  chunk *= 0xc4ceb9fe1a85ec53ull;
  chunk ^= chunk >> 33;
  return chunk;
}

}  // namespace

HierarchyResult& HierarchyResult::operator+=(const HierarchyResult& o) {
  requested_bytes += o.requested_bytes;
  l2_hit_bytes += o.l2_hit_bytes;
  l2_miss_bytes += o.l2_miss_bytes;
  mall_hit_bytes += o.mall_hit_bytes;
  mall_miss_bytes += o.mall_miss_bytes;
  hbm_read_bytes += o.hbm_read_bytes;
  hbm_write_bytes += o.hbm_write_bytes;
  l2_writeback_bytes += o.l2_writeback_bytes;
  invalidated_bytes += o.invalidated_bytes;
  return *this;
}

CacheHierarchy::CacheHierarchy(const CacheHierarchySpec& spec) : spec_(checked(spec)), mall_(spec.mall) {
  l2_.reserve(spec.num_l2);
  for (std::uint32_t i = 0; i < spec.num_l2; ++i) l2_.emplace_back(spec.l2);
}

void CacheHierarchy::attach_stats(sim::stats::StatRegistry& registry, std::string_view prefix) {
  const bool partitioned = spec_.organization == L2Organization::kAddressPartitioned;
  for (std::uint32_t i = 0; i < l2_.size(); ++i) {
    l2_[i].attach_stats(registry, partitioned ? fmt::format("{}.l2[{}]", prefix, i)
                                              : fmt::format("{}.xcd[{}].l2", prefix, i));
  }
  mall_.attach_stats(registry, fmt::format("{}.mall", prefix));
  using sim::stats::Unit;
  auto reg = [&](std::string_view leaf, std::string_view doc) {
    return &registry.counter(fmt::format("{}.cache.{}", prefix, leaf), Unit::kBytes, doc);
  };
  stats_.hbm_read_bytes = reg("hbm_read_bytes", "bytes the cache hierarchy read from HBM");
  stats_.hbm_write_bytes = reg("hbm_write_bytes", "bytes the cache hierarchy wrote to HBM");
  stats_.remote_read_bytes = reg("remote_read_bytes", "bytes peers read from this GPU's memory");
  stats_.remote_write_bytes = reg("remote_write_bytes", "bytes peers wrote to this GPU's memory");
}

void CacheHierarchy::record(const HierarchyResult& r) {
  if (stats_.hbm_read_bytes == nullptr) return;
  stats_.hbm_read_bytes->add(r.hbm_read_bytes);
  stats_.hbm_write_bytes->add(r.hbm_write_bytes);
}

std::uint32_t CacheHierarchy::checked_requester(std::uint32_t requester) const {
  if (spec_.organization == L2Organization::kPrivatePerRequester && requester >= l2_.size()) {
    throw std::out_of_range(fmt::format("requester {} out of range: the GPU has {} L2s", requester, l2_.size()));
  }
  return requester;
}

std::uint32_t CacheHierarchy::l2_index(std::uint32_t requester, std::uint64_t address) const {
  if (spec_.organization == L2Organization::kPrivatePerRequester) return checked_requester(requester);
  const std::uint64_t chunk = address / spec_.l2.access_chunk_bytes;
  return static_cast<std::uint32_t>(partition_hash(chunk) % l2_.size());
}

void CacheHierarchy::memory_side_read(std::span<const Segment> segments, HierarchyResult& r) {
  const MemorySideResult m = mall_.read_each(segments);
  r.mall_hit_bytes += m.hit_bytes;
  r.mall_miss_bytes += m.miss_bytes;
  r.hbm_read_bytes += m.hbm_read_bytes;
}

void CacheHierarchy::memory_side_write(std::uint64_t address, std::uint64_t bytes, HierarchyResult& r) {
  r.hbm_write_bytes += mall_.write(address, bytes).hbm_write_bytes;
}

void CacheHierarchy::memory_side_write(std::span<const Segment> segments, HierarchyResult& r) {
  r.hbm_write_bytes += mall_.write_each(segments).hbm_write_bytes;
}

void CacheHierarchy::access_one_l2(std::uint32_t index, std::uint64_t address, std::uint64_t bytes,
                                   AccessKind kind, HierarchyResult& r) {
  // The L2's misses go on to the MALL at (about) the same address: its set state is requested
  // now, so that fetching it overlaps the L2 lookups. No effect on results.
  mall_.prefetch(address);
  const AccessResult a = l2_[index].access(address, bytes, kind);
  r.l2_hit_bytes += a.hit_bytes;
  r.l2_miss_bytes += a.miss_bytes;
  r.l2_writeback_bytes += a.writeback_bytes;
  // Write-backs first: the evicted data reaches the memory side before the fill it made room for.
  memory_side_write(a.writebacks, r);
  if (kind == AccessKind::kRead) {
    memory_side_read(a.forwarded, r);
  } else {
    memory_side_write(a.forwarded, r);  // only under a write-through L2
  }
}

HierarchyResult CacheHierarchy::access_l2(std::uint32_t requester, std::uint64_t address, std::uint64_t bytes,
                                          AccessKind kind) {
  HierarchyResult r;
  r.requested_bytes = bytes;
  if (spec_.organization == L2Organization::kPrivatePerRequester) {
    access_one_l2(checked_requester(requester), address, bytes, kind, r);
  } else {
    // Split the range into runs of chunks owned by one partition.
    const std::uint64_t chunk_bytes = spec_.l2.access_chunk_bytes;
    const std::uint64_t end = address + bytes;
    std::uint64_t run_start = address;
    std::uint32_t run_owner = l2_index(requester, address);
    for (std::uint64_t a = address; a < end;) {
      const std::uint64_t next = std::min(end, (a / chunk_bytes + 1) * chunk_bytes);
      const std::uint32_t owner = l2_index(requester, a);
      if (owner != run_owner) {
        access_one_l2(run_owner, run_start, a - run_start, kind, r);
        run_start = a;
        run_owner = owner;
      }
      a = next;
    }
    if (end > run_start) access_one_l2(run_owner, run_start, end - run_start, kind, r);
  }
  record(r);
  return r;
}

HierarchyResult CacheHierarchy::read(std::uint32_t requester, std::uint64_t address, std::uint64_t bytes) {
  return access_l2(requester, address, bytes, AccessKind::kRead);
}

HierarchyResult CacheHierarchy::write(std::uint32_t requester, std::uint64_t address, std::uint64_t bytes) {
  return access_l2(requester, address, bytes, AccessKind::kWrite);
}

HierarchyResult CacheHierarchy::remote_read_arrives(std::uint64_t address, std::uint64_t bytes) {
  if (stats_.remote_read_bytes != nullptr) stats_.remote_read_bytes->add(bytes);
  if (spec_.organization == L2Organization::kAddressPartitioned) return access_l2(0, address, bytes, AccessKind::kRead);
  HierarchyResult r;
  r.requested_bytes = bytes;
  const MemorySideResult m = mall_.read(address, bytes);
  r.mall_hit_bytes = m.hit_bytes;
  r.mall_miss_bytes = m.miss_bytes;
  r.hbm_read_bytes = m.hbm_read_bytes;
  record(r);
  return r;
}

HierarchyResult CacheHierarchy::remote_write_arrives(std::uint64_t address, std::uint64_t bytes) {
  if (stats_.remote_write_bytes != nullptr) stats_.remote_write_bytes->add(bytes);
  if (spec_.organization == L2Organization::kAddressPartitioned) {
    return access_l2(0, address, bytes, AccessKind::kWrite);
  }
  HierarchyResult r;
  r.requested_bytes = bytes;
  memory_side_write(address, bytes, r);
  record(r);
  return r;
}

HierarchyResult CacheHierarchy::peer_read(std::uint32_t requester, std::uint64_t tagged_address,
                                          std::uint64_t bytes) {
  HierarchyResult r;
  r.requested_bytes = bytes;
  if (spec_.organization == L2Organization::kAddressPartitioned) {
    r.l2_miss_bytes = bytes;
    return r;
  }
  const AccessResult a = l2_[checked_requester(requester)].access(tagged_address, bytes, AccessKind::kRead);
  r.l2_hit_bytes = a.hit_bytes;
  r.l2_miss_bytes = a.miss_bytes;
  r.l2_writeback_bytes = a.writeback_bytes;
  memory_side_write(a.writebacks, r);  // the fills evicted this GPU's dirty data
  record(r);
  return r;
}

HierarchyResult CacheHierarchy::acquire(std::uint32_t requester, std::uint64_t address, std::uint64_t bytes) {
  HierarchyResult r;
  if (spec_.organization == L2Organization::kAddressPartitioned) return r;
  const MaintenanceResult m = l2_[checked_requester(requester)].invalidate(address, bytes);
  r.l2_writeback_bytes = m.writeback_bytes;
  r.invalidated_bytes = m.invalidated_bytes;
  memory_side_write(m.writebacks, r);
  record(r);
  return r;
}

HierarchyResult CacheHierarchy::release(std::uint32_t requester) {
  HierarchyResult r;
  if (spec_.organization == L2Organization::kAddressPartitioned) return r;
  const MaintenanceResult m = l2_[checked_requester(requester)].flush();
  r.l2_writeback_bytes = m.writeback_bytes;
  memory_side_write(m.writebacks, r);
  record(r);
  return r;
}

HierarchyResult CacheHierarchy::flush_all() {
  HierarchyResult r;
  for (SetAssociativeCache& l2 : l2_) {
    const MaintenanceResult m = l2.flush();
    r.l2_writeback_bytes += m.writeback_bytes;
    memory_side_write(m.writebacks, r);
  }
  record(r);
  return r;
}

void CacheHierarchy::reset() {
  for (SetAssociativeCache& l2 : l2_) l2.reset();
  mall_.reset();
}

}  // namespace tessera::models::cache

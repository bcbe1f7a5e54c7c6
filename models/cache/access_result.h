#pragma once
// What one cache access did, in bytes, and which byte ranges the caller must pass on.
//
// The range lists are views into the cache's own scratch buffers, so an access allocates
// nothing once the buffers have grown; they stay valid until the next call on the same cache.
#include <cstdint>
#include <span>

namespace tessera::models::cache {

enum class AccessKind { kRead, kWrite };

// A contiguous byte range in one GPU's physical address space.
struct Segment {
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  friend bool operator==(const Segment&, const Segment&) = default;
};

struct AccessResult {
  std::uint64_t requested_bytes = 0;
  std::uint64_t hit_bytes = 0;   // requested bytes found present
  std::uint64_t miss_bytes = 0;  // requested bytes not present; hit_bytes + miss_bytes == requested_bytes
  std::uint64_t hit_chunks = 0;  // chunk lookups that found every touched byte present
  std::uint64_t miss_chunks = 0; // chunk lookups that missed at least one touched byte
  std::uint64_t evicted_chunks = 0;   // valid chunks replaced to make room
  std::uint64_t writeback_bytes = 0;  // dirty bytes evicted; sum of `writebacks`
  std::uint64_t forwarded_bytes = 0;  // sum of `forwarded`

  // Ranges to send to the next level as the same kind of access: the missed bytes of a read,
  // or every byte of a write under a write-through policy. Adjacent ranges are merged.
  std::span<const Segment> forwarded;
  // Dirty data evicted to make room, to be written to the next level.
  std::span<const Segment> writebacks;
};

// Result of flush / invalidate: dirty data written back, and what was dropped.
struct MaintenanceResult {
  std::uint64_t writeback_bytes = 0;    // sum of `writebacks`
  std::uint64_t invalidated_bytes = 0;  // valid bytes dropped (0 for a flush, which keeps clean copies)
  std::span<const Segment> writebacks;
};

}  // namespace tessera::models::cache

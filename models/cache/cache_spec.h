#pragma once
// Parameters of one cache level: geometry, policies, and the timing figures its caller applies.
//
// The cache itself is a pure state machine; hit_latency_ps, bandwidth_bytes_per_s and
// num_channels are carried here only so that the fabric model that times an access reads every
// number about this level from one validated place.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/core/tick.h"

namespace tessera::models::cache {

enum class Replacement { kLru, kFifo, kRandom };

enum class WritePolicy {
  kWriteBackAllocate,       // dirty data stays until evicted or flushed (GPU L2)
  kWriteThroughNoAllocate,  // writes go on to the next level; a write miss does not fill
  kWriteThroughAllocate,    // writes go on and leave a clean copy (memory-side cache)
};

// How an address picks its set. Modulo keeps neighbouring chunks in neighbouring sets (a
// cyclic stream of exactly `capacity` bytes fits); the hash spreads power-of-two strides that
// would otherwise pile into one set, as hardware channel/bank hashing does.
enum class SetIndexing { kModulo, kHash };

std::string_view to_string(Replacement r);
std::string_view to_string(WritePolicy w);
std::string_view to_string(SetIndexing s);

struct CacheSpec {
  std::uint64_t capacity_bytes = 4ull << 20;      // MI300X L2 per XCD
  std::uint32_t ways = 16;
  std::uint32_t line_bytes = 128;                 // hardware line; power of two
  std::uint32_t access_chunk_bytes = 4096;        // simulation tag granularity; power-of-two multiple of line
  Replacement replacement = Replacement::kLru;
  WritePolicy write_policy = WritePolicy::kWriteBackAllocate;
  SetIndexing set_indexing = SetIndexing::kHash;   // see SetIndexing and README
  // Tag slots per way. A set may hold up to ways x this many chunks as long as their present
  // lines fit in ways x lines_per_chunk, so sparsely touched chunks (strided tile rows) cost
  // only the lines they hold, not a whole chunk each. 1 = classic one-chunk-per-way. Clamped
  // to the sectors per chunk (README "chunk approximation").
  std::uint32_t sparse_tag_factor = 8;
  std::uint64_t random_seed = 1;                  // only for Replacement::kRandom; runs are reproducible
  sim::Tick hit_latency_ps = 138'000;             // ~290 cycles at 2.1 GHz (microbenchmark studies)
  // Whether a load that hits data whose fill from memory is still in flight (a hit under a pending
  // miss: the line is allocated at the miss, its data not there yet) waits for that fill; false:
  // such a hit costs hit_latency. Used for the L2 only (MemorySystem).
  bool hits_wait_for_fills = false;
  double bandwidth_bytes_per_s = 4.3e12;          // 2 KiB/clk at 2.1 GHz
  std::uint32_t num_channels = 16;

  // nullopt when the spec is usable, else the first problem found, phrased for a config error.
  std::optional<std::string> validate() const;

  std::uint64_t num_sets() const { return capacity_bytes / (std::uint64_t{ways} * access_chunk_bytes); }
  std::uint32_t lines_per_chunk() const { return access_chunk_bytes / line_bytes; }
};

}  // namespace tessera::models::cache

#pragma once
// Small cache specs shared by the cache tests, so each test states only what it varies.
#include <cstdint>

#include "models/cache/cache_spec.h"

namespace tessera::models::cache::testing {

inline CacheSpec small_spec(std::uint64_t capacity, std::uint32_t ways, std::uint32_t chunk,
                            Replacement replacement = Replacement::kLru,
                            WritePolicy policy = WritePolicy::kWriteBackAllocate, std::uint32_t line = 128,
                            SetIndexing indexing = SetIndexing::kModulo) {
  CacheSpec s;
  s.capacity_bytes = capacity;
  s.ways = ways;
  s.access_chunk_bytes = chunk;
  s.line_bytes = line;
  s.replacement = replacement;
  s.write_policy = policy;
  s.set_indexing = indexing;  // modulo: analytic tests count chunks per set
  return s;
}

}  // namespace tessera::models::cache::testing

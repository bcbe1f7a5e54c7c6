#include "models/cache/cache_spec.h"

#include <bit>

#include <fmt/format.h>

namespace tessera::models::cache {

std::string_view to_string(Replacement r) {
  switch (r) {
    case Replacement::kLru: return "lru";
    case Replacement::kFifo: return "fifo";
    case Replacement::kRandom: return "random";
  }
  return "lru";
}

std::string_view to_string(WritePolicy w) {
  switch (w) {
    case WritePolicy::kWriteBackAllocate: return "write_back";
    case WritePolicy::kWriteThroughNoAllocate: return "write_through";
    case WritePolicy::kWriteThroughAllocate: return "write_through_allocate";
  }
  return "write_back";
}

std::string_view to_string(SetIndexing s) {
  switch (s) {
    case SetIndexing::kModulo: return "modulo";
    case SetIndexing::kHash: return "hash";
  }
  return "modulo";
}

std::optional<std::string> CacheSpec::validate() const {
  if (capacity_bytes == 0) return "capacity_bytes must be positive";
  if (ways == 0) return "ways must be positive";
  if (line_bytes == 0 || !std::has_single_bit(line_bytes)) {
    return fmt::format("line_bytes must be a power of two, got {}", line_bytes);
  }
  if (access_chunk_bytes == 0 || !std::has_single_bit(access_chunk_bytes)) {
    return fmt::format("access_chunk_bytes must be a power of two, got {}", access_chunk_bytes);
  }
  if (access_chunk_bytes % line_bytes != 0) {
    return fmt::format("access_chunk_bytes ({}) must be a multiple of line_bytes ({})", access_chunk_bytes,
                       line_bytes);
  }
  const std::uint64_t set_bytes = std::uint64_t{ways} * access_chunk_bytes;
  if (capacity_bytes % set_bytes != 0) {
    return fmt::format("capacity_bytes ({}) must be a multiple of ways x access_chunk_bytes ({} x {} = {})",
                       capacity_bytes, ways, access_chunk_bytes, set_bytes);
  }
  if (sparse_tag_factor == 0 || sparse_tag_factor > 64) {
    return fmt::format("sparse_tag_factor must be in [1, 64], got {}", sparse_tag_factor);
  }
  if (!(bandwidth_bytes_per_s > 0.0)) return "bandwidth_bytes_per_s must be positive";
  if (num_channels == 0) return "num_channels must be positive";
  return std::nullopt;
}

}  // namespace tessera::models::cache

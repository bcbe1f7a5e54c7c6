#pragma once
// The sizes beyond which a system would need more simulator memory than any machine has: the
// caches' tag state (one L2 per die and one MALL per GPU, each sized by capacity / access_chunk)
// and the compute units (each with its queues and statistics). system_schema() checks them,
// so an absurd config (`l2.capacity: 1024 TiB`, a million GPUs' worth of CUs) is a config error
// naming the keys, before anything is allocated. The presets use a few MiB per GPU.
#include <cstdint>
#include <optional>
#include <string>

namespace tessera::models {

struct SystemSpec;

// Cache tag state of the whole machine: 16 GiB is ~5000 GPUs of the largest preset (H200, 25 MiB
// of L2 per die at 4 KiB chunks: 3.3 MB per GPU).
inline constexpr std::uint64_t kMaxCacheStateBytes = std::uint64_t{16} << 30;
// Compute units of the whole machine: 2^22 is ~13,800 MI300X (304 CUs each).
inline constexpr std::uint64_t kMaxComputeUnits = std::uint64_t{1} << 22;

// Bytes the machine's caches allocate for their state (saturating).
std::uint64_t cache_state_bytes(const SystemSpec& system);

// The first limit the system exceeds, with the keys to change, or nullopt.
std::optional<std::string> system_size_problem(const SystemSpec& system);

}  // namespace tessera::models

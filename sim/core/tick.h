#pragma once
// Simulated time. One Tick is one picosecond: a 64-bit count covers about 213 days of
// simulated time, and every latency in a GPU system (tens of ps upwards) is an exact integer.
#include <cstdint>

namespace tessera::sim {

using Tick = std::uint64_t;

inline constexpr Tick kPsPerNs = 1'000;
inline constexpr Tick kPsPerUs = 1'000'000;
inline constexpr Tick kPsPerMs = 1'000'000'000;
inline constexpr Tick kPsPerS = 1'000'000'000'000;
inline constexpr Tick kMaxTick = ~Tick{0};

}  // namespace tessera::sim

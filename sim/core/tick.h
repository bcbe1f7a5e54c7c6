#pragma once
// Simulated time. One Tick is one picosecond: a 64-bit count covers about 213 days of
// simulated time, and every latency in a GPU system (tens of ps upwards) is an exact integer.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tessera::sim {

using Tick = std::uint64_t;

inline constexpr Tick kPsPerNs = 1'000;
inline constexpr Tick kPsPerUs = 1'000'000;
inline constexpr Tick kPsPerMs = 1'000'000'000;
inline constexpr Tick kPsPerS = 1'000'000'000'000;
inline constexpr Tick kMaxTick = ~Tick{0};

// The end of simulated time: 2^62 ps, about 53 days. A run that would schedule anything later
// fails with TimeRangeError rather than saturate or wrap: only an input far outside any real
// system (a link of 1 B/s, a FLOP rate of 1 per second, a latency of weeks) gets there, and a
// makespan computed from it would mean nothing. The room above it keeps now + any one delay
// below 2^63 without a check on every sum (docs/robustness.md, "Arithmetic").
inline constexpr Tick kEndOfTimePs = Tick{1} << 62;

// Simulated time past kEndOfTimePs. The command line reports it as bad input (exit 2): the
// system's rates or latencies, or the workload's sizes, are out of proportion.
class TimeRangeError : public std::range_error {
 public:
  explicit TimeRangeError(const std::string& what)
      : std::range_error(what + " (simulated time ends at 2^62 ps, about 53 days: a bandwidth, rate or latency of "
                                "the system is out of proportion with the workload)") {}
};

}  // namespace tessera::sim

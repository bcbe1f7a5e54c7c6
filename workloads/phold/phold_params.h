#pragma once
// PHOLD, the classic parallel-DES yardstick (Fujimoto 1990), as the peers' benchmarks run it:
// N logical processes, M initial events each; handling an event sends one new event to a
// uniformly random process with probability `remote_frac`, otherwise back to the same process,
// with delay = 1 ns + an exponential draw with mean 9 ns.
#include <cstdint>
#include <optional>
#include <string>

#include "sim/core/run_result.h"
#include "sim/core/tick.h"

namespace tessera::workloads::phold {

struct PholdParams {
  std::uint32_t num_lps = 256;
  std::uint32_t events_per_lp = 1;
  double remote_frac = 1.0;
  sim::Tick end_time_ps = 1'000'000'000;  // 1 ms of simulated time
  std::uint64_t seed = 1;
  sim::Tick min_delay_ps = 1'000;          // 1 ns
  sim::Tick mean_extra_delay_ps = 9'000;    // exponential, mean 9 ns
  sim::RunLimits limits{};  // a run stops after max_events events, at the wall deadline or when asked
};

struct PholdResult {
  std::uint64_t events = 0;        // events processed with time <= end_time_ps
  sim::Tick final_time_ps = 0;     // time of the last processed event
  double wall_s = 0.0;             // wall time of the event loop alone (setup excluded)
  bool complete = true;            // false when a limit stopped the run before end_time_ps
  sim::StopReason stop_reason = sim::StopReason::kEndTime;
  double events_per_s() const { return wall_s > 0.0 ? static_cast<double>(events) / wall_s : 0.0; }
};

// The longest end_time: 10^6 s of simulated time, inside the end of simulated time (2^62 ps).
inline constexpr sim::Tick kMaxPholdEndTimePs = 1'000'000'000'000'000'000;

// Throws std::invalid_argument for parameters outside their domain.
void validate(const PholdParams& params);

// Why the run could not reach end_time in a day of simulation, or nullopt: delays of 0 (time
// never advances), or about more than 10^11 events before end_time (each pending event moves
// about min_delay + mean_extra_delay per step).
std::optional<std::string> advance_problem(const PholdParams& params);

}  // namespace tessera::workloads::phold

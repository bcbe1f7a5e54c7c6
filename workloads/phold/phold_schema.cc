#include "workloads/phold/phold_schema.h"

#include <fmt/format.h>

#include "sim/core/engine.h"

namespace tessera::workloads::phold {

const sim::config::Schema<PholdParams>& phold_schema() {
  static const sim::config::Schema<PholdParams> s =
      sim::config::Schema<PholdParams>("phold", "PHOLD, the discrete-event engine benchmark")
          .count("lps", &PholdParams::num_lps, "logical processes")
          .range(1, 1 << 24)
          .count("events_per_lp", &PholdParams::events_per_lp, "initial events per process")
          .range(1, 1 << 20)
          .fraction("remote", &PholdParams::remote_frac, "probability that an event goes to a random process")
          .time("end_time", &PholdParams::end_time_ps, "simulated time to run")
          .range(1, static_cast<double>(kMaxPholdEndTimePs))
          // A second per event is far beyond any event engine benchmark, and keeps every drawn
          // delay (an exponential draw is rarely above 40 times its mean) well inside 64 bits.
          .time("min_delay", &PholdParams::min_delay_ps, "fixed part of every event's delay")
          .max(1e12)
          .time("mean_extra_delay", &PholdParams::mean_extra_delay_ps, "mean of the exponential part of the delay")
          .max(1e12)
          .check([](const PholdParams& p) -> std::optional<std::string> {
            // All initial events are pending at once, and the engine holds at most 2^24: checked
            // here, before the engine reserves room for them.
            if (std::uint64_t{p.num_lps} * p.events_per_lp > sim::kMaxPendingEvents) {
              return fmt::format("lps x events_per_lp is {}; the engine holds at most 2^24 ({}) pending events",
                                 std::uint64_t{p.num_lps} * p.events_per_lp, sim::kMaxPendingEvents);
            }
            return advance_problem(p);
          });
  return s;
}

}  // namespace tessera::workloads::phold

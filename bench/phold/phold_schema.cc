#include "bench/phold/phold_schema.h"

namespace tessera::bench {

const sim::config::Schema<PholdParams>& phold_schema() {
  static const sim::config::Schema<PholdParams> s =
      sim::config::Schema<PholdParams>("phold", "PHOLD, the discrete-event engine benchmark")
          .count("lps", &PholdParams::num_lps, "logical processes")
          .range(1, 1 << 24)
          .count("events_per_lp", &PholdParams::events_per_lp, "initial events per process")
          .range(1, 1 << 20)
          .fraction("remote", &PholdParams::remote_frac, "probability that an event goes to a random process")
          .time("end_time", &PholdParams::end_time_ps, "simulated time to run")
          .min(1)
          .time("min_delay", &PholdParams::min_delay_ps, "fixed part of every event's delay")
          .time("mean_extra_delay", &PholdParams::mean_extra_delay_ps, "mean of the exponential part of the delay")
          .check([](const PholdParams& p) -> std::optional<std::string> {
            if (std::uint64_t{p.num_lps} * p.events_per_lp > (std::uint64_t{1} << 31)) {
              return "lps x events_per_lp must stay below 2^31 pending events";
            }
            return std::nullopt;
          });
  return s;
}

}  // namespace tessera::bench

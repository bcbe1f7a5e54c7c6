#pragma once
// The unit a person reads a time in: ns, us, ms or s, chosen by magnitude. A table prints every
// time of it in one unit, named in its header ("time (us)"), so that columns compare digit by
// digit; a lone value in a sentence takes its own unit ("226.942 us"). Files written for
// programs (summary.json, *.csv, compare.json) keep their fixed ns and do not use this.
#include <string>
#include <string_view>

namespace tessera::app {

enum class TimeUnit { kNs, kUs, kMs, kS };

// The table unit for a table whose largest magnitude is max_abs_ns: the finest unit in which that
// value has at most four integer digits (below 10 us: ns; below 10 ms: us; below 10 s: ms; else
// s). The finest such unit keeps three decimals meaningful for the small values of the table (a
// 20 ns launch overhead beside a 1.5 ms makespan reads 0.020 us, not 0.000 ms).
TimeUnit pick_time_unit(double max_abs_ns);

// The unit of one value on its own: the coarsest in which it is at least 1 ("1.5 ms", "812 ns").
TimeUnit natural_time_unit(double ns);

double ns_per_unit(TimeUnit unit);         // 1, 1e3, 1e6, 1e9
std::string_view unit_symbol(TimeUnit unit);  // "ns", "us", "ms", "s"

// The number alone, in `unit`, with `decimals` decimals: format_time(226941.56, kUs) == "226.942".
std::string format_time(double ns, TimeUnit unit, int decimals = 3);
// The same with its sign always shown, for differences: "+1.234", "-0.500", "+0.000".
std::string format_time_change(double ns, TimeUnit unit, int decimals = 3);
// A lone value with its own unit: "226.942 us", "0.000 ns".
std::string format_duration(double ns, int decimals = 3);
// A column header naming its unit: with_unit("time", kUs) == "time (us)".
std::string with_unit(std::string_view name, TimeUnit unit);

}  // namespace tessera::app

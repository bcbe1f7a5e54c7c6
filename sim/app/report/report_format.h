#pragma once
// Numbers as people read them in report.html: durations with an apt unit, byte counts with
// binary prefixes, fractions as percentages, SVG coordinates with two decimals.
#include <string>
#include <vector>

namespace tessera::app::report {

std::string format_duration_ns(double ns);  // "812.500 ns", "399.024 us", "1.250 ms", "2.000 s"
std::string format_bytes(double bytes);     // "0 B", "512 B", "2.53 GiB"
std::string format_percent(double fraction);  // 0.7525 -> "75.2%"
std::string format_coordinate(double px);     // "12.35"

// Round ticks for a time axis from 0 to max_ns (steps of 1, 2 or 5 times a power of ten,
// about `target` of them), labelled in one unit chosen for max_ns: "0 ns", "250 ns", ...
struct AxisTick {
  double value_ns = 0.0;
  std::string label;
};
std::vector<AxisTick> time_axis_ticks(double max_ns, int target = 5);

}  // namespace tessera::app::report

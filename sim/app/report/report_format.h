#pragma once
// Numbers as people read them in report.html: durations with an apt unit, byte counts with
// binary prefixes, fractions as percentages, SVG coordinates with two decimals. Axis ticks come
// from charts/scale.h.
#include <string>

namespace tessera::app::report {

std::string format_duration_ns(double ns);  // "812.500 ns", "399.024 us", "1.250 ms", "2.000 s"
std::string format_bytes(double bytes);     // "0 B", "512 B", "2.53 GiB"
std::string format_percent(double fraction);  // 0.7525 -> "75.2%"
std::string format_coordinate(double px);     // "12.35"

}  // namespace tessera::app::report

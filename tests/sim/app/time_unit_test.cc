// The unit a table's times are printed in (sim/app/time_unit.h): chosen from the largest so that
// it has at most four integer digits, stated in the header, and lone values in their own unit.
#include <doctest/doctest.h>

#include <limits>

#include "sim/app/time_unit.h"

namespace tessera::app {

TEST_CASE("a table's unit keeps its largest time under five integer digits, in the finest such unit") {
  CHECK(pick_time_unit(0.0) == TimeUnit::kNs);
  CHECK(pick_time_unit(812.5) == TimeUnit::kNs);
  CHECK(pick_time_unit(9999.9) == TimeUnit::kNs);
  CHECK(pick_time_unit(9999.9996) == TimeUnit::kUs);  // would print as 10000.000 ns
  CHECK(pick_time_unit(10000.0) == TimeUnit::kUs);
  CHECK(pick_time_unit(226941.56) == TimeUnit::kUs);
  CHECK(pick_time_unit(9.9e6) == TimeUnit::kUs);
  CHECK(pick_time_unit(1e7) == TimeUnit::kMs);
  CHECK(pick_time_unit(37e9) == TimeUnit::kS);
  CHECK(pick_time_unit(-2e5) == TimeUnit::kUs);  // a magnitude: differences may be negative
  CHECK(pick_time_unit(std::numeric_limits<double>::infinity()) == TimeUnit::kS);
  // The number of integer digits of the largest value never exceeds four below seconds.
  for (double ns = 0.5; ns < 1e10; ns *= 1.7) {
    const std::string s = format_time(ns, pick_time_unit(ns));
    CHECK_MESSAGE(s.find('.') <= 4, s);
  }
}

TEST_CASE("a lone value takes the coarsest unit in which it is at least 1") {
  CHECK(natural_time_unit(0.0) == TimeUnit::kNs);
  CHECK(natural_time_unit(999.0) == TimeUnit::kNs);
  CHECK(natural_time_unit(1000.0) == TimeUnit::kUs);
  CHECK(natural_time_unit(1.25e6) == TimeUnit::kMs);
  CHECK(natural_time_unit(2e9) == TimeUnit::kS);
  CHECK(format_duration(812.5) == "812.500 ns");
  CHECK(format_duration(399024.194) == "399.024 us");
  CHECK(format_duration(1.25e6) == "1.250 ms");
  CHECK(format_duration(2e9) == "2.000 s");
  CHECK(format_duration(999.9996) == "1.000 us");  // not "1000.000 ns"
}

TEST_CASE("numbers in a unit, differences signed, headers naming the unit") {
  CHECK(format_time(226941.56, TimeUnit::kUs) == "226.942");
  CHECK(format_time(226941.56, TimeUnit::kMs) == "0.227");
  CHECK(format_time(20.0, TimeUnit::kUs) == "0.020");
  CHECK(format_time(1500.0, TimeUnit::kNs, 1) == "1500.0");
  CHECK(format_time(-0.0001, TimeUnit::kNs) == "0.000");  // no "-0.000"
  CHECK(format_time(-1500.0, TimeUnit::kUs) == "-1.500");
  CHECK(format_time_change(1500.0, TimeUnit::kUs) == "+1.500");
  CHECK(format_time_change(-1500.0, TimeUnit::kUs) == "-1.500");
  CHECK(format_time_change(0.0, TimeUnit::kUs) == "+0.000");
  CHECK(with_unit("time", TimeUnit::kUs) == "time (us)");
  CHECK(with_unit("end", TimeUnit::kMs) == "end (ms)");
  CHECK(unit_symbol(TimeUnit::kS) == "s");
  CHECK(ns_per_unit(TimeUnit::kMs) == 1e6);
}

}  // namespace tessera::app

#include <doctest/doctest.h>

#include "sim/config/quantity.h"
#include "sim/config/units.h"

namespace tessera::sim::config {
namespace {

TEST_CASE("parse_quantity reads a value of each dimension in its base unit") {
  CHECK(parse_quantity("1.5 us").dimension == Dimension::kTime);
  CHECK(parse_quantity("1.5 us").value == 1.5e6);
  CHECK(parse_quantity("64 GB/s").dimension == Dimension::kBandwidth);
  CHECK(parse_quantity("64 GB/s").value == 64e9);
  CHECK(parse_quantity("400 Gb/s").value == 50e9);
  CHECK(parse_quantity("2.1 GHz").dimension == Dimension::kFrequency);
  CHECK(parse_quantity("2.1 GHz").value == 2.1e9);
  CHECK(parse_quantity("4 MiB").dimension == Dimension::kBytes);
  CHECK(parse_quantity("4 MiB").value == 4194304.0);
  CHECK(parse_quantity("0.54").dimension == Dimension::kNumber);
  CHECK(parse_quantity("0.54").value == 0.54);
  CHECK(parse_quantity("54%").value == doctest::Approx(0.54));
  CHECK_THROWS_AS(parse_quantity("fast"), UnitError);
  CHECK_THROWS_AS(parse_quantity("3 parsecs"), UnitError);
}

TEST_CASE("format_quantity writes text that parses back to the value, rounded to the schema's resolution") {
  for (const char* text : {"1.5 us", "64 GB/s", "2.1 GHz", "4 MiB", "0.54", "428 ns"}) {
    const Quantity q = parse_quantity(text);
    const Quantity back = parse_quantity(format_quantity(q));
    CHECK(back.dimension == q.dimension);
    CHECK(back.value == q.value);
  }
  // A drawn time between two whole picoseconds is written at the nearest one.
  CHECK(format_quantity({Dimension::kTime, 1234.6}) == format_time_ps(1235));
  CHECK(format_quantity({Dimension::kBytes, 1023.4}) == format_bytes(1023));
}

}  // namespace
}  // namespace tessera::sim::config

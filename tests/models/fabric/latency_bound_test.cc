#include <doctest/doctest.h>

#include <stdexcept>

#include "models/fabric/latency_bound.h"

using namespace tessera::models::fabric;

TEST_CASE("Little's law: throughput is window over round trip") {
  // 64 outstanding 128 B lines over a 2 us round trip: 8 KiB / 2 us = 4.096 GB/s.
  CHECK(latency_bound_rate(64u, 128u, 2'000'000) == doctest::Approx(4.096e9));
  CHECK(latency_bound_rate(1e5, 1'000'000) == doctest::Approx(1e11));
  CHECK(latency_bound_rate(1e5, 0) == kUncapped);
  CHECK(round_trip_ps(300, 700) == 1000);
  CHECK_THROWS_AS(latency_bound_rate(0.0, 10), std::invalid_argument);
}

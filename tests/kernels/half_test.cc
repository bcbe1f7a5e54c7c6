#include <doctest/doctest.h>

#include <cmath>

#include "harness/half.h"

TEST_CASE("half_bits_to_float decodes normal, subnormal, zero, infinite and NaN binary16 values") {
  CHECK(tk::half_bits_to_float(0x3C00) == 1.0f);
  CHECK(tk::half_bits_to_float(0xC000) == -2.0f);
  CHECK(tk::half_bits_to_float(0x3555) == 0.333251953125f);  // 1 + 341/1024, times 2^-2: exact
  CHECK(tk::half_bits_to_float(0x7BFF) == 65504.0f);                    // largest normal
  CHECK(tk::half_bits_to_float(0x0400) == std::ldexp(1.0f, -14));       // smallest normal
  CHECK(tk::half_bits_to_float(0x0001) == std::ldexp(1.0f, -24));       // smallest subnormal
  CHECK(tk::half_bits_to_float(0x03FF) == std::ldexp(1023.0f, -24));    // largest subnormal
  CHECK(tk::half_bits_to_float(0x0000) == 0.0f);
  CHECK(std::signbit(tk::half_bits_to_float(0x8000)));
  CHECK(std::isinf(tk::half_bits_to_float(0x7C00)));
  CHECK(std::isnan(tk::half_bits_to_float(0xFFFF)));  // the poison pattern
}

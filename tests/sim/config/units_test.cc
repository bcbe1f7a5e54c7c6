#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include "sim/config/units.h"

namespace tessera::sim::config {
namespace {

std::string unit_error(auto&& f) {
  try {
    f();
  } catch (const UnitError& e) {
    return e.what();
  }
  FAIL("expected a UnitError");
  return {};
}

TEST_CASE("bytes: every prefix, decimal and binary, exactly") {
  CHECK(parse_bytes("64 B") == 64);
  CHECK(parse_bytes("1 KB") == 1000);
  CHECK(parse_bytes("1 kB") == 1000);
  CHECK(parse_bytes("1.5 KB") == 1500);
  CHECK(parse_bytes("3 MB") == 3'000'000);
  CHECK(parse_bytes("0.1 GB") == 100'000'000);
  CHECK(parse_bytes("2 TB") == 2'000'000'000'000);
  CHECK(parse_bytes("1 KiB") == 1024);
  CHECK(parse_bytes("4 MiB") == 4'194'304);
  CHECK(parse_bytes("1.5 GiB") == 1'610'612'736);
  CHECK(parse_bytes("1 TiB") == 1'099'511'627'776);
  CHECK(parse_bytes("0.5 KiB") == 512);
  CHECK(parse_bytes("64KiB") == 65536);
  CHECK(parse_bytes("  1e3 B ") == 1000);
  CHECK(parse_bytes("1E-3 MB") == 1000);
  CHECK(parse_bytes("0 B") == 0);
}

TEST_CASE("bytes: errors") {
  CHECK(unit_error([] { parse_bytes("1.5 B"); }) == "\"1.5 B\" is not a whole number of bytes");
  CHECK(unit_error([] { parse_bytes("0.3 KiB"); }) == "\"0.3 KiB\" is not a whole number of bytes");
  CHECK(unit_error([] { parse_bytes("4096"); }) ==
        "a unit is required: expected a size like \"64 KiB\" (units: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), got "
        "\"4096\"");
  CHECK(unit_error([] { parse_bytes("20000000 TB"); }).find("too large") != std::string::npos);
  CHECK(parse_bytes("18446744073709551615 B") == UINT64_MAX);
  CHECK(unit_error([] { parse_bytes("18446744073709551616 B"); }).find("too large") != std::string::npos);
  CHECK(unit_error([] { parse_bytes("1.5 us"); }).starts_with("expected a size like"));
  CHECK(unit_error([] { parse_bytes("abc"); }).ends_with("got \"abc\""));
  CHECK(unit_error([] { parse_bytes("-1 KB"); }) == "a size must not be negative, got \"-1 KB\"");
  CHECK(unit_error([] { parse_bytes("1 EiB"); }).starts_with("expected a size"));
  CHECK(unit_error([] { parse_bytes("1 kib"); }).starts_with("expected a size"));
}

TEST_CASE("times: every unit, exactly") {
  CHECK(parse_time_ps("1 ps") == 1);
  CHECK(parse_time_ps("12 ns") == 12'000);
  CHECK(parse_time_ps("1.5 us") == 1'500'000);
  CHECK(parse_time_ps("1.5 \xC2\xB5s") == 1'500'000);
  CHECK(parse_time_ps("0.25 ms") == 250'000'000);
  CHECK(parse_time_ps("2 s") == 2'000'000'000'000);
  CHECK(parse_time_ps("0.001ns") == 1);
  CHECK(parse_time_ps("100000 ps") == 100'000);
}

TEST_CASE("times: errors name the expected kind") {
  CHECK(unit_error([] { parse_time_ps("4 MiB"); }) ==
        "expected a time like \"1.5 us\" (units: ps, ns, us, ms, s), got \"4 MiB\"");
  CHECK(unit_error([] { parse_time_ps("0.5 ps"); }) == "\"0.5 ps\" is not a whole number of picoseconds");
  CHECK(unit_error([] { parse_time_ps("12"); }).starts_with("a unit is required: expected a time"));
  CHECK(unit_error([] { parse_time_ps("1 h"); }).starts_with("expected a time"));
}

TEST_CASE("frequencies") {
  CHECK(parse_frequency_hz("2.1 GHz") == 2.1e9);
  CHECK(parse_frequency_hz("2100 MHz") == 2.1e9);
  CHECK(parse_frequency_hz("1.98GHz") == 1.98e9);
  CHECK(parse_frequency_hz("100 kHz") == 1e5);
  CHECK(parse_frequency_hz("50 Hz") == 50.0);
  CHECK(parse_frequency_hz("1 THz") == 1e12);
  CHECK(unit_error([] { parse_frequency_hz("2.1 GB/s"); }).starts_with("expected a frequency like \"2.1 GHz\""));
  CHECK(unit_error([] { parse_frequency_hz("2.1"); }).starts_with("a unit is required"));
}

TEST_CASE("bandwidths, bytes and bits") {
  CHECK(parse_bandwidth_bytes_per_s("64 GB/s") == 64e9);
  CHECK(parse_bandwidth_bytes_per_s("64GB/s") == 64e9);
  CHECK(parse_bandwidth_bytes_per_s("1.6 TB/s") == 1.6e12);
  CHECK(parse_bandwidth_bytes_per_s("0.1 GB/s") == 1e8);
  CHECK(parse_bandwidth_bytes_per_s("5 MB/s") == 5e6);
  CHECK(parse_bandwidth_bytes_per_s("3 KB/s") == 3e3);
  CHECK(parse_bandwidth_bytes_per_s("7 B/s") == 7.0);
  CHECK(parse_bandwidth_bytes_per_s("1 TiB/s") == 1099511627776.0);
  CHECK(parse_bandwidth_bytes_per_s("1 GiB/s") == 1073741824.0);
  CHECK(parse_bandwidth_bytes_per_s("2 MiB/s") == 2097152.0);
  CHECK(parse_bandwidth_bytes_per_s("1 KiB/s") == 1024.0);
  CHECK(parse_bandwidth_bytes_per_s("400 Gb/s") == 50e9);
  CHECK(parse_bandwidth_bytes_per_s("400 Gbit/s") == 50e9);
  CHECK(parse_bandwidth_bytes_per_s("1 b/s") == 0.125);
  CHECK(unit_error([] { parse_bandwidth_bytes_per_s("64 GB"); }).starts_with("expected a bandwidth like \"64 GB/s\""));
}

TEST_CASE("plain numbers, fractions, integers, booleans") {
  CHECK(parse_real("1.25") == 1.25);
  CHECK(parse_real("-3") == -3.0);
  CHECK(parse_real("2e-3") == 0.002);
  CHECK(parse_real("0.1") == 0.1);
  CHECK(unit_error([] { parse_real("1 GHz"); }) == "expected a number, got \"1 GHz\"");
  CHECK(parse_fraction("0.85") == 0.85);
  CHECK(parse_fraction("85%") == 0.85);
  CHECK(parse_fraction("100 %") == 1.0);
  CHECK(parse_fraction("0") == 0.0);
  CHECK(parse_fraction("1") == 1.0);
  CHECK(unit_error([] { parse_fraction("1.2"); }).starts_with("expected a fraction in [0, 1]"));
  CHECK(unit_error([] { parse_fraction("101%"); }).starts_with("expected a fraction in [0, 1]"));
  CHECK(unit_error([] { parse_fraction("-0.1"); }).starts_with("expected a fraction in [0, 1]"));
  CHECK(parse_integer("-12") == -12);
  CHECK(parse_integer("+7") == 7);
  CHECK(parse_unsigned("4096") == 4096);
  CHECK(unit_error([] { parse_integer("abc"); }) == "expected an integer, got \"abc\"");
  CHECK(unit_error([] { parse_integer("1.5"); }) == "expected an integer, got \"1.5\"");
  CHECK(unit_error([] { parse_unsigned("-1"); }) == "expected a non-negative integer, got \"-1\"");
  CHECK(unit_error([] { parse_integer("99999999999999999999"); }).starts_with("integer out of range"));
  CHECK(parse_bool("true"));
  CHECK_FALSE(parse_bool("off"));
  CHECK(unit_error([] { parse_bool("maybe"); }) == "expected true or false, got \"maybe\"");
}

TEST_CASE("formatting picks a readable unit") {
  CHECK(format_bytes(4194304) == "4 MiB");
  CHECK(format_bytes(1500) == "1.5 KB");
  CHECK(format_bytes(1536) == "1.5 KiB");
  CHECK(format_bytes(64) == "64 B");
  CHECK(format_bytes(0) == "0 B");
  CHECK(format_bytes(1000) == "1 KB");
  CHECK(format_bytes(2'000'000) == "2 MB");
  CHECK(format_bytes(1'048'577) == "1048577 B");
  CHECK(format_time_ps(1'500'000) == "1.5 us");
  CHECK(format_time_ps(100'000) == "100 ns");
  CHECK(format_time_ps(1) == "1 ps");
  CHECK(format_time_ps(2'000'000'000'000) == "2 s");
  CHECK(format_frequency_hz(2.1e9) == "2.1 GHz");
  CHECK(format_frequency_hz(50) == "50 Hz");
  CHECK(format_bandwidth(64e9) == "64 GB/s");
  CHECK(format_bandwidth(1099511627776.0) == "1 TiB/s");
  CHECK(format_bandwidth(1.6e12) == "1.6 TB/s");
}

TEST_CASE("parse(format(x)) == x over many values") {
  std::mt19937_64 rng(12345);
  for (int i = 0; i < 20000; ++i) {
    // Mix of round values (multiples of powers of 10 and 2) and arbitrary ones.
    const std::uint64_t raw = rng();
    const std::uint64_t bytes = (i % 3 == 0) ? raw >> (rng() % 64) : (raw % 1000) << (rng() % 40);
    REQUIRE(parse_bytes(format_bytes(bytes)) == bytes);
    const Tick ps = (i % 2 == 0) ? raw >> (rng() % 64) : (raw % 1000) * 1000;
    REQUIRE(parse_time_ps(format_time_ps(ps)) == ps);
    const double x = std::ldexp(static_cast<double>(raw >> 11), -static_cast<int>(rng() % 60));
    const double y = static_cast<double>(raw % 100000) * std::pow(10.0, static_cast<int>(rng() % 12));
    for (const double v : {x, y}) {
      REQUIRE(parse_frequency_hz(format_frequency_hz(v)) == v);
      REQUIRE(parse_bandwidth_bytes_per_s(format_bandwidth(v)) == v);
      REQUIRE(parse_real(format_real(v)) == v);
    }
  }
  CHECK(parse_bytes(format_bytes(UINT64_MAX)) == UINT64_MAX);
  CHECK(parse_time_ps(format_time_ps(kMaxTick)) == kMaxTick);
}

}  // namespace
}  // namespace tessera::sim::config

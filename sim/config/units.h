#pragma once
// Quantities with units, parsed from and formatted to config text.
//
// Every number is parsed as an exact decimal and scaled with integer arithmetic, so
// "0.1 GB" is exactly 100000000 bytes and "1.5 us" exactly 1500000 ps; a double is made
// (correctly rounded) only at the very end. Formatting picks a human unit and writes a
// string that parses back to the same value, so described configs can be re-read.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sim/core/tick.h"

namespace tessera::sim::config {

// A malformed quantity. The message says what was expected and what was found; the
// caller (the schema) adds the file, line and key path.
class UnitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Sizes: B, KB MB GB TB (powers of 1000), KiB MiB GiB TiB (powers of 1024).
// A unit is required; a fractional byte count is an error.
std::uint64_t parse_bytes(std::string_view text);

// Times: ps ns us (or µs) ms s, to integral picoseconds; sub-picosecond values are errors.
Tick parse_time_ps(std::string_view text);

// Frequencies: Hz kHz MHz GHz THz.
double parse_frequency_hz(std::string_view text);

// Bandwidths: B/s with decimal (KB/s ... TB/s) or binary (KiB/s ... TiB/s) prefixes, or bits
// per second with a lowercase b (b/s, Kb/s, Mb/s, Gb/s, Tb/s, or kbit/s ... Tbit/s).
double parse_bandwidth_bytes_per_s(std::string_view text);

// Plain numbers without units.
double parse_real(std::string_view text);                 // "1.25", "-3", "2e-3"
double parse_fraction(std::string_view text);             // in [0, 1]: "0.85" or "85%"
std::int64_t parse_integer(std::string_view text);        // "-12", "4096"
std::uint64_t parse_unsigned(std::string_view text);      // "4096"
bool parse_bool(std::string_view text);                   // true/false, yes/no, on/off

// Formatting: a readable unit, exact, so that parse(format(x)) == x.
std::string format_bytes(std::uint64_t bytes);            // 4194304 -> "4 MiB", 1500 -> "1.5 KB"
std::string format_time_ps(Tick ps);                      // 1500000 -> "1.5 us"
std::string format_frequency_hz(double hz);               // 2.1e9 -> "2.1 GHz"
std::string format_bandwidth(double bytes_per_s);         // 64e9 -> "64 GB/s"
std::string format_real(double value);                    // shortest text that reads back exactly

}  // namespace tessera::sim::config

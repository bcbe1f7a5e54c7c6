// libFuzzer target: the quantity parsers of sim/config/units.h.
//
// The first byte picks the parser, the rest is the text. A UnitError is the documented answer
// to bad text; anything else (a crash, a sanitizer report, another exception) is a finding. A
// parsed quantity must also survive its own formatting: parse(format(x)) == x, which is what
// lets `tessera describe` output be read back.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "sim/config/units.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace tessera::sim::config;
using tessera::fuzz::check;

template <typename Parse, typename Format>
void round_trip(std::string_view text, Parse parse, Format format) {
  const auto value = parse(text);
  const std::string formatted = format(value);
  const auto again = parse(formatted);
  check(again == value, fmt::format("\"{}\" formats as \"{}\", which reads back differently", text, formatted));
}

void parse_one(std::uint8_t which, std::string_view text) {
  const auto to_text = [](auto v) { return fmt::format("{}", v); };
  switch (which % 9) {
    case 0: round_trip(text, parse_bytes, format_bytes); break;
    case 1: round_trip(text, parse_time_ps, format_time_ps); break;
    case 2: round_trip(text, parse_frequency_hz, format_frequency_hz); break;
    case 3: round_trip(text, parse_bandwidth_bytes_per_s, format_bandwidth); break;
    case 4: round_trip(text, parse_real, format_real); break;
    case 5: round_trip(text, parse_fraction, format_real); break;
    case 6: round_trip(text, parse_integer, to_text); break;
    case 7: round_trip(text, parse_unsigned, to_text); break;
    default: parse_bool(text); break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    parse_one(data[0], text);
  } catch (const UnitError&) {
    // The documented answer to bad text.
  }
  return 0;
}

#include "sim/config/utf8.h"

namespace tessera::sim::config {

std::optional<std::size_t> find_invalid_utf8(std::string_view s) {
  const auto byte = [&s](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  std::size_t i = 0;
  while (i < s.size()) {
    const unsigned char lead = byte(i);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    // The number of continuation bytes, and the range of the first one, which rules out the
    // overlong forms (after 0xe0, 0xf0), the surrogates (after 0xed) and past U+10FFFF (0xf4).
    std::size_t more = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
      more = 1;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      more = 2;
      if (lead == 0xe0) low = 0xa0;
      if (lead == 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      more = 3;
      if (lead == 0xf0) low = 0x90;
      if (lead == 0xf4) high = 0x8f;
    } else {
      return i;
    }
    if (s.size() - i <= more) return i;
    if (byte(i + 1) < low || byte(i + 1) > high) return i;
    for (std::size_t k = 2; k <= more; ++k) {
      if ((byte(i + k) & 0xc0) != 0x80) return i;
    }
    i += more + 1;
  }
  return std::nullopt;
}

}  // namespace tessera::sim::config

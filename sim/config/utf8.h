#pragma once
// UTF-8 well-formedness (RFC 3629). Config and trace text becomes JSON (describe --json,
// summary.json, the text trace form), and JSON must be UTF-8; yaml-cpp and the binary trace
// reader pass any bytes through, so the readers check here and name the first bad byte.
#include <cstddef>
#include <optional>
#include <string_view>

namespace tessera::sim::config {

// The offset of the first byte that does not belong to a well-formed UTF-8 sequence (overlong
// forms, surrogates and code points past U+10FFFF included), or nullopt when all are well formed.
std::optional<std::size_t> find_invalid_utf8(std::string_view text);

inline bool is_utf8(std::string_view text) { return !find_invalid_utf8(text).has_value(); }

}  // namespace tessera::sim::config

#pragma once
// "Did you mean ...?" for misspelled config keys: a misspelling must never pass silently,
// and the error should point at the intended key.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace tessera::sim::config {

// Optimal-string-alignment distance: insertions, deletions, substitutions and adjacent
// transpositions ("wasy" -> "ways") each cost one.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `key`, if it is close enough to be a plausible typo
// (about one edit per four characters, at least one).
std::optional<std::string> nearest(std::string_view key, std::span<const std::string> candidates);

}  // namespace tessera::sim::config

#pragma once
// JSON as Tessera's inputs need it (trace lines, measured kernel-suite results): a key given
// twice in one object is an error (JSON lets the last one win silently, hiding a mistake), a
// number beyond a double's range is an error (nlohmann reports it apart from syntax errors),
// and no message quotes the input (nlohmann's "last read: '...'" would print the first line of
// whatever file was named, a private one too).
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tessera::sim::io {

class StrictJsonError : public std::runtime_error {
 public:
  enum class Kind { kSyntax, kDuplicateKey, kNumber };
  StrictJsonError(Kind error_kind, std::size_t error_byte, std::string error_key, const std::string& reason)
      : std::runtime_error(reason), kind(error_kind), byte(error_byte), key(std::move(error_key)) {}
  Kind kind;
  std::size_t byte;  // kSyntax: the byte offset (1-based) where the parser stopped; else 0
  std::string key;   // kDuplicateKey: the key
};

nlohmann::json parse_strict_json(std::string_view text);

// "line L, column C" of a 1-based byte offset into `text`, for StrictJsonError::byte.
std::string line_and_column(std::string_view text, std::size_t byte);

}  // namespace tessera::sim::io

#pragma once
// A result file of the kernel suite that cannot be used: not JSON, a missing or mistyped key, an
// unsupported schema. The message names the file and the key; the program exits 2 (bad input).
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace tessera::app::measured {

class MeasuredDataError : public std::runtime_error {
 public:
  // what() = "FILE: key.path: message" (the key part omitted when empty).
  MeasuredDataError(const std::string& file, const std::string& key_path, const std::string& message)
      : std::runtime_error(key_path.empty() ? fmt::format("{}: {}", file, message)
                                            : fmt::format("{}: {}: {}", file, key_path, message)) {}
};

}  // namespace tessera::app::measured

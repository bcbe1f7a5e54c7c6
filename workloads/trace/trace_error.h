#pragma once
// The one error type of trace reading: a trace file that cannot be read, or that reads but
// breaks a rule of the format. It names the place, so that the fix is obvious: the text form
// says `FILE:LINE: key: reason`, the binary form `FILE: byte OFFSET: reason`. Programs map it to
// exit code 2 (bad input).
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tessera::workloads::trace {

class TraceError : public std::runtime_error {
 public:
  // `message` is the whole text, place included (use the helpers below to build it).
  explicit TraceError(const std::string& message) : std::runtime_error(message) {}

  // "FILE:LINE: reason"
  static TraceError at_line(const std::string& file, std::uint64_t line, const std::string& reason) {
    return TraceError(file + ":" + std::to_string(line) + ": " + reason);
  }
  // "FILE: byte OFFSET: reason"
  static TraceError at_byte(const std::string& file, std::uint64_t offset, const std::string& reason) {
    return TraceError(file + ": byte " + std::to_string(offset) + ": " + reason);
  }
  // "FILE: reason" (a problem of the whole file, e.g. from validate())
  static TraceError in_file(const std::string& file, const std::string& reason) {
    return TraceError(file + ": " + reason);
  }
};

}  // namespace tessera::workloads::trace

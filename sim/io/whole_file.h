#pragma once
// Reads a whole input file (a config, a measured result) with the checks every reader needs:
// a regular file only (not a FIFO, a device or /proc's endless files), a size limit checked
// before anything is read, and a read error reported as one (a file that cannot be read is
// not an empty one). Messages name the file and never quote its content.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace tessera::sim::io {


// what(): "PATH: REASON"; reason() alone, for messages that name the file already.
class FileReadError : public std::runtime_error {
 public:
  FileReadError(const std::string& file, std::string reason)
      : std::runtime_error(file + ": " + reason), reason_(std::move(reason)) {}
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

// The file's bytes; throws FileReadError (reasons: "is not a regular file", "is 200 MiB; at
// most 16 MiB is read", "read error", "cannot be read: ...").
std::string read_whole_file(const std::filesystem::path& path, std::uint64_t max_bytes);

}  // namespace tessera::sim::io

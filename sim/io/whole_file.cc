#include "sim/io/whole_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "sim/config/approximate_bytes.h"

namespace tessera::sim::io {

std::string read_whole_file(const std::filesystem::path& path, std::uint64_t max_bytes) {
  namespace fs = std::filesystem;
  const std::string name = path.string();
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec) throw FileReadError(name, "cannot be read: " + ec.message());
  if (!fs::is_regular_file(status)) throw FileReadError(name, "is not a regular file");
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) throw FileReadError(name, "cannot be read: " + ec.message());
  if (size > max_bytes) {
    throw FileReadError(name, fmt::format("is {}; at most {} is read", config::approximate_bytes(size), config::approximate_bytes(max_bytes)));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileReadError(name, fmt::format("cannot be read: {}", std::strerror(errno)));
  // Read up to one byte past the limit: a file that grows (or whose size the file system does
  // not report, as /proc's) is still bounded.
  std::string text;
  char buffer[1 << 16];
  while (in) {
    in.read(buffer, sizeof buffer);
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) throw FileReadError(name, fmt::format("is more than {}; at most that is read", config::approximate_bytes(max_bytes)));
  }
  if (in.bad()) throw FileReadError(name, "read error");
  return text;
}

}  // namespace tessera::sim::io

#include "sim/app/atomic_file.h"

#include <unistd.h>

#include <fstream>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

namespace tessera::app {

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  if (ec) throw std::runtime_error(fmt::format("cannot create {}: {}", path.parent_path().string(), ec.message()));
  // The pid keeps concurrent writers (parallel sweeps) off each other's temporaries.
  const fs::path tmp = path.parent_path() / fmt::format(".{}.tmp-{}", path.filename().string(), ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      throw std::runtime_error(fmt::format("cannot write {}", tmp.string()));
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw std::runtime_error(fmt::format("cannot rename {} to {}: {}", tmp.string(), path.string(), ec.message()));
  }
}

}  // namespace tessera::app

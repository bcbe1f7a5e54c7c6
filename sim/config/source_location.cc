#include "sim/config/source_location.h"

#include <fmt/format.h>

namespace tessera::sim::config {

std::string SourceLocation::to_string() const {
  if (line <= 0) return file;
  return fmt::format("{}:{}:{}", file, line, column);
}

}  // namespace tessera::sim::config

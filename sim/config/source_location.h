#pragma once
// Where a config value came from, so that every error can point at it.
#include <string>

namespace tessera::sim::config {

struct SourceLocation {
  std::string file;  // display name: a path, "embedded:systems/x.yaml", or "--set key=value"
  int line = 0;      // 1-based; 0 when the source has no lines (a --set flag)
  int column = 0;    // 1-based

  // "FILE:LINE:COLUMN", or just FILE when there is no line (a --set flag names itself).
  std::string to_string() const;

  bool operator==(const SourceLocation&) const = default;
};

}  // namespace tessera::sim::config

#pragma once
// The one error type of config reading: it names the place (file, line, column, or the
// --set flag), the key path and what is wrong. Programs exit 2 on it.
#include <stdexcept>
#include <string>

#include "sim/config/source_location.h"

namespace tessera::sim::config {

class ConfigNode;

class ConfigError : public std::runtime_error {
 public:
  // what() = "FILE:LINE:COLUMN: key.path: message" (the key path part omitted when empty).
  ConfigError(SourceLocation location, std::string key_path, std::string message);
  // At a node: its location and its path.
  ConfigError(const ConfigNode& node, std::string message);

  const SourceLocation& location() const { return location_; }
  const std::string& key_path() const { return key_path_; }
  const std::string& message() const { return message_; }

 private:
  SourceLocation location_;
  std::string key_path_;
  std::string message_;
};

}  // namespace tessera::sim::config

#pragma once
// A bad command line (unknown flag, missing value, bad number): exit code 2, message to stderr.
#include <stdexcept>
#include <string>

namespace tessera::app {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tessera::app

#pragma once
// Runs a callable that must throw ConfigError, and returns the error for checking.
#include <doctest/doctest.h>

#include <stdexcept>
#include <utility>

#include "sim/config/config_error.h"

namespace tessera::sim::config::test {

template <class F>
ConfigError config_error_of(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("expected a ConfigError");
  throw std::logic_error("unreachable");
}

}  // namespace tessera::sim::config::test

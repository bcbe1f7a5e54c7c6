#pragma once
// A property a fuzz target checks beyond "no crash": when it fails, print what and abort, so
// that libFuzzer saves the input as a crash (an exception could be caught on the way out).
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tessera::fuzz {

inline void check(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz check failed: %s\n", what.c_str());
  std::abort();
}

}  // namespace tessera::fuzz

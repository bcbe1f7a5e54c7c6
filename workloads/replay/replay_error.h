#pragma once
// A trace that cannot be replayed as written (an access outside its buffer, a flag on a rank
// that does not exist, a negative loop count): bad input, reported with the kernel, the
// workgroup and the instruction, never a crash.
#include <stdexcept>
#include <string>

namespace tessera::workloads::replay {

class ReplayError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tessera::workloads::replay

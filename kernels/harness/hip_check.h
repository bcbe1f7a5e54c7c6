// HIP_CHECK(call): a failed runtime call becomes an exception naming the call, the file and the line, so a case
// fails with a message instead of producing numbers from a broken state.
#pragma once

#include <stdexcept>
#include <string>

#include "port/hip_port.h"

namespace tk {

inline void throw_hip_error(hipError_t status, const char* call, const char* file, int line) {
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                           hipGetErrorString(status));
}

}  // namespace tk

#define HIP_CHECK(call)                                                  \
  do {                                                                   \
    hipError_t tk_status_ = (call);                                      \
    if (tk_status_ != hipSuccess) tk::throw_hip_error(tk_status_, #call, __FILE__, __LINE__); \
  } while (0)

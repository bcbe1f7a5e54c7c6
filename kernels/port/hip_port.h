// The one header kernel sources include instead of <hip/hip_runtime.h>.
//
// Kernel code in kernels/ is plain HIP. On AMD (hipcc) this header is HIP's own runtime header. On NVIDIA (nvcc)
// it maps the HIP names the suite uses onto CUDA, because HIP 5.2's own NVIDIA headers (hip/nvidia_detail) no longer
// compile against CUDA 13 (they use removed cudaDeviceProp fields and old prefetch signatures).
// Only what the suite uses is mapped; a missing name fails to compile rather than silently meaning something else.
#pragma once

#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__)
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
#define TK_PLATFORM_AMD 1
#elif defined(__CUDACC__)
#include "hip_port_nvidia.h"
#define TK_PLATFORM_NVIDIA 1
#else
#error "kernels/ sources build with hipcc (AMD) or nvcc (NVIDIA)"
#endif

#include "device_atomics.h"

namespace tk {

// Threads of one wavefront (AMD CDNA: 64) or warp (NVIDIA: 32); a compile-time constant for tile shapes.
#if defined(TK_PLATFORM_AMD)
inline constexpr int kWaveSize = 64;
#else
inline constexpr int kWaveSize = 32;
#endif

}  // namespace tk

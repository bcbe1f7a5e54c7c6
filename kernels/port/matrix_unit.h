// The matrix units through one small interface: a 16 x 16 x 16 multiply-accumulate with fp16 inputs and fp32
// accumulation, executed by one wavefront (AMD, 64 lanes) or one warp (NVIDIA, 32 lanes). Kernels are written
// against this interface and stay plain HIP; the fragments are opaque per-lane register sets.
//
//   NVIDIA (sm_70+): nvcuda::wmma fragments (mma.h).
//   AMD CDNA 2/3 (gfx90a, gfx940-942): v_mfma_f32_16x16x16f16 (__builtin_amdgcn_mfma_f32_16x16x16f16), with the
//   operand layout of AMD's matrix instruction calculator: for A (16 x 16, row i, column k) lane i + 16 * (k / 4)
//   holds element k % 4; for B (row k, column j) lane j + 16 * (k / 4) holds element k % 4; for C (row i, column j)
//   lane j + 16 * (i / 4) holds element i % 4.
//
// Every lane of the wave must call these together (as for wmma). Pointers may be to shared or global memory;
// `ld` is the leading dimension in elements: a multiple of 8 for fp16 and of 4 for fp32, and 32-byte aligned
// tiles (wmma's rules, kept on both platforms).
#pragma once

#include <type_traits>

#include "port/hip_port.h"

#if defined(TK_PLATFORM_NVIDIA)
#include <mma.h>
#endif

namespace tk::mma {

inline constexpr int kTile = 16;  // M = N = K of one operation

struct RowMajor {};
struct ColMajor {};

#if defined(TK_PLATFORM_NVIDIA)

struct FragmentA {
  nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __half, nvcuda::wmma::row_major> value;
};
template <class Layout>
struct FragmentB {
  using layout = typename std::conditional<std::is_same<Layout, RowMajor>::value, nvcuda::wmma::row_major,
                                           nvcuda::wmma::col_major>::type;
  nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, __half, layout> value;
};
struct Accumulator {
  nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> value;
};

__device__ inline void zero(Accumulator& c) { nvcuda::wmma::fill_fragment(c.value, 0.0f); }
// A: 16 x 16, row-major at `tile` with leading dimension ld.
__device__ inline void load_a(FragmentA& a, const __half* tile, int ld) {
  nvcuda::wmma::load_matrix_sync(a.value, tile, ld);
}
// B (K x N): RowMajor: B[k][j] at tile[k * ld + j]; ColMajor: B[k][j] at tile[j * ld + k] (B^T stored row-major).
template <class Layout>
__device__ inline void load_b(FragmentB<Layout>& b, const __half* tile, int ld) {
  nvcuda::wmma::load_matrix_sync(b.value, tile, ld);
}
template <class Layout>
__device__ inline void multiply_add(Accumulator& c, const FragmentA& a, const FragmentB<Layout>& b) {
  nvcuda::wmma::mma_sync(c.value, a.value, b.value, c.value);
}
// C: 16 x 16 fp32, row-major at `tile` with leading dimension ld.
__device__ inline void store(float* tile, int ld, const Accumulator& c) {
  nvcuda::wmma::store_matrix_sync(tile, c.value, ld, nvcuda::wmma::mem_row_major);
}

#else  // AMD

typedef _Float16 HalfVector4 __attribute__((ext_vector_type(4)));
typedef float FloatVector4 __attribute__((ext_vector_type(4)));

struct FragmentA {
  HalfVector4 value;
};
template <class Layout>
struct FragmentB {
  HalfVector4 value;
};
struct Accumulator {
  FloatVector4 value;
};

__device__ inline _Float16 as_float16(__half h) {
  _Float16 out;
  __builtin_memcpy(&out, &h, sizeof out);
  return out;
}
__device__ inline int lane_id() { return static_cast<int>(threadIdx.x) % kWaveSize; }

__device__ inline void zero(Accumulator& c) { c.value = FloatVector4{0.0f, 0.0f, 0.0f, 0.0f}; }
__device__ inline void load_a(FragmentA& a, const __half* tile, int ld) {
  const int lane = lane_id();
  const __half* row = tile + (lane % 16) * ld + 4 * (lane / 16);
  for (int e = 0; e < 4; ++e) a.value[e] = as_float16(row[e]);
}
template <class Layout>
__device__ inline void load_b(FragmentB<Layout>& b, const __half* tile, int ld) {
  const int lane = lane_id();
  const int column = lane % 16, first_k = 4 * (lane / 16);
  for (int e = 0; e < 4; ++e) {
    const int k = first_k + e;
    b.value[e] = as_float16(std::is_same<Layout, RowMajor>::value ? tile[k * ld + column] : tile[column * ld + k]);
  }
}
template <class Layout>
__device__ inline void multiply_add(Accumulator& c, const FragmentA& a, const FragmentB<Layout>& b) {
#if defined(__HIP_DEVICE_COMPILE__)
#if defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__) || defined(__gfx908__)
  c.value = __builtin_amdgcn_mfma_f32_16x16x16f16(a.value, b.value, c.value, 0, 0, 0);
#else
#error "tk::mma: this AMD target has no 16x16x16 fp16 MFMA (build for gfx90a or gfx94x)"
#endif
#else
  (void)c;
  (void)a;
  (void)b;
#endif
}
__device__ inline void store(float* tile, int ld, const Accumulator& c) {
  const int lane = lane_id();
  const int column = lane % 16, first_row = 4 * (lane / 16);
  for (int e = 0; e < 4; ++e) tile[(first_row + e) * ld + column] = c.value[e];
}

#endif

}  // namespace tk::mma

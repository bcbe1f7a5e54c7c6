#pragma once
// Pure timing of matrix work on one compute unit (CU).
//
// A workgroup runs on one CU, so a tile's compute time alone on a CU is
//   flops / (matrix_flops_per_clock_per_cu[dtype] * clock_hz * matrix_efficiency[dtype])
// seconds, rounded up to whole ps (never early). When several workgroups share a CU, they
// share its matrix rate; that sharing is MatrixUnit's business, not these functions'.
#include <cstdint>
#include <string_view>

#include "models/system/system_spec.h"
#include "sim/core/tick.h"

namespace tessera::models::compute {

// The matrix-unit data types a system file gives rates for. An enum, not a string, so the
// hot path never compares text; parse once at the edge.
enum class Dtype : std::uint8_t { kFp16, kBf16, kFp8, kFp32 };
inline constexpr std::size_t kNumDtypes = 4;

Dtype parse_dtype(std::string_view name);  // "fp16", "bf16", "fp8", "fp32"; throws otherwise
std::string_view dtype_name(Dtype dtype);
double rate_of(const DtypeRates& rates, Dtype dtype);

// Achieved FLOP per ps of one CU's matrix unit. Throws std::invalid_argument when the rate,
// clock or efficiency is not positive (the GPU cannot run that dtype).
double cu_matrix_flops_per_ps(const ComputeSpec& spec, Dtype dtype);

// The kernel_efficiency entry of `kernel` for `dtype`, or nullptr (the kernel uses matrix_efficiency).
const KernelEfficiency* kernel_efficiency_of(const ComputeSpec& spec, std::string_view kernel, Dtype dtype);

// The efficiency of a CU with `resident` workgroups (at least 1) under `curve`: entry resident - 1,
// the last entry beyond the list; matrix_efficiency[dtype] when curve is nullptr.
double efficiency_at(const ComputeSpec& spec, Dtype dtype, const KernelEfficiency* curve, std::uint32_t resident);

// Exact (fractional) and rounded-up time of `flops` alone on one CU.
double compute_exact_ps(double flops, Dtype dtype, const ComputeSpec& spec);
// The same at a given efficiency (in (0, 1]) instead of matrix_efficiency[dtype].
double compute_exact_ps(double flops, Dtype dtype, const ComputeSpec& spec, double efficiency);
sim::Tick compute_ps(double flops, Dtype dtype, const ComputeSpec& spec);

// Rounds a non-negative time up to whole ps. A value within 1e-9 (relative) of an integer is
// that integer: floating residue must not add a ps to an exact result.
sim::Tick ceil_ps(double ps);

}  // namespace tessera::models::compute

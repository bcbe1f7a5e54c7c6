#include "models/compute/compute_timing.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <string>

namespace tessera::models::compute {

Dtype parse_dtype(std::string_view name) {
  if (name == "fp16") return Dtype::kFp16;
  if (name == "bf16") return Dtype::kBf16;
  if (name == "fp8") return Dtype::kFp8;
  if (name == "fp32") return Dtype::kFp32;
  throw std::invalid_argument("unknown data type '" + std::string(name) + "' (fp16, bf16, fp8, fp32)");
}

std::string_view dtype_name(Dtype dtype) {
  switch (dtype) {
    case Dtype::kFp16: return "fp16";
    case Dtype::kBf16: return "bf16";
    case Dtype::kFp8: return "fp8";
    case Dtype::kFp32: return "fp32";
  }
  return "?";
}

double rate_of(const DtypeRates& rates, Dtype dtype) {
  switch (dtype) {
    case Dtype::kFp16: return rates.fp16;
    case Dtype::kBf16: return rates.bf16;
    case Dtype::kFp8: return rates.fp8;
    case Dtype::kFp32: return rates.fp32;
  }
  return 0.0;
}

double cu_matrix_flops_per_ps(const ComputeSpec& spec, Dtype dtype) {
  const double per_clock = rate_of(spec.matrix_flops_per_clock_per_cu, dtype);
  const double efficiency = rate_of(spec.matrix_efficiency, dtype);
  if (!(per_clock > 0) || !(spec.clock_hz > 0) || !(efficiency > 0)) {
    throw std::invalid_argument("no positive matrix rate for " + std::string(dtype_name(dtype)) +
                                " (matrix_flops_per_clock_per_cu, clock_hz and matrix_efficiency must be > 0)");
  }
  // Divide the clock down to ps first: 2048 * 2.1e9 / 1e12 keeps the product near 1.
  return per_clock * (spec.clock_hz / 1e12) * efficiency;
}

const KernelEfficiency* kernel_efficiency_of(const ComputeSpec& spec, std::string_view kernel, Dtype dtype) {
  for (const KernelEfficiency& k : spec.kernel_efficiency) {
    if (k.kernel == kernel && k.dtype == dtype_name(dtype) && !k.efficiency.empty()) return &k;
  }
  return nullptr;
}

double efficiency_at(const ComputeSpec& spec, Dtype dtype, const KernelEfficiency* curve, std::uint32_t resident) {
  if (curve == nullptr) return rate_of(spec.matrix_efficiency, dtype);
  const std::size_t i = std::min<std::size_t>(std::max<std::uint32_t>(resident, 1) - 1, curve->efficiency.size() - 1);
  return curve->efficiency[i];
}

double compute_exact_ps(double flops, Dtype dtype, const ComputeSpec& spec, double efficiency) {
  if (!(flops >= 0)) throw std::invalid_argument("FLOP count must be non-negative");
  const double per_clock = rate_of(spec.matrix_flops_per_clock_per_cu, dtype);
  if (!(per_clock > 0) || !(spec.clock_hz > 0) || !(efficiency > 0)) {
    throw std::invalid_argument("no positive matrix rate for " + std::string(dtype_name(dtype)) +
                                " (matrix_flops_per_clock_per_cu, clock_hz and the efficiency must be > 0)");
  }
  return flops / (per_clock * (spec.clock_hz / 1e12) * efficiency);
}

double compute_exact_ps(double flops, Dtype dtype, const ComputeSpec& spec) {
  if (!(flops >= 0)) throw std::invalid_argument("FLOP count must be non-negative");
  return flops / cu_matrix_flops_per_ps(spec, dtype);
}

sim::Tick compute_ps(double flops, Dtype dtype, const ComputeSpec& spec) {
  return ceil_ps(compute_exact_ps(flops, dtype, spec));
}

sim::Tick ceil_ps(double ps) {
  if (!(ps >= 0)) throw std::out_of_range(fmt::format("compute time {} ps is not a time", ps));
  if (ps >= static_cast<double>(sim::kEndOfTimePs)) {
    throw sim::TimeRangeError(fmt::format("compute work of {:.6g} ps on one CU would end past the end of simulated time", ps));
  }
  const double nearest = std::nearbyint(ps);
  if (std::abs(ps - nearest) <= 1e-9 * std::max(1.0, nearest)) return static_cast<sim::Tick>(nearest);
  return static_cast<sim::Tick>(std::ceil(ps));
}

}  // namespace tessera::models::compute

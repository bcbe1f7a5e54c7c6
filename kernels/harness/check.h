// Checks of a case's output against a reference computed on the host in double precision. The error measure is
// the largest absolute difference relative to the largest reference magnitude (a norm-wise relative error), which
// does not blow up at reference values near zero; NaN (the poison) anywhere fails.
#pragma once

#include <cmath>
#include <string>
#include <vector>

namespace tk {

struct CheckResult {
  bool passed = false;
  double max_relative_error = 0;  // as defined above
  double tolerance = 0;
  std::size_t values_checked = 0;
  std::string detail;  // what failed, or what was compared
};

inline CheckResult compare_relative(const std::vector<float>& got, const std::vector<double>& reference,
                                    double tolerance, const std::string& what) {
  CheckResult result;
  result.tolerance = tolerance;
  result.values_checked = got.size();
  if (got.size() != reference.size()) {
    result.detail = what + ": " + std::to_string(got.size()) + " values, reference has " +
                    std::to_string(reference.size());
    return result;
  }
  double scale = 0;
  for (double value : reference) scale = std::fmax(scale, std::fabs(value));
  if (scale == 0) scale = 1;
  double worst = 0;
  std::size_t worst_index = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) {
      result.max_relative_error = INFINITY;
      result.detail = what + ": value " + std::to_string(i) + " is not finite (never written?)";
      return result;
    }
    const double error = std::fabs(static_cast<double>(got[i]) - reference[i]) / scale;
    if (error > worst) {
      worst = error;
      worst_index = i;
    }
  }
  result.max_relative_error = worst;
  result.passed = worst <= tolerance;
  result.detail = what + ": worst at index " + std::to_string(worst_index) + " (got " +
                  std::to_string(got.empty() ? 0.0 : got[worst_index]) + ", expected " +
                  std::to_string(reference.empty() ? 0.0 : reference[worst_index]) + ")";
  return result;
}

// Both results must pass; the worse error is kept.
inline CheckResult combine(const CheckResult& a, const CheckResult& b) {
  CheckResult out = a.max_relative_error >= b.max_relative_error ? a : b;
  out.passed = a.passed && b.passed;
  out.values_checked = a.values_checked + b.values_checked;
  if (!a.passed) out.detail = a.detail;
  else if (!b.passed) out.detail = b.detail;
  return out;
}

}  // namespace tk

#pragma once
// Cases that differ only by workload.variant (same case, same other parameters, same ranks): is
// the fastest variant the one Tessera predicts fastest, and is the measured gap large enough
// (over 5%) for that to matter? Duplicate results of one variant count as their mean.
#include <optional>
#include <string>
#include <vector>

#include "sim/app/validation/validation_case.h"

namespace tessera::app::validation {

// The measured gap above which the order of the two fastest variants must be predicted right.
inline constexpr double kSignificantGapPercent = 5.0;

struct VariantTime {
  std::string variant;
  double measured_ns = 0;
  double predicted_ns = 0;
  std::size_t results = 0;  // files averaged
};

struct VariantGroup {
  std::string case_name;
  std::string params_text;
  std::uint32_t ranks = 0;
  std::vector<VariantTime> variants;  // fastest measured first
  std::vector<std::string> predicted_order;  // fastest predicted first

  const std::string& measured_fastest() const { return variants.front().variant; }
  const std::string& predicted_fastest() const { return predicted_order.front(); }
  bool agrees() const { return measured_fastest() == predicted_fastest(); }
  // (second fastest - fastest) / fastest, measured, in percent.
  double measured_gap_percent() const;
  bool significant() const { return measured_gap_percent() > kSignificantGapPercent; }
};

// Groups of two variants or more, from the cases with a prediction, in order of first appearance.
std::vector<VariantGroup> group_variants(const std::vector<ValidationCase>& cases);

}  // namespace tessera::app::validation

#pragma once
// What `tessera run --uncertainty N` reports: per variant, the makespan at the system's values
// (the point prediction), its spread over the N sampled systems, and how often the variant was
// the fastest of the ones compared.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/system/parameter_ranges.h"

namespace tessera::app::uncertainty {

struct VariantSpread {
  std::string label;
  double nominal_ns = 0;
  // Quantiles of the sampled makespans, linear between order statistics (numpy's default, "type 7"
  // of Hyndman and Fan, 1996): p5 and p95 bound the central 90%.
  double min_ns = 0, p5_ns = 0, median_ns = 0, p95_ns = 0, max_ns = 0;
  std::size_t fastest_samples = 0;  // samples in which no variant was faster (a tie goes to the first)
};

struct MakespanSpread {
  std::size_t samples = 0;
  std::uint64_t seed = 0;
  std::vector<models::ParameterRange> sampled;  // the ranges drawn from
  std::vector<models::ParameterRange> held;     // ranges that do not hold the system's value
  std::vector<VariantSpread> variants;
  std::size_t incomplete_samples = 0;           // sampled runs a limit stopped (their makespan is a lower bound)
};

// makespans_ns[s][v]: sample s, variant v (labels[v]); nominal_ns[v]: the unsampled runs.
MakespanSpread spread_of(const std::vector<std::string>& labels, const std::vector<double>& nominal_ns,
                         const std::vector<std::vector<double>>& makespans_ns,
                         const std::vector<models::ParameterRange>& ranges, std::uint64_t seed);

// The quantile q in [0, 1] of sorted values (type 7); values must not be empty.
double quantile(const std::vector<double>& sorted, double q);

std::string spread_text(const MakespanSpread& spread);
nlohmann::json spread_json(const MakespanSpread& spread);

}  // namespace tessera::app::uncertainty

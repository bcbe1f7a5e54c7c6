#include "sim/app/uncertainty/makespan_spread.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/app/text_table.h"
#include "sim/app/time_unit.h"
#include "sim/app/uncertainty/parameter_sampling.h"
#include "sim/config/quantity.h"

namespace tessera::app::uncertainty {
namespace {

std::string range_text(const models::ParameterRange& r) {
  return fmt::format("{} in [{}, {}] (value {})", r.key_path, sim::config::format_quantity(r.low),
                     sim::config::format_quantity(r.high), sim::config::format_quantity(r.nominal));
}

}  // namespace

double quantile(const std::vector<double>& sorted, double q) {
  const double h = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

MakespanSpread spread_of(const std::vector<std::string>& labels, const std::vector<double>& nominal_ns,
                         const std::vector<std::vector<double>>& makespans_ns,
                         const std::vector<models::ParameterRange>& ranges, std::uint64_t seed) {
  MakespanSpread out;
  out.samples = makespans_ns.size();
  out.seed = seed;
  out.sampled = sampled_ranges(ranges);
  for (const models::ParameterRange& r : ranges) {
    if (!r.holds_nominal()) out.held.push_back(r);
  }
  for (std::size_t v = 0; v < labels.size(); ++v) {
    VariantSpread s;
    s.label = labels[v];
    s.nominal_ns = nominal_ns[v];
    std::vector<double> values;
    for (const std::vector<double>& sample : makespans_ns) values.push_back(sample[v]);
    std::sort(values.begin(), values.end());
    if (!values.empty()) {
      s.min_ns = values.front();
      s.max_ns = values.back();
      s.p5_ns = quantile(values, 0.05);
      s.median_ns = quantile(values, 0.5);
      s.p95_ns = quantile(values, 0.95);
    }
    out.variants.push_back(s);
  }
  for (const std::vector<double>& sample : makespans_ns) {
    const auto fastest = std::min_element(sample.begin(), sample.end()) - sample.begin();
    ++out.variants[static_cast<std::size_t>(fastest)].fastest_samples;
  }
  return out;
}

std::string spread_text(const MakespanSpread& spread) {
  double max_ns = 0;
  for (const VariantSpread& v : spread.variants) max_ns = std::max({max_ns, v.max_ns, v.nominal_ns});
  const TimeUnit unit = pick_time_unit(max_ns);
  std::string out = fmt::format(
      "Uncertainty: {} samples (seed {}), each of the {} parameters below drawn uniformly from its range:\n",
      spread.samples, spread.seed, spread.sampled.size());
  TextTable t({"variant", with_unit("point", unit), with_unit("median", unit), with_unit("5%", unit),
               with_unit("95%", unit), with_unit("min", unit), with_unit("max", unit), "fastest in"});
  for (const VariantSpread& v : spread.variants) {
    t.add_row({v.label, format_time(v.nominal_ns, unit), format_time(v.median_ns, unit), format_time(v.p5_ns, unit),
               format_time(v.p95_ns, unit), format_time(v.min_ns, unit), format_time(v.max_ns, unit),
               fmt::format("{:.0f}%", spread.samples == 0 ? 0.0 : 100.0 * v.fastest_samples / spread.samples)});
  }
  out += t.render();
  for (const models::ParameterRange& r : spread.sampled) out += "  sampled: " + range_text(r) + "\n";
  for (const models::ParameterRange& r : spread.held) {
    out += "  held at its value (outside the file's range, which describes another value): " + range_text(r) + "\n";
  }
  if (spread.sampled.empty()) out += "  (the system file gives no ranges: every sample is the point prediction)\n";
  if (spread.incomplete_samples > 0) {
    out += fmt::format("  {} sampled runs were stopped by a limit: their makespans are lower bounds\n",
                       spread.incomplete_samples);
  }
  return out;
}

nlohmann::json spread_json(const MakespanSpread& spread) {
  nlohmann::json j;
  j["samples"] = spread.samples;
  j["seed"] = spread.seed;
  j["incomplete_samples"] = spread.incomplete_samples;
  const auto ranges_json = [](const std::vector<models::ParameterRange>& ranges) {
    nlohmann::json a = nlohmann::json::array();
    for (const models::ParameterRange& r : ranges) {
      a.push_back({{"key", r.key_path},
                   {"low", sim::config::format_quantity(r.low)},
                   {"high", sim::config::format_quantity(r.high)},
                   {"value", sim::config::format_quantity(r.nominal)}});
    }
    return a;
  };
  j["sampled"] = ranges_json(spread.sampled);
  j["held"] = ranges_json(spread.held);
  j["variants"] = nlohmann::json::array();
  for (const VariantSpread& v : spread.variants) {
    j["variants"].push_back({{"label", v.label},
                             {"point_ns", v.nominal_ns},
                             {"median_ns", v.median_ns},
                             {"p5_ns", v.p5_ns},
                             {"p95_ns", v.p95_ns},
                             {"min_ns", v.min_ns},
                             {"max_ns", v.max_ns},
                             {"fastest_fraction", spread.samples == 0 ? 0.0 : double(v.fastest_samples) / spread.samples}});
  }
  return j;
}

}  // namespace tessera::app::uncertainty

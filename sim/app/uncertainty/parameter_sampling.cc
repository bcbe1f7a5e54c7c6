#include "sim/app/uncertainty/parameter_sampling.h"

#include <fmt/format.h>

#include "sim/config/config_error.h"
#include "sim/config/overrides.h"
#include "sim/config/quantity.h"

namespace tessera::app::uncertainty {
namespace {

// SplitMix64's finaliser (Steele, Lea, Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014): a bijective mix whose outputs pass BigCrush, enough for independent draws.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// FNV-1a: the key path's own stream, independent of the other ranges.
std::uint64_t key_hash(const std::string& key) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (const unsigned char c : key) h = (h ^ c) * 0x100000001B3ULL;
  return h;
}

// A double in [0, 1): the top 53 bits of the mixed state.
double unit_draw(std::uint64_t seed, std::size_t sample, const std::string& key) {
  const std::uint64_t x = mix(mix(mix(seed) ^ static_cast<std::uint64_t>(sample)) ^ key_hash(key));
  return static_cast<double>(x >> 11) * 0x1.0p-53;
}

}  // namespace

std::vector<models::ParameterRange> sampled_ranges(const std::vector<models::ParameterRange>& ranges) {
  std::vector<models::ParameterRange> out;
  for (const models::ParameterRange& r : ranges) {
    if (r.holds_nominal()) out.push_back(r);
  }
  return out;
}

std::vector<std::string> sample_overrides(const std::vector<models::ParameterRange>& ranges, std::uint64_t seed,
                                          std::size_t sample) {
  std::vector<std::string> out;
  for (const models::ParameterRange& r : sampled_ranges(ranges)) {
    sim::config::Quantity q = r.low;
    q.value = r.low.value + unit_draw(seed, sample, r.key_path) * (r.high.value - r.low.value);
    out.push_back(fmt::format("system.{}={}", r.key_path, sim::config::format_quantity(q)));
  }
  return out;
}

void check_range_bounds(const sim::config::ConfigNode& system, const std::vector<models::ParameterRange>& ranges) {
  const sim::config::ConfigNode* entries = system.find("uncertainty");
  for (const models::ParameterRange& r : ranges) {
    for (const sim::config::Quantity& bound : {r.low, r.high}) {
      const std::string text = sim::config::format_quantity(bound);
      sim::config::ConfigNode with = system;
      sim::config::Override o = sim::config::parse_override(r.key_path + "=" + text);
      try {
        sim::config::apply_override(with, o);
        models::read_system(with);
      } catch (const sim::config::ConfigError& e) {
        const std::string where = entries != nullptr ? "system.uncertainty." + r.key_path : r.key_path;
        throw sim::config::ConfigError(r.location, where,
                                       fmt::format("the bound {} is not a value this parameter takes: {}", text, e.what()));
      }
    }
  }
}

}  // namespace tessera::app::uncertainty

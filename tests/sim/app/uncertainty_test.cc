// The parameter ranges of a system file, the draws of `tessera run --uncertainty` and the spread
// it reports (models/system/parameter_ranges.h, sim/app/uncertainty/).
#include <doctest/doctest.h>

#include <set>
#include <span>
#include <string>

#include "models/system/parameter_ranges.h"
#include "sim/app/uncertainty/makespan_spread.h"
#include "sim/app/uncertainty/parameter_sampling.h"
#include "sim/config/config_error.h"
#include "sim/config/config_loader.h"
#include "sim/config/embedded_files.h"
#include "sim/config/file_resolver.h"
#include "sim/config/overrides.h"

namespace tessera::app::uncertainty {
namespace {

using sim::config::ConfigError;
using sim::config::ConfigNode;

// The shipped nameplate MI300X without its ranges (the estimates' ranges it carries would mix with
// the ones each test gives): "systems/plain-mi300x-1.yaml", a fixture cut from the embedded file.
std::span<const sim::config::EmbeddedFile> plain_fixture() {
  static const std::string text = [] {
    for (const sim::config::EmbeddedFile& f : sim::config::embedded_files()) {
      if (f.path != "systems/mi300x-1-spec.yaml") continue;
      const std::string whole(f.text);
      return whole.substr(0, whole.find("\nuncertainty:") + 1);
    }
    FAIL("no embedded mi300x-1-spec");
    return std::string();
  }();
  static const sim::config::EmbeddedFile file{"systems/plain-mi300x-1.yaml", text};
  return {&file, 1};
}

ConfigNode system_node(const std::string& yaml) {
  sim::config::FileResolver resolver;
  resolver.add_embedded(sim::config::embedded_files());
  resolver.add_embedded(plain_fixture(), "fixture:");
  return sim::config::ConfigLoader(resolver).load_text(yaml, "ranges.yaml", "system");
}

std::vector<models::ParameterRange> ranges_of(const std::string& yaml) {
  const ConfigNode node = system_node(yaml);
  return models::read_parameter_ranges(node, models::read_system(node));
}

std::string error_of(const std::string& yaml) {
  try {
    ranges_of(yaml);
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL("expected a ConfigError");
  return {};
}

const char* kBase = "base: plain-mi300x-1\n";  // nameplate, no ranges of its own

TEST_CASE("a system file's ranges are read flat or nested, in key order, with the system's value") {
  const auto ranges = ranges_of(std::string(kBase) +
                                "uncertainty:\n"
                                "  gpu.memory.hbm_latency: [405 ns, 0.45 us]\n"
                                "  gpu:\n"
                                "    compute: {matrix_efficiency.bf16: [0.5, 0.6]}\n");
  REQUIRE(ranges.size() == 2);
  CHECK(ranges[0].key_path == "gpu.compute.matrix_efficiency.bf16");
  CHECK(ranges[0].nominal.value == 1.0);
  CHECK_FALSE(ranges[0].holds_nominal());  // the spec file's 1 is outside [0.5, 0.6]
  CHECK(ranges[1].key_path == "gpu.memory.hbm_latency");
  CHECK(ranges[1].low.value == 405e3);
  CHECK(ranges[1].high.value == 450e3);
  CHECK(ranges[1].nominal.value == 428e3);
  CHECK(ranges[1].holds_nominal());
  CHECK(ranges[1].location.line == 3);
  CHECK(ranges_of(kBase).empty());
}

TEST_CASE("a third item 'estimate' marks a value no measurement gives, listed while the range holds it") {
  const auto ranges = ranges_of(std::string(kBase) +
                                "uncertainty:\n"
                                "  gpu.memory.hbm_latency: [405 ns, 450 ns, estimate]\n"
                                "  gpu.atomics.local_latency: [100 ns, 150 ns, estimate]\n"
                                "  interconnect.pcie_bandwidth: [50 GB/s, 64 GB/s]\n");
  REQUIRE(ranges.size() == 3);
  CHECK(ranges[0].estimate);   // gpu.atomics.local_latency: 200 ns in the nameplate file, outside its range
  CHECK(ranges[1].estimate);   // gpu.memory.hbm_latency
  CHECK_FALSE(ranges[2].estimate);
  CHECK(models::estimated_keys(ranges) == std::vector<std::string>{"gpu.memory.hbm_latency"});
  CHECK(error_of(std::string(kBase) + "uncertainty:\n  gpu.memory.hbm_latency: [1 ns, 2 ns, guess]\n")
            .find("[LOW, HIGH, estimate]") != std::string::npos);
}

TEST_CASE("a bad range is an error at its entry naming the key") {
  const std::string misspelled = error_of(std::string(kBase) + "uncertainty:\n  gpu.memory.hbm_latncy: [1 ns, 2 ns]\n");
  CHECK(misspelled.find("ranges.yaml:3") != std::string::npos);
  CHECK(misspelled.find("'gpu.memory.hbm_latncy' is not a parameter") != std::string::npos);
  CHECK(misspelled.find("did you mean 'hbm_latency'") != std::string::npos);
  CHECK(error_of(std::string(kBase) + "uncertainty:\n  gpu.memory.hbm_latency: [1 GB/s, 2 GB/s]\n").find("expected a time") !=
        std::string::npos);
  CHECK(error_of(std::string(kBase) + "uncertainty:\n  gpu.memory.hbm_latency: [2 ns, 1 ns]\n").find("above the high") !=
        std::string::npos);
  CHECK(error_of(std::string(kBase) + "uncertainty:\n  gpu.memory.hbm_latency: 2 ns\n").find("[LOW, HIGH]") !=
        std::string::npos);
  CHECK(error_of(std::string(kBase) + "uncertainty:\n  gpu.dispatch.policy: [1, 2]\n").find("not a numeric parameter") !=
        std::string::npos);
  CHECK(error_of(std::string(kBase) + "uncertainty:\n  gpu.memory.hbm_latency: [1 ns, 2 ns]\n  gpu:\n    memory:\n"
                                      "      hbm_latency: [1 ns, 3 ns]\n")
            .find("two ranges") != std::string::npos);
  CHECK(error_of(std::string(kBase) + "uncertainty: [1, 2]\n").find("expected a map") != std::string::npos);
}

TEST_CASE("a bound the parameter cannot take is refused before any sample runs") {
  const ConfigNode node = system_node(std::string(kBase) + "uncertainty:\n  gpu.compute.matrix_efficiency.bf16: [0.5, 1.2]\n");
  const auto ranges = models::read_parameter_ranges(node, models::read_system(node));
  try {
    check_range_bounds(node, ranges);
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("ranges.yaml:3") != std::string::npos);
    CHECK(std::string(e.what()).find("the bound 1.2") != std::string::npos);
  }
}

TEST_CASE("draws are uniform in the range, the same for the same seed and sample, and stable per key") {
  const auto ranges = ranges_of(std::string(kBase) +
                                "uncertainty:\n"
                                "  gpu.memory.hbm_latency: [400 ns, 500 ns]\n"
                                "  gpu.memory.hbm_bandwidth: [4 TB/s, 5.3 TB/s]\n");
  const auto a = sample_overrides(ranges, 7, 3);
  REQUIRE(a.size() == 2);
  CHECK(a == sample_overrides(ranges, 7, 3));
  CHECK(a != sample_overrides(ranges, 7, 4));
  CHECK(a != sample_overrides(ranges, 8, 3));
  // Removing one range leaves the other's draw as it was.
  const auto only = sample_overrides({ranges[1]}, 7, 3);
  REQUIRE(only.size() == 1);
  CHECK(only[0] == a[1]);
  // Every draw parses, lies in the range, and the draws spread over it.
  double lo = 1e300, hi = 0, sum = 0;
  const int n = 400;
  for (int s = 0; s < n; ++s) {
    const std::string o = sample_overrides(ranges, 1, static_cast<std::size_t>(s))[1];
    REQUIRE(o.rfind("system.gpu.memory.hbm_latency=", 0) == 0);
    const double v = sim::config::parse_quantity(o.substr(o.find('=') + 1)).value;
    CHECK(v >= 400e3);
    CHECK(v <= 500e3);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  CHECK(lo < 405e3);
  CHECK(hi > 495e3);
  CHECK(sum / n == doctest::Approx(450e3).epsilon(0.03));  // the mean of U(400, 500) ns, 3 standard errors ~ 2.5%
}

TEST_CASE("a zero-width range draws its one value, and a range that misses the value is held") {
  const auto ranges = ranges_of(std::string(kBase) +
                                "uncertainty:\n"
                                "  gpu.memory.hbm_latency: [428 ns, 428 ns]\n"
                                "  gpu.memory.l2.hit_latency: [1 us, 2 us]\n");
  const auto o = sample_overrides(ranges, 1, 0);
  REQUIRE(o.size() == 1);
  CHECK(o[0] == "system.gpu.memory.hbm_latency=428 ns");
  CHECK(sampled_ranges(ranges).size() == 1);
}

TEST_CASE("quantiles interpolate between order statistics") {
  CHECK(quantile({1, 2, 3, 4, 5}, 0.5) == 3);
  CHECK(quantile({1, 2, 3, 4}, 0.5) == 2.5);
  CHECK(quantile({10}, 0.95) == 10);
  CHECK(quantile({0, 100}, 0.05) == doctest::Approx(5));
}

TEST_CASE("the spread counts how often each variant is fastest, a tie going to the first") {
  const MakespanSpread s =
      spread_of({"bsp", "pull"}, {10, 20}, {{10, 20}, {30, 20}, {15, 15}, {12, 11}}, {}, 5);
  REQUIRE(s.variants.size() == 2);
  CHECK(s.samples == 4);
  CHECK(s.variants[0].fastest_samples == 2);
  CHECK(s.variants[1].fastest_samples == 2);
  CHECK(s.variants[0].min_ns == 10);
  CHECK(s.variants[0].max_ns == 30);
  CHECK(s.variants[0].median_ns == 13.5);
  CHECK(s.variants[1].nominal_ns == 20);
  CHECK(spread_json(s)["variants"][1]["fastest_fraction"] == 0.5);
  CHECK(spread_text(s).find("fastest in") != std::string::npos);
}

}  // namespace
}  // namespace tessera::app::uncertainty

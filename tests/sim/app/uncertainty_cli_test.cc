// `tessera run --uncertainty N` and `--variants`, as the real program: the point prediction
// when every range has zero width, on every tile-level kind; a spread and the fastest counts
// otherwise; the same output on any thread count; the errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/sim/app/cli_process.h"

using tessera::test::run_tessera;
using tessera::test::write_file;

namespace {

std::string config_with(const std::string& ranges, const std::string& workload) {
  return fmt::format("system:\n  base: mi300x-8-spec\n  uncertainty: {}\nworkload: {}\n", ranges, workload);
}

nlohmann::json run_json(const std::string& args) {
  const auto r = run_tessera("run --json --quiet " + args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

// Ranges of zero width at the system's own values: three given here, and one at each value that the
// base file gives a range (the nameplate file's estimates), read off a run's list of sampled ranges.
std::string zero_width_ranges(std::size_t& count) {
  const auto base = write_file("uncertainty_base.yaml", config_with("{}", "{kind: gemm, m: 256, n: 256, k: 256}"));
  const auto sampled = run_json(fmt::format("'{}' --uncertainty 1", base.string()))["uncertainty"]["sampled"];
  std::string ranges =
      "{gpu.memory.hbm_latency: [428 ns, 428 ns], interconnect.link_bandwidth: [64 GB/s, 64 GB/s], "
      "gpu.compute.matrix_efficiency.fp16: [1, 1]";
  count = 3;
  for (const auto& r : sampled) {
    const std::string value = r["value"].get<std::string>();
    ranges += fmt::format(", {}: [{}, {}]", r["key"].get<std::string>(), value, value);
    ++count;
  }
  return ranges + "}";
}

}  // namespace

TEST_CASE("with zero-width ranges every sample is the point prediction, on every tile-level kind") {
  for (const char* workload : {"{kind: gemm, m: 512, n: 512, k: 512}",
                               "{kind: ag_gemm, m: 256, n: 256, k: 512, ranks: 2}",
                               "{kind: gemm_all_scatter, m: 256, n: 512, k: 512, ranks: 2}",
                               "{kind: gemm_all_reduce, m: 256, n: 256, k: 1024, ranks: 2}",
                               "{kind: flash_decode, batch: 1, kv_len_per_rank: 4096, ranks: 2}",
                               "{kind: attention, q_heads: 8, seq_len: 1024}",
                               "{kind: collective, op: all_reduce, size: 1 MiB, ranks: 2}"}) {
    INFO(workload);
    std::size_t ranges = 0;
    const auto config = write_file("uncertainty_zero.yaml", config_with(zero_width_ranges(ranges), workload));
    const auto j = run_json(fmt::format("'{}' --uncertainty 3", config.string()));
    const auto& u = j["uncertainty"];
    CHECK(u["samples"] == 3);
    CHECK(ranges > 3);  // the nameplate file lists its estimates
    CHECK(u["sampled"].size() == ranges);
    REQUIRE(u["variants"].size() == 1);
    const auto& v = u["variants"][0];
    const double point = j["makespan_ns"].get<double>();
    CHECK(v["point_ns"].get<double>() == point);
    for (const char* q : {"min_ns", "p5_ns", "median_ns", "p95_ns", "max_ns"}) CHECK(v[q].get<double>() == point);
    CHECK(v["fastest_fraction"] == 1.0);
  }
}

TEST_CASE("wide ranges spread the makespans, each variant's share of fastest samples sums to one") {
  const auto config = write_file(
      "uncertainty_wide.yaml",
      config_with("{gpu.memory.hbm_latency: [300 ns, 900 ns], interconnect.link_bandwidth: [16 GB/s, 64 GB/s], "
                  "gpu.compute.matrix_efficiency.fp16: [0.3, 1]}",
                  "{kind: ag_gemm, m: 256, n: 1024, k: 2048, ranks: 2}"));
  const auto one = run_tessera(fmt::format("run --json --quiet '{}' --variants all --uncertainty 6 --jobs 1", config.string()));
  const auto two = run_tessera(fmt::format("run --json --quiet '{}' --variants all --uncertainty 6 --jobs 2", config.string()));
  REQUIRE(one.exit_code == 0);
  REQUIRE(two.exit_code == 0);
  const auto u = nlohmann::json::parse(one.out)["uncertainty"];
  CHECK(u == nlohmann::json::parse(two.out)["uncertainty"]);  // the same on any thread count
  REQUIRE(u["variants"].size() == 3);
  double share = 0;
  for (const auto& v : u["variants"]) {
    CHECK(v["min_ns"].get<double>() < v["max_ns"].get<double>());
    CHECK(v["p5_ns"].get<double>() <= v["median_ns"].get<double>());
    CHECK(v["median_ns"].get<double>() <= v["p95_ns"].get<double>());
    share += v["fastest_fraction"].get<double>();
  }
  CHECK(share == doctest::Approx(1.0));
  // The text form names the sampled parameters.
  const auto text = run_tessera(fmt::format("run --quiet '{}' --variants bsp,push --uncertainty 2", config.string()));
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("Uncertainty: 2 samples (seed 1)") != std::string::npos);
  CHECK(text.out.find("sampled: gpu.memory.hbm_latency in [300 ns, 900 ns] (value 428 ns)") != std::string::npos);
}

TEST_CASE("a range the value lies outside of is held and says so, the others are sampled") {
  const auto config = write_file("uncertainty_held.yaml",
                                 config_with("{gpu.memory.hbm_latency: [300 ns, 900 ns]}",
                                             "{kind: gemm, m: 512, n: 512, k: 512}"));
  const auto j = run_json(fmt::format("'{}' --uncertainty 2 --set system.gpu.memory.hbm_latency=1us", config.string()));
  for (const auto& r : j["uncertainty"]["sampled"]) CHECK(r["key"] != "gpu.memory.hbm_latency");  // only the file's estimates
  REQUIRE(j["uncertainty"]["held"].size() == 1);
  CHECK(j["uncertainty"]["held"][0]["key"] == "gpu.memory.hbm_latency");
  CHECK(j["uncertainty"]["held"][0]["value"] == "1 us");
}

TEST_CASE("the shipped MI300X node lists its estimates, and its ranges hold every value") {
  const auto j = run_json("--set workload.m=64 --set workload.n=512 --set workload.k=1024 --uncertainty 2");
  CHECK(j["zero_latency_keys"].empty());
  const auto estimated = j["estimated_keys"].get<std::vector<std::string>>();
  CHECK(std::find(estimated.begin(), estimated.end(), "interconnect.link_latency") != estimated.end());
  CHECK(std::find(estimated.begin(), estimated.end(), "gpu.memory.hbm_latency") == estimated.end());  // measured
  CHECK(j["uncertainty"]["held"].empty());
  CHECK(j["uncertainty"]["sampled"].size() >= 19);
}

TEST_CASE("--uncertainty and --variants errors are exit 2 with the reason") {
  const auto config = write_file("uncertainty_bad.yaml",
                                 config_with("{gpu.memory.hbm_latncy: [300 ns, 900 ns]}", "{kind: gemm, m: 512, n: 512, k: 512}"));
  const auto misspelled = run_tessera(fmt::format("run --quiet '{}'", config.string()));
  CHECK(misspelled.exit_code == 2);
  CHECK(misspelled.err.find("uncertainty_bad.yaml:3") != std::string::npos);
  CHECK(misspelled.err.find("did you mean 'hbm_latency'") != std::string::npos);
  CHECK(misspelled.out.empty());
  CHECK(run_tessera("run --uncertainty 0").exit_code == 2);
  const auto variant = run_tessera("run --variants bsp,pul --set system.num_gpus=2");
  CHECK(variant.exit_code == 2);
  CHECK(variant.err.find("'pul' is not a variant of workload kind 'ag_gemm' (variants: bsp, pull, push)") != std::string::npos);
  const auto collective = write_file("uncertainty_collective.yaml",
                                     config_with("{}", "{kind: collective, op: all_reduce, size: 1 MiB, ranks: 2}"));
  const auto none = run_tessera(fmt::format("run --quiet '{}' --variants all", collective.string()));
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("workload kind 'collective' has no variants") != std::string::npos);
}

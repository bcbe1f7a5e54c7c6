#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "sim/app/run/run_config_loader.h"
#include "sim/app/run/run_workload.h"
#include "sim/app/run/run_spec.h"

using namespace tessera;

TEST_CASE("every embedded system file reads through the system schema") {
  for (const char* name : {"mi300x-1", "mi300x-8", "mi325x-8", "mi355x-8", "h100-1", "h100-2", "h100-8", "h200-1", "h200-2",
                           "h200-4", "h200-8", "h100-2-calibrated", "h200-1-calibrated", "h200-2-calibrated",
                           "h200-4-calibrated"}) {
    // hbm_stream: a workload every system can run.
    const app::run::RunSpec spec =
        app::run::load_run_spec(std::nullopt, {std::string("system=") + name, "workload={kind: microbench, op: hbm_stream}"});
    CHECK(spec.system.name == name);
  }
}

TEST_CASE("system files build on their base: and physical figures follow the specs") {
  const auto mi300x = app::run::load_run_spec(std::nullopt, {"system=mi300x-8"}).system;
  CHECK(mi300x.num_gpus == 8);
  CHECK(models::total_compute_units(mi300x.gpu) == 304);
  // AMD's 1307.4 TFLOP/s dense fp16.
  CHECK(models::peak_fp16_flops_per_s(mi300x.gpu) == doctest::Approx(1307.4e12).epsilon(1e-3));
  CHECK(mi300x.interconnect.link_bandwidth_bytes_per_s == 48.7e9);  // measured (TransferBench), mi300x-8.yaml
  const auto spec = app::run::load_run_spec(std::nullopt, {"system=mi300x-8-spec"}).system;
  CHECK(spec.interconnect.link_bandwidth_bytes_per_s == 64e9);  // the nameplate: 128 GB/s bidirectional
  CHECK(spec.gpu.memory.hbm_bandwidth_bytes_per_s == 5.3e12);
  CHECK(models::peak_fp16_flops_per_s(spec.gpu) == models::peak_fp16_flops_per_s(mi300x.gpu));
  const auto h200 = app::run::load_run_spec(std::nullopt, {"system=h200-2"}).system;
  CHECK(h200.gpu.memory.hbm_bandwidth_bytes_per_s == 4.8e12);  // from h200-1 over h100-1
  CHECK(h200.gpu.compute.compute_units_per_die * h200.gpu.compute.num_dies == 132);  // from h100-1
  CHECK(models::peak_fp16_flops_per_s(h200.gpu) == doctest::Approx(989.4e12).epsilon(1e-3));
  CHECK(h200.interconnect.topology == "direct");
  const auto h100_pair = app::run::load_run_spec(std::nullopt, {"system=h100-2"}).system;
  CHECK(h100_pair.num_gpus == 2);
  CHECK(h100_pair.gpu.memory.hbm_bandwidth_bytes_per_s == 3.35e12);  // from h100-1
  CHECK(h100_pair.interconnect.links_per_gpu * h100_pair.interconnect.link_bandwidth_bytes_per_s == 450e9);  // NV18 x 25 GB/s
}

TEST_CASE("the run seed reaches the workload") {
  const auto path = std::filesystem::temp_directory_path() / ("tessera_seed_test_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << "system: mi300x-1\nworkload: {kind: phold, lps: 16, end_time: 1 us}\n";
  const auto final_time_ps = [&](const std::string& seed) {
    return *app::run::run_workload(app::run::load_run_spec(path.string(), {"seed=" + seed})).result.final_time_ps;
  };
  CHECK(app::run::load_run_spec(path.string(), {"seed=77"}).options.seed == 77);
  // PHOLD's delays are the seed's draws: the same seed gives the same run, another seed another.
  CHECK(final_time_ps("77") == final_time_ps("77"));
  CHECK(final_time_ps("77") != final_time_ps("78"));
  std::filesystem::remove(path);
}

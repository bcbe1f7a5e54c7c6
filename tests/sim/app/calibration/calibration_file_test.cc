// A whole calibration of a SYNTHETIC result folder (made up by the test from known parameters)
// and the system file it writes: base plus the fitted keys, with their provenance, read back by
// the config loader to the same values.
#include <doctest/doctest.h>

#include "models/system/system_loader.h"
#include "sim/app/calibration/calibrated_system_yaml.h"
#include "sim/app/calibration/calibration.h"
#include "sim/config/config_loader.h"
#include "sim/config/embedded_files.h"
#include "sim/config/file_resolver.h"
#include "synthetic_results.h"

using namespace tessera;
using namespace tessera::app::calibration;

namespace {

// Launch latency 2.5 us, dispatch 20 ns, h200-2's teardown (the launch fit keeps it); local atomics
// 700 ns; a pattern result that must not be read.
std::filesystem::path synthetic_h200_folder() {
  const auto dir = test::synthetic_folder("calibrate");
  const double teardown_ns = static_cast<double>(models::load_system_spec("h200-2").gpu.dispatch.kernel_teardown_ps) / 1e3;
  for (const int workgroups : {1, 64, 264}) {
    const double per_die = std::ceil(workgroups / 2.0);
    test::write_json(dir / fmt::format("launch_latency.workgroups-{}.r1.json", workgroups),
                     test::synthetic_result("launch_latency", "microbenchmark",
                                            {{"kind", "microbench"}, {"op", "launch_latency"}, {"workgroups", workgroups}}, 1,
                                            100 * (2500.0 + teardown_ns + per_die * 20.0), {{"iterations", 100}, {"workgroups", workgroups}}));
  }
  test::write_json(dir / "atomic_add.r1.json",
                   test::synthetic_result("atomic_add", "microbenchmark", {{"kind", "microbench"}, {"op", "atomic_add"}, {"peer", 0}}, 1,
                                          100 * 700.0, {{"iterations", 100}}));
  test::write_json(dir / "patterns" / "gemm.r1.json",
                   test::synthetic_result("gemm", "pattern", {{"kind", "gemm"}, {"m", 256}, {"n", 256}, {"k", 256}}, 1, 1e4));
  nlohmann::json shared = test::synthetic_result("hbm_stream", "microbenchmark", {{"kind", "microbench"}, {"op", "hbm_stream"}}, 2, 1e5);
  shared["shared_gpu"] = true;
  test::write_json(dir / "shared.json", shared);
  return dir;
}

}  // namespace

TEST_CASE("calibrate: fits in order and never reads patterns and the file reads back to the fitted values") {
  const auto dir = synthetic_h200_folder();
  const auto set = app::measured::read_measured_folder(dir);
  const CalibrationResult r = calibrate(set, "h200-2", RefineOptions{true, 2});
  CHECK(r.pattern_results == 1);
  CHECK(r.used_results() == 4);
  CHECK(r.calibrated.gpu.dispatch.kernel_launch_latency_ps == 2'500'000);
  CHECK(r.calibrated.gpu.dispatch.workgroup_dispatch_ps == 20'000);
  // Tessera's atomic span includes the one workgroup's dispatch (20 ns over 100 atomics): the
  // refinement takes 0.2 ns off the direct 700 ns so that Tessera reproduces the measurement.
  CHECK(static_cast<double>(r.calibrated.gpu.atomics.local_latency_ps) == doctest::Approx(699'800).epsilon(1e-6));
  CHECK(r.calibrated.gpu.memory.hbm_bandwidth_bytes_per_s == r.base.gpu.memory.hbm_bandwidth_bytes_per_s);  // no data: unchanged

  const std::string yaml = calibrated_system_yaml(r, CalibratedFileNames{"h200-2", "h200-2-synthetic", "tessera calibrate (test)"});
  CHECK(yaml.find("base: h200-2\n") != std::string::npos);
  CHECK(yaml.find("name: h200-2-synthetic\n") != std::string::npos);
  CHECK(yaml.find("    kernel_launch_latency: 2.5 us\n") != std::string::npos);
  CHECK(yaml.find("    workgroup_dispatch: 20 ns\n") != std::string::npos);
  CHECK(yaml.find("launch_latency.workgroups-264.r1.json") != std::string::npos);  // the files the points came from
  CHECK(yaml.find("3 point(s) from:") != std::string::npos);
  CHECK(yaml.find("residual of the direct fit: RMS") != std::string::npos);
  CHECK(yaml.find("gpu.memory.hbm_bandwidth (no passed hbm_stream results") != std::string::npos);  // not fitted, and why
  CHECK(yaml.find("1 shared_gpu") != std::string::npos);
  CHECK(yaml.find("gemm.r1.json") == std::string::npos);  // pattern results are never used
  CHECK(yaml.find("hbm_bandwidth:") == std::string::npos);  // only fitted keys

  sim::config::FileResolver resolver;
  resolver.add_embedded(sim::config::embedded_files());
  const sim::config::ConfigLoader loader(resolver);
  const models::SystemSpec read =
      models::system_schema().read(loader.load_text(yaml, "calibrated.yaml", "system"), {.extra_keys = {"base", "include", "uncertainty"}});
  CHECK(read.name == "h200-2-synthetic");
  CHECK(read.gpu.dispatch.kernel_launch_latency_ps == 2'500'000);
  CHECK(read.gpu.atomics.local_latency_ps == r.calibrated.gpu.atomics.local_latency_ps);
  CHECK(read.interconnect.link_bandwidth_bytes_per_s == r.base.interconnect.link_bandwidth_bytes_per_s);
}

TEST_CASE("calibrate: results that need more GPUs than the system has are listed as unused") {
  const auto dir = test::synthetic_folder("calibrate-1gpu");
  test::write_json(dir / "remote_store.r2.json",
                   test::synthetic_result("remote_store", "microbenchmark", {{"kind", "microbench"}, {"op", "remote_store"}}, 2, 1e6));
  const CalibrationResult r = calibrate(app::measured::read_measured_folder(dir), "h200-1", RefineOptions{false, 1});
  REQUIRE(r.unused.size() == 1);
  CHECK(r.unused[0].reason == "ran on 2 GPUs; the system has 1");
}

TEST_CASE("calibrate: kernel_efficiency entries are written as one list under gpu.compute and read back") {
  const auto dir = test::synthetic_folder("calibrate-kernel-efficiency");
  const double peak = 4096 * 1.83e9 * 132;
  for (const int workgroups : {132, 264}) {
    const double rate = (workgroups == 132 ? 0.5 : 0.6) * peak;
    test::write_json(dir / fmt::format("matrix_rate.workgroups-{}.r1.json", workgroups),
                     test::synthetic_result("matrix_rate", "microbenchmark",
                                            {{"kind", "matrix_rate"}, {"dtype", "fp16"}, {"kernel", "gemm"}}, 1, 1e6, nlohmann::json::object(),
                                            {{"matrix_TFLOPs_mean", rate / 1e12}, {"workgroups", workgroups}}));
  }
  test::write_json(dir / "attention_step.r1.json",
                   test::synthetic_result("attention_step", "microbenchmark",
                                          {{"kind", "attention_step"}, {"dtype", "fp16"}, {"kernel", "attention"}}, 1, 1e6, nlohmann::json::object(),
                                          {{"matrix_TFLOPs_mean", 0.16 * peak / 1e12}, {"workgroups", 132}}));
  const CalibrationResult r = calibrate(app::measured::read_measured_folder(dir), "h200-2", RefineOptions{true, 2});
  CHECK(r.used_results() == 3);
  const std::string yaml = calibrated_system_yaml(r, CalibratedFileNames{"h200-2", "h200-2-synthetic", "tessera calibrate (test)"});
  CHECK(yaml.find("  compute:\n    kernel_efficiency:\n") != std::string::npos);
  CHECK(yaml.find("      - kernel: gemm\n        dtype: fp16\n        efficiency: [0.5, 0.6]\n") != std::string::npos);
  CHECK(yaml.find("      - kernel: attention\n") != std::string::npos);
  CHECK(yaml.find("    matrix_efficiency:") == std::string::npos);  // tagged tile loops do not feed the default
  CHECK(yaml.find("gpu.compute.matrix_efficiency.* (no passed matrix_rate results") != std::string::npos);

  sim::config::FileResolver resolver;
  resolver.add_embedded(sim::config::embedded_files());
  const sim::config::ConfigLoader loader(resolver);
  const models::SystemSpec read =
      models::system_schema().read(loader.load_text(yaml, "calibrated.yaml", "system"), {.extra_keys = {"base", "include", "uncertainty"}});
  REQUIRE(read.gpu.compute.kernel_efficiency.size() == 2);
  CHECK(read.gpu.compute.kernel_efficiency[0].kernel == "attention");
  CHECK(read.gpu.compute.kernel_efficiency[0].efficiency == std::vector<double>{0.16});
  CHECK(read.gpu.compute.kernel_efficiency[1].efficiency == std::vector<double>{0.5, 0.6});

  // The schema is strict: an unknown key, a value outside (0, 1] and a duplicate are errors.
  const auto read_text = [&](const std::string& entries) {
    return models::system_schema().read(
        loader.load_text("base: h200-2\nname: x\ngpu:\n  compute:\n    kernel_efficiency:\n" + entries, "x.yaml", "system"),
        {.extra_keys = {"base", "include", "uncertainty"}});
  };
  CHECK_THROWS_WITH(read_text("      - {kernel: gemm, efficency: [0.5]}\n"), doctest::Contains("unknown key 'efficency'"));
  CHECK_THROWS_WITH(read_text("      - {kernel: gemm, efficiency: [1.5]}\n"), doctest::Contains("(0, 1]"));
  CHECK_THROWS_WITH(read_text("      - {kernel: gemm, efficiency: [0.5]}\n      - {kernel: gemm, efficiency: [0.4]}\n"),
                    doctest::Contains("two entries for kernel 'gemm'"));
  CHECK(read_text("      - {kernel: gemm, dtype: bf16, efficiency: [0.5, 0.7]}\n").gpu.compute.kernel_efficiency.size() == 1);
}

// The collective library's kernel times (schema tessera-nccl-kernel-times/1) on SYNTHETIC
// documents made up by the tests: how they are read (and refused), the collective_kernel fit
// (gpu.collective_library.<protocol>_kernel_overhead), and the overhead in a collective's run.
#include <doctest/doctest.h>

#include <fstream>

#include "../cli_process.h"
#include "models/system/system_loader.h"
#include "sim/app/calibration/fits.h"
#include "sim/app/measured/library_kernel_times.h"
#include "sim/app/measured/measured_data_error.h"
#include "synthetic_patterns.h"

using namespace tessera;
using app::measured::LibraryKernelTime;
using app::measured::parse_library_kernel_times;

namespace {

nlohmann::json kernel_times(const std::string& protocol, const std::vector<std::tuple<std::string, std::uint64_t, double>>& cases) {
  nlohmann::json doc{{"schema", "tessera-nccl-kernel-times/1"},
                     {"world_size", 2},
                     {"device", "NVIDIA H200"},
                     {"nccl", "2.28.9"},
                     {"dtype", "fp16"},
                     {"environment", nlohmann::json::object()},
                     {"cases", nlohmann::json::array()}};
  if (!protocol.empty()) doc["environment"] = {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", protocol}};
  for (const auto& [op, size, us] : cases) doc["cases"].push_back({{"op", op}, {"size_bytes", size}, {"kernel_us_median", us}});
  return doc;
}

std::string error_of(const nlohmann::json& doc) {
  try {
    parse_library_kernel_times(doc, "k.json");
  } catch (const app::measured::MeasuredDataError& e) {
    return e.what();
  }
  return "";
}

app::calibration::FitOutcome fit(const std::vector<LibraryKernelTime>& times) {
  static const std::vector<app::calibration::CalibrationPoint> no_points;
  const models::SystemSpec system = models::load_system_spec("h200-2");
  const app::calibration::RefineOptions options{false, 2};
  return app::calibration::collective_kernel_fit().fit(app::calibration::FitInputs{system, no_points, options, "h200-2", &times});
}

}  // namespace

TEST_CASE("kernel times are read with the forced protocol, and bad documents name the file and the key") {
  const auto t = parse_library_kernel_times(kernel_times("Simple", {{"all_gather", 8192, 13.3}, {"all_reduce", 1 << 20, 20.0}}), "k.json");
  REQUIRE(t.size() == 2);
  CHECK(t[0].protocol == "simple");
  CHECK(t[0].algorithm == "ring");
  CHECK(t[0].ranks == 2);
  CHECK(t[0].kernel_ns == doctest::Approx(13300));
  CHECK(t[1].op == "all_reduce");
  CHECK(parse_library_kernel_times(kernel_times("", {{"all_gather", 8192, 4.0}}), "k.json")[0].protocol == "auto");

  nlohmann::json missing = kernel_times("LL", {{"all_gather", 8192, 4.0}});
  missing["cases"][0].erase("kernel_us_median");
  CHECK(error_of(missing) == "k.json: cases[0].kernel_us_median: missing required key");
  CHECK(error_of(kernel_times("LL", {{"broadcast", 8192, 4.0}})).find("k.json: cases[0].op: expected all_gather") == 0);
  CHECK(error_of(kernel_times("LL", {{"all_gather", 8192, -1.0}})).find("k.json: cases[0].kernel_us_median: expected a positive number") == 0);
  nlohmann::json ranks = kernel_times("LL", {});
  ranks["world_size"] = 0;
  CHECK(error_of(ranks).find("k.json: world_size: expected a count of GPUs") == 0);
}

TEST_CASE("collective_kernel: the median of measured - Tessera's kernel per protocol, and Tessera with it matches the direct fit") {
  const auto times = [](double extra_us) {
    return parse_library_kernel_times(kernel_times("Simple", {{"all_gather", 8192, 12.0 + extra_us},
                                                             {"reduce_scatter", 32768, 12.0 + extra_us},
                                                             {"all_reduce", 131072, 16.0 + extra_us},
                                                             {"all_reduce", 8 << 20, 400.0}}),  // larger: left out
                                      "k.json");
  };
  const auto base = fit(times(0));
  const auto shifted = fit(times(3));
  REQUIRE(base.values.size() == 1);
  REQUIRE(shifted.values.size() == 1);
  CHECK(base.values[0].key->path == "gpu.collective_library.simple_kernel_overhead");
  // Every measured time 3 us longer: the value 3 us larger (Tessera's kernels are the same).
  CHECK(shifted.values[0].value - base.values[0].value == doctest::Approx(3e6).epsilon(1e-9));
  CHECK(base.values[0].value > 0);
  CHECK(base.direct.points == 3);
  // The overhead delays every workgroup alike, so Tessera with the value is the direct model.
  REQUIRE(base.tessera);
  CHECK(base.tessera->rms == doctest::Approx(base.direct.rms).epsilon(1e-6));
  // LL and LL128 had no points: named, not written.
  REQUIRE(base.not_fitted.size() == 2);
  CHECK(base.not_fitted[0].key == "gpu.collective_library.ll_kernel_overhead");
  CHECK(base.not_fitted[1].key == "gpu.collective_library.ll128_kernel_overhead");
  CHECK(fit({}).not_fitted[0].reason.find("no collective library kernel times") == 0);
}

TEST_CASE("a collective's kernels take the system's overhead of their protocol longer, exactly") {
  const auto dir = test::synthetic_folder("collective-kernel-overhead");
  const auto config = dir / "all_gather.yaml";
  {
    std::ofstream out(config);
    out << "system: h200-2\nworkload: {kind: collective, op: all_gather, size: 8 MiB, library: nccl, host: none, protocol: simple}\n";
  }
  const auto time_us = [&](const std::string& extra) {
    const test::ProcessResult r = test::run_tessera(fmt::format("run '{}' --json{}", config.string(), extra));
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return nlohmann::json::parse(r.out)["collective"]["time_us"].get<double>();
  };
  const std::string none = " --set 'system.gpu.collective_library.simple_kernel_overhead=0 us'";
  const double bare = time_us(none);
  CHECK(time_us(" --set 'system.gpu.collective_library.simple_kernel_overhead=7 us'") == doctest::Approx(bare + 7).epsilon(1e-9));
  // Another protocol's overhead does not apply.
  CHECK(time_us(none + " --set 'system.gpu.collective_library.ll_kernel_overhead=7 us'") == doctest::Approx(bare).epsilon(1e-12));
}

TEST_CASE("tessera calibrate: a kernel-time file with a bad case is bad input, named by file and key, and nothing is written") {
  const auto dir = test::synthetic_folder("collective-kernel-bad");
  nlohmann::json doc = kernel_times("Simple", {{"all_gather", 8192, 13.0}});
  doc["cases"][0]["size_bytes"] = "8 KiB";
  test::write_json(dir / "k.json", doc);
  const auto out = dir / "out.yaml";
  const test::ProcessResult r =
      test::run_tessera(fmt::format("calibrate --measured '{}' --system h200-2 --out '{}'", dir.string(), out.string()));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("k.json: cases[0].size_bytes: expected a positive count of bytes") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("tessera calibrate: the kernel overheads from kernel-time files reach the written system") {
  const auto dir = test::synthetic_folder("collective-kernel-calibrate");
  test::write_json(dir / "simple.json", kernel_times("Simple", {{"all_gather", 8192, 20.0}, {"all_reduce", 32768, 24.0}}));
  const auto out = dir / "out.yaml";
  const test::ProcessResult r =
      test::run_tessera(fmt::format("calibrate --measured '{}' --system h200-2 --out '{}' --jobs 2", dir.string(), out.string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::ifstream in(out);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("fit 'collective_kernel'") != std::string::npos);
  CHECK(text.find("simple_kernel_overhead:") != std::string::npos);
  CHECK(text.find("2 point(s) from 1 file(s)") != std::string::npos);
}

// `tessera calibrate` and `tessera validate` as a user runs them, on SYNTHETIC result folders made
// up by the tests: outputs, files, and exit codes (0 success, 1 MAPE over --max-mape or a failed
// run, 2 bad input naming the file and the key).
#include <doctest/doctest.h>

#include "../cli_process.h"
#include "models/system/system_loader.h"
#include "synthetic_patterns.h"

namespace {
// The synthetic launch results add it: the launch fit keeps the system's teardown and fits the rest.
double h200_2_teardown_ns() {
  return static_cast<double>(tessera::models::load_system_spec("h200-2").gpu.dispatch.kernel_teardown_ps) / 1e3;
}
}  // namespace

using tessera::test::run_tessera;

namespace {

// Quoted for the shell (fmt, not "'" + string: GCC 12 warns falsely with -Wrestrict on that).
std::string q(const std::filesystem::path& p) { return fmt::format("'{}'", p.string()); }

}  // namespace

TEST_CASE("tessera validate: the table and --json and --out and --max-mape") {
  const auto dir = tessera::test::synthetic_folder("validate-cli");
  const auto made = tessera::test::write_synthetic_patterns(dir);
  const double mape = tessera::test::expected_mape_percent(made);

  const auto table = run_tessera(fmt::format("validate --measured {} --system h200-2 --jobs 2", q(dir)));
  CHECK(table.exit_code == 0);
  CHECK(table.out.find("measured (us)") != std::string::npos);
  CHECK(table.out.find(fmt::format("MAPE: {:.2f}% over 8 of 8 pattern cases", mape)) != std::string::npos);
  CHECK(table.out.find("order agreement: 50.0% (1 of 2 variant groups") != std::string::npos);
  CHECK(table.out.find("Variants (fastest first)") != std::string::npos);
  CHECK(table.out.find("2 skipped: 1 failed, 1 more GPUs than the system") != std::string::npos);

  const auto out_dir = tessera::test::synthetic_folder("validate-out");
  const auto json = run_tessera(fmt::format("validate --measured {} --system h200-2 --json --out {}", q(dir), q(out_dir)));
  REQUIRE(json.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  CHECK(j["mape_percent"].get<double>() == doctest::Approx(mape));
  CHECK(j["order_agreement"].get<double>() == doctest::Approx(0.5));
  CHECK(j["cases"].size() == 8);
  CHECK(j["max_abs_error_percent"].get<double>() > 25);
  for (const char* file : {"report.md", "validation.json", "report.html"}) CHECK(std::filesystem::exists(out_dir / file));
  CHECK(tessera::test::read_all(out_dir / "report.html").find("<svg") != std::string::npos);

  const auto strict = run_tessera(fmt::format("validate --measured {} --system h200-2 --max-mape 1", q(dir)));
  CHECK(strict.exit_code == 1);
  CHECK(strict.err.find("exceeds --max-mape 1%") != std::string::npos);
  const auto loose = run_tessera(fmt::format("validate --measured {} --system h200-2 --max-mape 1000", q(dir)));
  CHECK(loose.exit_code == 0);
  CHECK(loose.out.find("(--max-mape 1000%: passed)") != std::string::npos);

  // validation.json written into the measured folder is not taken for a result next time.
  const auto again = run_tessera(fmt::format("validate --measured {} --system h200-2 --out {}", q(dir), q(dir)));
  CHECK(again.exit_code == 0);
  const auto third = run_tessera(fmt::format("validate --measured {} --system h200-2", q(dir)));
  CHECK(third.exit_code == 0);
}

TEST_CASE("tessera validate: bad input is exit 2 with the file and the key") {
  const auto dir = tessera::test::synthetic_folder("validate-bad");
  tessera::test::write_text(dir / "broken.json", "{ not json");
  const auto broken = run_tessera(fmt::format("validate --measured {} --system h200-2", q(dir)));
  CHECK(broken.exit_code == 2);
  CHECK(broken.err.find("broken.json: not valid JSON") != std::string::npos);

  const auto dir2 = tessera::test::synthetic_folder("validate-badkey");
  tessera::test::write_json(dir2 / "gemm.json", tessera::test::synthetic_result("gemm", "pattern", {{"kind", "gemm"}, {"mm", 64}}, 1, 1e4));
  const auto badkey = run_tessera(fmt::format("validate --measured {} --system h200-2", q(dir2)));
  CHECK(badkey.exit_code == 2);
  CHECK(badkey.err.find("gemm.json (tessera.workload)") != std::string::npos);
  CHECK(badkey.err.find("workload.mm: unknown key 'mm'") != std::string::npos);

  const auto empty = run_tessera(fmt::format("validate --measured {} --system h200-2", q(tessera::test::synthetic_folder("validate-empty"))));
  CHECK(empty.exit_code == 2);
  CHECK(empty.err.find("no passed pattern results") != std::string::npos);

  const auto missing = run_tessera("validate --system h200-2");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("--measured DIR is required") != std::string::npos);
  const auto bad_system = run_tessera(fmt::format("validate --measured {} --system nope", q(dir2)));
  CHECK(bad_system.exit_code == 2);
}

TEST_CASE("tessera calibrate: writes a system file that describe loads and prints the fits") {
  const auto dir = tessera::test::synthetic_folder("calibrate-cli");
  for (const int workgroups : {1, 64}) {
    tessera::test::write_json(dir / fmt::format("launch.{}.json", workgroups),
                              tessera::test::synthetic_result("launch_latency", "microbenchmark",
                                                              {{"kind", "microbench"}, {"op", "launch_latency"}, {"workgroups", workgroups}}, 1,
                                                              100 * (3000.0 + h200_2_teardown_ns() + std::ceil(workgroups / 2.0) * 10.0), {{"iterations", 100}}));
  }
  const auto out = tessera::test::synthetic_folder("calibrate-cli-out") / "h200-2-synthetic.yaml";
  const auto r = run_tessera(fmt::format("calibrate --measured {} --system h200-2 --out {} --jobs 2", q(dir), q(out)));
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("gpu.dispatch.kernel_launch_latency") != std::string::npos);
  CHECK(r.out.find("not fitted: gpu.memory.hbm_bandwidth") != std::string::npos);
  CHECK(r.out.find("wrote ") != std::string::npos);
  const auto described = run_tessera("describe " + q(out));
  CHECK(described.exit_code == 0);
  CHECK(described.out.find("kernel_launch_latency: 3 us") != std::string::npos);
  CHECK(described.out.find("workgroup_dispatch: 10 ns") != std::string::npos);
  CHECK(described.out.find("name: h200-2-synthetic") != std::string::npos);

  // Without --out: the file on stdout, the table on stderr.
  const auto printed = run_tessera(fmt::format("calibrate --measured {} --system h200-2 --no-refine", q(dir)));
  CHECK(printed.exit_code == 0);
  CHECK(printed.out.starts_with("# h200-2-calibrated:"));
  CHECK(printed.out.find("base: h200-2\n") != std::string::npos);
  CHECK(printed.err.find("kernel_launch_latency") != std::string::npos);

  const auto nothing = run_tessera(fmt::format("calibrate --measured {} --system h200-2", q(tessera::test::synthetic_folder("calibrate-empty"))));
  CHECK(nothing.exit_code == 2);
  CHECK(nothing.err.find("nothing to calibrate") != std::string::npos);

  const auto no_system = run_tessera(fmt::format("calibrate --measured {}", q(dir)));
  CHECK(no_system.exit_code == 2);
  CHECK(no_system.err.find("--system SYSTEM is required") != std::string::npos);
}

TEST_CASE("tessera calibrate: --measured repeated reads every folder, kernel_efficiency reaches describe") {
  const auto launch = tessera::test::synthetic_folder("calibrate-cli-two-a");
  for (const int workgroups : {1, 64}) {
    tessera::test::write_json(launch / fmt::format("launch.{}.json", workgroups),
                              tessera::test::synthetic_result("launch_latency", "microbenchmark",
                                                              {{"kind", "microbench"}, {"op", "launch_latency"}, {"workgroups", workgroups}}, 1,
                                                              100 * (3000.0 + h200_2_teardown_ns() + std::ceil(workgroups / 2.0) * 10.0), {{"iterations", 100}}));
  }
  const auto loops = tessera::test::synthetic_folder("calibrate-cli-two-b");
  tessera::test::write_json(loops / "attention_step.json",
                            tessera::test::synthetic_result("attention_step", "microbenchmark",
                                                            {{"kind", "attention_step"}, {"dtype", "fp16"}, {"kernel", "attention"}}, 1, 1e6,
                                                            nlohmann::json::object(), {{"matrix_TFLOPs_mean", 0.25 * 4096 * 1.83e9 * 132 / 1e12}, {"workgroups", 132}}));
  const auto out = tessera::test::synthetic_folder("calibrate-cli-two-out") / "two.yaml";
  const auto r = run_tessera(fmt::format("calibrate --measured {} --measured {} --system h200-2 --out {} --jobs 2", q(launch), q(loops), q(out)));
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("3 result(s) used") != std::string::npos);
  CHECK(r.out.find("gpu.compute.kernel_efficiency[attention, fp16]") != std::string::npos);
  const auto described = run_tessera("describe " + q(out));
  CHECK(described.exit_code == 0);
  CHECK(described.out.find("kernel_efficiency") != std::string::npos);
  CHECK(described.out.find("attention") != std::string::npos);
  CHECK(described.out.find("kernel_launch_latency: 3 us") != std::string::npos);
}

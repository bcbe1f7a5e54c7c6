// The collective library's results (cases nccl_*) in validate and calibrate, on SYNTHETIC result
// files made up by the tests: how a result becomes a kind-collective case (metrics, library.env),
// the summaries by size class, the report's table and JSON, a folder of collectives alone, and the
// collective_call fit.
#include <doctest/doctest.h>

#include <deque>
#include <memory>

#include "../cli_process.h"
#include "models/system/system_loader.h"
#include "sim/app/calibration/fits.h"
#include "sim/app/measured/measured_data_error.h"
#include "sim/app/validation/collective_cases.h"
#include "sim/app/validation/validation_documents.h"
#include "sim/app/validation/validation_summary.h"
#include "sim/app/validation/validation_tables.h"
#include "synthetic_patterns.h"

using namespace tessera;
using namespace tessera::app::validation;
using tessera::test::run_tessera;

namespace {

std::string q(const std::filesystem::path& p) { return fmt::format("'{}'", p.string()); }

// A kernel-suite result of the collective library as the suite writes one: nccl-tests' figures in
// metrics, what NCCL's environment forced in library.env, and a tessera.workload with the old
// keys (bytes, library "NCCL") that validate must not rely on.
nlohmann::json nccl_result(const std::string& op, std::uint64_t size_bytes, unsigned ranks, double time_us,
                           const nlohmann::json& env = nullptr) {
  nlohmann::json doc = test::synthetic_result(
      "nccl_" + op, "microbenchmark",
      {{"kind", "collective"}, {"op", op}, {"bytes", fmt::format("{} B", size_bytes)}, {"dtype", "fp16"}, {"library", "NCCL"}}, ranks,
      time_us * 1e3, {{"size", size_bytes}, {"dtype", "fp16"}, {"iters", 20}},
      {{"size_bytes", size_bytes}, {"dtype", "fp16"}, {"ranks", ranks}, {"time_us", time_us}, {"iterations_per_sample", 20}});
  doc["library"] = {{"name", "NCCL"}, {"version", "2.28.9"}, {"loaded", true}};
  if (!env.is_null()) doc["library"]["env"] = env;
  return doc;
}

app::measured::MeasuredCase parsed(const std::filesystem::path& file, const nlohmann::json& doc) {
  test::write_json(file, doc);
  return app::measured::parse_measured_file(file, file.filename().string()).result;
}

// A folder of collectives alone: two small (8 KiB, unforced; 32 KiB forced Ring LL), two large
// (1 MiB forced Ring Simple; 16 MiB unforced) on two ranks, one on four ranks (too many for h200-2).
std::filesystem::path write_collectives(const std::filesystem::path& dir) {
  test::write_json(dir / "run1/nccl_all_reduce.size-8KiB.r2.json", nccl_result("all_reduce", 8192, 2, 20.0));
  test::write_json(dir / "ring-ll/nccl_all_gather.size-32KiB.r2.json",
                   nccl_result("all_gather", 32768, 2, 18.0, {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "LL"}}));
  test::write_json(dir / "ring-simple/nccl_reduce_scatter.size-1MiB.r2.json",
                   nccl_result("reduce_scatter", 1 << 20, 2, 25.0, {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}}));
  test::write_json(dir / "run1/nccl_all_reduce.size-16MiB.r2.json", nccl_result("all_reduce", 16 << 20, 2, 90.0, nlohmann::json::object()));
  test::write_json(dir / "four/nccl_all_reduce.size-8KiB.r4.json", nccl_result("all_reduce", 8192, 4, 30.0));
  return dir;
}

// A system file of h200-2 with a host cost per call.
std::filesystem::path write_system(const std::filesystem::path& dir, const std::string& collective_call) {
  const auto file = dir / "h200-2-host.yaml";
  test::write_text(file, fmt::format("base: h200-2\nname: h200-2-host\nhost:\n  collective_call: {}\n", collective_call));
  return file;
}

struct Validated {
  std::unique_ptr<app::measured::MeasuredSet> set;
  PreparedCollectives prepared;
};

Validated prepare(const std::filesystem::path& dir, const std::string& system) {
  Validated v;
  v.set = std::make_unique<app::measured::MeasuredSet>(app::measured::read_measured_folder(dir));
  v.prepared = prepare_collective_cases(*v.set, system, 2);
  return v;
}

const CollectiveCase& case_of(const std::vector<CollectiveCase>& cases, std::string_view file_end) {
  for (const CollectiveCase& c : cases) {
    if (c.source->display_name.ends_with(file_end)) return c;
  }
  FAIL("no case ", std::string(file_end));
  return cases.front();
}

}  // namespace

TEST_CASE("collectives: a result is read from its metrics and library.env, never its tessera.workload") {
  const auto dir = test::synthetic_folder("collective-read");
  const auto plain = app::validation::read_library_collective(parsed(dir / "a.json", nccl_result("all_reduce", 8192, 2, 20)));
  CHECK(plain.op == "all_reduce");
  CHECK(plain.size_bytes == 8192);
  CHECK(plain.dtype == "fp16");
  CHECK(plain.ranks == 2);
  CHECK(plain.forced_text() == "auto");
  const auto forced = read_library_collective(parsed(dir / "b.json", nccl_result("all_reduce", 8192, 2, 20, {{"NCCL_ALGO", "Tree"}, {"NCCL_PROTO", "LL128"}})));
  CHECK(forced.algorithm == "tree");
  CHECK(forced.protocol == "ll128");
  CHECK(forced.forced_text() == "tree/ll128");
  // Several names, an exclusion or an unknown name leave NCCL its own choice.
  const auto lists = read_library_collective(parsed(dir / "c.json", nccl_result("all_gather", 8192, 2, 20, {{"NCCL_ALGO", "Ring,Tree"}, {"NCCL_PROTO", "^LL"}})));
  CHECK(lists.algorithm == "auto");
  CHECK(lists.protocol == "auto");
  const auto only_protocol = read_library_collective(parsed(dir / "d.json", nccl_result("all_gather", 8192, 2, 20, {{"NCCL_PROTO", "simple"}})));
  CHECK(only_protocol.forced_text() == "auto/simple");
  // NCCL_ALGO does not govern the send/receive all-to-all.
  const auto all_to_all = read_library_collective(parsed(dir / "g.json", nccl_result("all_to_all", 8192, 2, 20, {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "LL"}})));
  CHECK(all_to_all.forced_text() == "auto/ll");

  const nlohmann::json w = library_collective_workload(forced, "one_thread", 20);
  CHECK(w == nlohmann::json{{"kind", "collective"}, {"op", "all_reduce"}, {"size", "8192 B"}, {"dtype", "fp16"}, {"ranks", 2},
                            {"library", "nccl"}, {"host", "one_thread"}, {"iterations", 20}, {"algorithm", "tree"}, {"protocol", "ll128"}});
  CHECK(validation_iterations(8ULL << 20) == 20);
  CHECK(validation_iterations((8ULL << 20) + 1) == 3);

  nlohmann::json no_size = nccl_result("all_reduce", 8192, 2, 20);
  no_size["metrics"].erase("size_bytes");
  CHECK_THROWS_WITH_AS(read_library_collective(parsed(dir / "e.json", no_size)), doctest::Contains("e.json: metrics.size_bytes: missing"),
                       app::measured::MeasuredDataError);
  nlohmann::json bad_env = nccl_result("all_reduce", 8192, 2, 20, {{"NCCL_ALGO", 3}});
  CHECK_THROWS_WITH_AS(read_library_collective(parsed(dir / "f.json", bad_env)), doctest::Contains("f.json: library.env.NCCL_ALGO: expected a string"),
                       app::measured::MeasuredDataError);
}

TEST_CASE("collectives: every case runs kind collective with the library's host side, and sizes split at 64 KiB") {
  const auto dir = write_collectives(test::synthetic_folder("collective-cases"));
  Validated v = prepare(dir, "h200-2");
  REQUIRE(v.prepared.cases.size() == 4);
  REQUIRE(v.prepared.too_large.size() == 1);
  CHECK(v.prepared.too_large[0].reason == "ran on 4 GPUs; the system has 2");
  predict_collective_cases(v.prepared, 2);
  for (const CollectiveCase& c : v.prepared.cases) {
    REQUIRE(c.predicted_ns);
    REQUIRE(c.figures);
    CHECK(c.workload["host"] == "one_thread");
    CHECK(c.workload["library"] == "nccl");
    CHECK(c.error_percent() == doctest::Approx(100 * (*c.predicted_ns - c.measured_ns) / c.measured_ns));
    CHECK(*c.predicted_ns == doctest::Approx(c.figures->time_us * 1e3));
    CHECK(c.library_model_error_percent().has_value());
  }
  const CollectiveCase& ll = case_of(v.prepared.cases, "nccl_all_gather.size-32KiB.r2.json");
  CHECK(ll.figures->algorithm == "ring");
  CHECK(ll.figures->protocol == "LL");
  CHECK(ll.workload["iterations"] == 20);
  CHECK(case_of(v.prepared.cases, "nccl_all_reduce.size-16MiB.r2.json").workload["iterations"] == 3);
  CHECK(case_of(v.prepared.cases, "nccl_reduce_scatter.size-1MiB.r2.json").figures->protocol == "Simple");

  const CollectiveSummary s = summarize_collectives(v.prepared.cases);
  CHECK(s.cases == 4);
  CHECK(s.small.cases == 2);
  CHECK(s.large.cases == 2);
  double small_sum = 0, large_sum = 0;
  for (const CollectiveCase& c : v.prepared.cases) (c.small() ? small_sum : large_sum) += std::abs(c.error_percent());
  REQUIRE(s.small.mape_percent);
  REQUIRE(s.large.mape_percent);
  CHECK(*s.small.mape_percent == doctest::Approx(small_sum / 2));
  CHECK(*s.large.mape_percent == doctest::Approx(large_sum / 2));

  // The system's host cost per call reaches the small cases: one thread issues two calls per collective.
  const auto system = write_system(dir.parent_path() / (dir.filename().string() + "-system"), "40 us");
  Validated host = prepare(dir, system.string());
  predict_collective_cases(host.prepared, 2);
  const CollectiveCase& small = case_of(host.prepared.cases, "nccl_all_reduce.size-8KiB.r2.json");
  REQUIRE(small.predicted_ns);
  CHECK(*small.predicted_ns > 2 * 40e3 * 0.95);
  CHECK(*small.predicted_ns < 2 * 40e3 * 1.15);
}

TEST_CASE("tessera validate: a folder of collectives alone validates, apart from the pattern cases") {
  const auto dir = write_collectives(test::synthetic_folder("collective-cli"));
  const auto r = run_tessera(fmt::format("validate --measured {} --system h200-2 --jobs 2", q(dir)));
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("Collectives (") != std::string::npos);
  CHECK(r.out.find("NCCL model error (%)") != std::string::npos);
  CHECK(r.out.find("ring/ll") != std::string::npos);
  CHECK(r.out.find("pattern cases: none") != std::string::npos);
  CHECK(r.out.find("collectives from 64 KiB: MAPE") != std::string::npos);
  CHECK(r.out.find("collectives below 64 KiB (small-message latency): MAPE") != std::string::npos);
  CHECK(r.out.find("results: 0 pattern case(s), 4 collective case(s), 0 microbenchmark result(s)") != std::string::npos);
  CHECK(r.out.find("1 more GPUs than the system") != std::string::npos);

  const auto out_dir = test::synthetic_folder("collective-cli-out");
  const auto json = run_tessera(fmt::format("validate --measured {} --system h200-2 --json --out {}", q(dir), q(out_dir)));
  REQUIRE(json.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  CHECK(j["cases"].empty());
  CHECK(j["mape_percent"].is_null());
  REQUIRE(j["collectives"].size() == 4);
  CHECK(j["collective_cases_total"] == 4);
  CHECK(j["collective_cases_predicted"] == 4);
  CHECK(j["collective_cases_small"] == 2);
  CHECK(j["collective_cases_large"] == 2);
  CHECK(j["collectives_small_below_bytes"] == 65536);
  CHECK(j["collectives_mape_percent"].is_number());
  CHECK(j["collectives_small_mape_percent"].is_number());
  const nlohmann::json& first = j["collectives"][0];
  for (const char* key : {"file", "op", "ranks", "size_bytes", "algorithm_forced", "protocol_forced", "measured_ns", "predicted_ns",
                          "error_percent", "algorithm", "protocol", "channels", "library_model_ns", "library_model_error_percent"}) {
    CHECK_MESSAGE(first.contains(key), key);
  }
  CHECK(test::read_all(out_dir / "report.md").find("## Collectives") != std::string::npos);
  CHECK(test::read_all(out_dir / "report.html").find("<h2>Collectives</h2>") != std::string::npos);

  // --max-mape judges the pattern cases, and there are none.
  const auto strict = run_tessera(fmt::format("validate --measured {} --system h200-2 --max-mape 1000", q(dir)));
  CHECK(strict.exit_code == 1);
  CHECK(strict.err.find("judges the pattern cases, and there are none") != std::string::npos);
}

TEST_CASE("tessera validate: with pattern cases beside them, the collectives leave the pattern MAPE and --max-mape alone") {
  const auto dir = test::synthetic_folder("collective-mixed");
  const auto made = test::write_synthetic_patterns(dir);
  write_collectives(dir / "collectives");
  const double mape = test::expected_mape_percent(made);
  const auto r = run_tessera(fmt::format("validate --measured {} --system h200-2 --jobs 2 --max-mape 1000", q(dir)));
  CHECK(r.exit_code == 0);
  CHECK(r.out.find(fmt::format("MAPE: {:.2f}% over 8 of 8 pattern cases (--max-mape 1000%: passed)", mape)) != std::string::npos);
  CHECK(r.out.find("collectives from 64 KiB: MAPE") != std::string::npos);
  // One microbenchmark of the patterns' folder is calibration data; the collectives are not counted with it.
  CHECK(r.out.find("results: 8 pattern case(s), 4 collective case(s), 1 microbenchmark result(s) not validated") != std::string::npos);
  const auto json = run_tessera(fmt::format("validate --measured {} --system h200-2 --json", q(dir)));
  REQUIRE(json.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  CHECK(j["mape_percent"].get<double>() == doctest::Approx(mape));
  CHECK(j["cases"].size() == 8);
  CHECK(j["collectives"].size() == 4);
  CHECK(j["microbenchmark_results_not_validated"] == 1);
}

TEST_CASE("collective_call: the median of time / ranks over the library's collectives up to 64 KiB") {
  const auto dir = test::synthetic_folder("collective-fit");
  std::deque<app::measured::MeasuredCase> results;
  std::vector<app::calibration::CalibrationPoint> points;
  const auto add = [&](const std::string& name, const nlohmann::json& doc) {
    results.push_back(parsed(dir / name, doc));
    points.push_back({&results.back(), &app::calibration::library_collective_quantity(), results.back().timing.mean_ns, std::nullopt});
  };
  // time / ranks: 10, 12, 15 us (median 12); the 1 MiB point is left out.
  add("a.json", nccl_result("all_reduce", 8, 2, 20.0));
  add("b.json", nccl_result("all_gather", 8192, 2, 24.0, {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "LL"}}));
  add("c.json", nccl_result("reduce_scatter", 65536, 2, 30.0));
  add("d.json", nccl_result("all_reduce", 1 << 20, 2, 40.0));
  const models::SystemSpec system = models::load_system_spec("h200-2");
  const app::calibration::RefineOptions direct_only{false, 2};
  const app::calibration::FitOutcome out =
      app::calibration::collective_call_fit().fit(app::calibration::FitInputs{system, points, direct_only, "h200-2"});
  REQUIRE(out.values.size() == 1);
  CHECK(out.values[0].key->path == "host.collective_call");
  CHECK(out.values[0].value == doctest::Approx(12e6));  // ps
  CHECK(out.files.size() == 3);
  CHECK(out.direct.points == 3);
  // ranks x 12 us against 20, 24, 30 us.
  CHECK(out.direct.mape == doctest::Approx((4.0 / 20 + 0.0 + 6.0 / 30) / 3));
  REQUIRE(out.tessera);
  CHECK(out.tessera->points == 3);
  CHECK(out.tessera->mape < 0.25);  // the host's 24 us per collective dominates Tessera's time too
  bool left_out = false, gpu_side = false;
  for (const std::string& n : out.notes) {
    left_out = left_out || n.find("1 larger one(s) left out") != std::string::npos;
    gpu_side = gpu_side || n.find("below ranks x the value at 3 of 3 points") != std::string::npos;
  }
  CHECK(left_out);
  CHECK(gpu_side);

  // Only larger sizes, or none: nothing written, and the reason.
  const std::vector<app::calibration::CalibrationPoint> large(points.begin() + 3, points.end());
  const auto none = app::calibration::collective_call_fit().fit(app::calibration::FitInputs{system, large, direct_only, "h200-2"});
  CHECK(none.values.empty());
  REQUIRE(none.not_fitted.size() == 1);
  CHECK(none.not_fitted[0].reason.find("no collective-library result of 64 KiB or less") != std::string::npos);
}

TEST_CASE("tessera calibrate: host.collective_call from the library's small collectives reaches describe") {
  const auto dir = test::synthetic_folder("collective-calibrate");
  test::write_json(dir / "a.json", nccl_result("all_reduce", 8, 2, 20.0));
  test::write_json(dir / "b.json", nccl_result("all_reduce", 32768, 2, 26.0));
  test::write_json(dir / "c.json", nccl_result("all_reduce", 1 << 30, 2, 3000.0));
  test::write_json(dir / "four.json", nccl_result("all_reduce", 8, 4, 40.0));
  const auto out = test::synthetic_folder("collective-calibrate-out") / "h200-2-host.yaml";
  const auto r = run_tessera(fmt::format("calibrate --measured {} --system h200-2 --out {} --jobs 2", q(dir), q(out)));
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("host.collective_call") != std::string::npos);
  CHECK(r.out.find("four.json: ran on 4 GPUs; the system has 2") != std::string::npos);
  const std::string text = test::read_all(out);
  CHECK(text.find("fit 'collective_call'") != std::string::npos);
  CHECK(text.find("host:\n") != std::string::npos);
  CHECK(text.find("  collective_call: 11.5 us\n") != std::string::npos);  // median of 10 and 13 us
  const auto described = run_tessera("describe " + q(out));
  CHECK(described.exit_code == 0);
  CHECK(described.out.find("collective_call: 11.5 us") != std::string::npos);
}

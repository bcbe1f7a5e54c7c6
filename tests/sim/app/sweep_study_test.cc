// The sweep library without the program: study parsing, point expansion, per-point configs and
// their errors, results.csv, --points, point files, comparisons and the progress bar's text.
#include <doctest/doctest.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/app/sweep/comparison.h"
#include "sim/app/sweep/point_config.h"
#include "sim/app/sweep/point_range.h"
#include "sim/app/sweep/point_store.h"
#include "sim/app/sweep/results_csv.h"
#include "sim/app/sweep/study.h"
#include "sim/app/sweep/sweep_points.h"
#include "sim/app/sweep/sweep_report.h"
#include "sim/app/usage_error.h"
#include "sim/config/config_error.h"
#include "tests/sim/app/cli_process.h"

namespace tessera::app::sweep {
namespace {

using sim::config::ConfigError;
using sim::config::SourceFile;

Study study_of(const std::string& text, const std::string& name = "study.yaml") {
  return parse_study(SourceFile{name, text, false, "."});
}

ConfigError error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("expected a ConfigError");
  throw std::logic_error("unreachable");
}

std::vector<std::string> texts(const SweepPoint& p) {
  std::vector<std::string> out;
  for (const auto& v : p.values) out.push_back(compact_text(v));
  return out;
}

constexpr const char* kBase = "base:\n  system: mi300x-8\n  workload: {kind: ag_gemm, n: 256, k: 512}\n";

TEST_CASE("grid: the cartesian product in file order, the last axis fastest") {
  const Study s = study_of(std::string(kBase) +
                           "sweep:\n  grid:\n    workload.variant: [bsp, pull, push]\n    workload.m: [64, 256]\n");
  CHECK(s.name == "study");
  CHECK(s.swept_keys() == std::vector<std::string>{"workload.variant", "workload.m"});
  REQUIRE(s.num_points() == 6);
  const auto points = expand_points(s);
  REQUIRE(points.size() == 6);
  CHECK(texts(points[0]) == std::vector<std::string>{"bsp", "64"});
  CHECK(texts(points[1]) == std::vector<std::string>{"bsp", "256"});
  CHECK(texts(points[2]) == std::vector<std::string>{"pull", "64"});
  CHECK(texts(points[5]) == std::vector<std::string>{"push", "256"});
  CHECK(points[5].index == 5);
  CHECK(point_label(points[3], label_names(s.swept_keys())) == "variant=pull m=256");
}

TEST_CASE("zip advances its lists together and multiplies with the grid in file order") {
  const Study s = study_of(std::string(kBase) +
                           "sweep:\n  zip:\n    workload.m: [64, 128]\n    workload.n: [256, 512]\n"
                           "  grid:\n    workload.variant: [bsp, push]\n");
  CHECK(s.swept_keys() == std::vector<std::string>{"workload.m", "workload.n", "workload.variant"});
  const auto points = expand_points(s);
  REQUIRE(points.size() == 4);
  CHECK(texts(points[0]) == std::vector<std::string>{"64", "256", "bsp"});
  CHECK(texts(points[1]) == std::vector<std::string>{"64", "256", "push"});
  CHECK(texts(points[2]) == std::vector<std::string>{"128", "512", "bsp"});
  CHECK(texts(points[3]) == std::vector<std::string>{"128", "512", "push"});
}

TEST_CASE("labels use the last key segment unless two would collide, values print on one line") {
  CHECK(label_names({"workload.m", "system.gpu.compute.clock"}) == std::vector<std::string>{"m", "clock"});
  CHECK(label_names({"workload.ranks", "system.ranks"}) == std::vector<std::string>{"workload.ranks", "system.ranks"});
  const Study s = study_of(std::string(kBase) + "sweep:\n  grid:\n    workload: [{kind: gemm, m: 64}, [1, 2], null]\n");
  const auto points = expand_points(s);
  CHECK(compact_text(points[0].values[0]) == "{kind: gemm, m: 64}");
  CHECK(compact_text(points[1].values[0]) == "[1, 2]");
  CHECK(compact_text(points[2].values[0]) == "null");
}

TEST_CASE("study structure errors name the file, line and key") {
  ConfigError e = error_of([] { study_of(std::string(kBase) + "swep:\n  grid: {workload.m: [64]}\n"); });
  CHECK(e.location().file == "study.yaml");
  CHECK(e.location().line == 4);
  CHECK(e.key_path() == "swep");
  CHECK(e.message() == "unknown key 'swep'; did you mean 'sweep'?");

  e = error_of([] { study_of(std::string(kBase) + "sweep:\n  gird: {workload.m: [64]}\n"); });
  CHECK(e.location().line == 5);
  CHECK(e.message() == "unknown key 'gird'; did you mean 'grid'?");

  e = error_of([] { study_of("sweep:\n  grid: {workload.m: [64]}\n"); });
  CHECK(e.message().starts_with("missing required key 'base'"));

  e = error_of([] { study_of(std::string(kBase) + "sweep:\n  grid:\n    workload.m: 64\n"); });
  CHECK(e.location().line == 6);
  CHECK(e.key_path() == "sweep.grid.workload.m");
  CHECK(e.message() == "expected a list of values to sweep, got a scalar");

  e = error_of([] { study_of(std::string(kBase) + "sweep:\n  grid:\n    workload.m: []\n"); });
  CHECK(e.message() == "the list of values is empty");

  e = error_of([] {
    study_of(std::string(kBase) + "sweep:\n  zip:\n    workload.m: [64, 128]\n    workload.variant: [bsp, push, pull]\n");
  });
  CHECK(e.location().line == 7);
  CHECK(e.message() == "zip lists must have equal lengths: 'workload.variant' has 3 values but 'workload.m' has 2");

  e = error_of([] {
    study_of(std::string(kBase) + "sweep:\n  grid:\n    workload.m: [64]\n  zip:\n    workload.m: [128]\n");
  });
  CHECK(e.location().line == 8);
  CHECK(e.message().find("swept twice") != std::string::npos);

  e = error_of([] { study_of(std::string(kBase) + "sweep:\n  grid:\n    workload..m: [64]\n"); });
  CHECK(e.location().line == 6);
  CHECK(e.message().find("malformed key path") != std::string::npos);
}

TEST_CASE("each point's config is checked as a run config, errors located in the study") {
  const Study s = study_of(std::string(kBase) +
                           "sweep:\n  grid:\n    workload.variant: [bsp, pushh]\n    workload.mm: [64]\n");
  const auto points = expand_points(s);
  // The misspelled key is reported at its line in the study, with the point that hit it.
  ConfigError e = error_of([&] { prepare_point(s, points[0], {}); });
  CHECK(e.location().to_string() == "study.yaml:7:5");
  CHECK(e.key_path() == "workload.mm");
  CHECK(e.message().starts_with("unknown key 'mm'; did you mean 'm'?"));
  CHECK(e.message().find("point 0: workload.variant=bsp workload.mm=64") != std::string::npos);

  const Study bad_value = study_of(std::string(kBase) + "sweep:\n  grid:\n    workload.variant: [bsp, pushh]\n");
  const auto bad_points = expand_points(bad_value);
  CHECK_NOTHROW(prepare_point(bad_value, bad_points[0], {}));
  e = error_of([&] { prepare_point(bad_value, bad_points[1], {}); });
  CHECK(e.location().file == "study.yaml");
  CHECK(e.location().line == 6);
  CHECK(e.location().column == 29);
  CHECK(e.key_path() == "workload.variant");
  CHECK(e.message().find("did you mean 'push'?") != std::string::npos);
  // prepare_points checks every point, so the bad second point stops the whole study.
  CHECK_THROWS_AS(prepare_points(bad_value, bad_points, {}), ConfigError);
}

TEST_CASE("points get the swept values over the base and the --set flags, the hash follows the config") {
  const Study s = study_of(std::string(kBase) + "sweep:\n  grid:\n    workload.m: [64, 128]\n");
  const auto points = expand_points(s);
  const auto sets = sim::config::parse_overrides(std::vector<std::string>{"system.num_gpus=2", "workload.m=999"});
  const auto prepared = prepare_points(s, points, sets);
  REQUIRE(prepared.size() == 2);
  CHECK(prepared[0].spec.system.num_gpus == 2);
  CHECK(describe_json(prepared[0].spec)["workload"]["m"] == 64);  // the axis wins over --set
  CHECK(describe_json(prepared[1].spec)["workload"]["m"] == 128);
  CHECK(prepared[0].config_hash.size() == 16);
  CHECK(prepared[0].config_hash != prepared[1].config_hash);
  CHECK(prepare_point(s, points[0], sets).config_hash == prepared[0].config_hash);
  CHECK(prepare_point(s, points[0], {}).config_hash != prepared[0].config_hash);
}

TEST_CASE("base: may name a run config file, resolved from the study's folder") {
  const auto dir = test::scratch_dir() / "sweep-base";
  std::filesystem::create_directories(dir);
  test::write_file("sweep-base/run.yaml", "system: mi300x-1\nworkload: {kind: gemm, m: 256, n: 256, k: 256}\n");
  const std::string study_path = (dir / "study.yaml").string();
  const Study s = parse_study(SourceFile{study_path, "base: run.yaml\nsweep:\n  grid:\n    workload.m: [512]\n", false,
                                         dir.string()});
  const auto prepared = prepare_point(s, expand_points(s)[0], {});
  CHECK(prepared.spec.system.num_gpus == 1);
  CHECK(describe_json(prepared.spec)["workload"]["m"] == 512);
}

run::RunResult summary_with_taxes() {
  return run::run_result_from_json({{"makespan_ns", 100.0},
          {"events", 42},
          {"l2_hit_rate", 0.5},
          {"mall_hit_rate", 0.25},
          {"work_ns", {{"compute", 40.0}, {"memory", 20.0}, {"communication", 10.0}, {"idle", 0.0}}},
          {"taxes_ns", {{"bulk_synchronous", 15.0}, {"inter_kernel_locality", 10.0}, {"launch_overhead", 5.0}}}});
}

TEST_CASE("results.csv: the columns, fixed precision, empty cells for missing values and failures") {
  std::vector<PointResult> results(3);
  results[0] = {0, true, false, "", 1.23456, summary_with_taxes()};
  results[1] = {1, true, false, "", 0.5, run::run_result_from_json({{"makespan_ns", 7.5}, {"events", 3}})};  // no taxes
  results[2] = {2, false, false, "boom, \"quoted\"", 0.001, std::nullopt};
  const std::string csv = results_csv({"workload.op", "workload.bytes"},
                                      {{"a", "1 MiB"}, {"b", "2 MiB"}, {"c", "3 MiB"}}, results);
  CHECK(csv ==
        "point,workload.op,workload.bytes,makespan_ns,compute_ns,memory_ns,communication_ns,idle_ns,"
        "bulk_synchronous_ns,inter_kernel_locality_ns,launch_overhead_ns,l2_hit_rate,mall_hit_rate,events,status,"
        "error,wall_s\n"
        "0,a,1 MiB,100.000,40.000,20.000,10.000,0.000,15.000,10.000,5.000,0.500000,0.250000,42,ok,,1.235\n"
        "1,b,2 MiB,7.500,,,,,,,,,,3,ok,,0.500\n"
        "2,c,3 MiB,,,,,,,,,,,,failed,\"boom, \"\"quoted\"\"\",0.001\n");
}

TEST_CASE("the report is one page with a bar per point, a segment per part, and the table") {
  const Study s = study_of(std::string(kBase) + "sweep:\n  grid:\n    workload.m: [64, 128, 256]\n");
  std::vector<PointResult> results(3);
  results[0] = {0, true, false, "", 1.0, summary_with_taxes()};
  results[1] = {1, true, false, "", 1.0, run::run_result_from_json({{"makespan_ns", 50.0}})};
  results[2] = {2, false, false, "a <bad> thing", 1.0, std::nullopt};
  const std::string html = sweep_report_html(s, {"m=64", "m=128", "m=256"}, {{"64"}, {"128"}, {"256"}}, results);
  CHECK(html.starts_with("<!DOCTYPE html>"));
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("http://") == html.find("http://www.w3.org/2000/svg"));  // no other address: nothing fetched
  // Point 0: six non-zero parts; point 1: its makespan alone; point 2: a failure mark.
  std::size_t bars = 0;
  for (std::size_t at = html.find("class=\"part\""); at != std::string::npos; at = html.find("class=\"part\"", at + 1)) ++bars;
  CHECK(bars == 7);
  CHECK(html.find("a &lt;bad&gt; thing") != std::string::npos);
  CHECK(html.find("<tr class=\"failed\">") != std::string::npos);
  CHECK(html.find("bulk_synchronous_ns") != std::string::npos);
}

TEST_CASE("--points A:B") {
  const PointRange r = parse_point_range("2:5", 10);
  CHECK(r.begin == 2);
  CHECK(r.end == 5);
  CHECK_FALSE(r.whole);
  CHECK(parse_point_range("7:", 10).end == 10);
  CHECK(parse_point_range(":3", 10).begin == 0);
  CHECK(parse_point_range("8:100", 10).end == 10);
  CHECK_THROWS_AS(parse_point_range("5", 10), UsageError);
  CHECK_THROWS_AS(parse_point_range("a:b", 10), UsageError);
  CHECK_THROWS_AS(parse_point_range("4:4", 10), UsageError);
  CHECK_THROWS_AS(parse_point_range("10:", 10), UsageError);
}

TEST_CASE("point files: written with their config hash, read back only for the same config") {
  const auto dir = test::scratch_dir() / "sweep-points";
  std::filesystem::remove_all(dir);
  CHECK(point_file(dir, 7, 10) == dir / "points" / "0007.json");
  CHECK(point_file(dir, 7, 123456) == dir / "points" / "000007.json");
  const PointResult r{3, true, false, "", 0.25, summary_with_taxes()};
  const auto file = point_file(dir, 3, 10);
  write_point_file(file, r, {"workload.m"}, {"64"}, "abc");
  const auto j = nlohmann::json::parse(test::read_all(file));
  CHECK(j["sweep_point"]["values"]["workload.m"] == "64");
  CHECK(j["makespan_ns"] == 100.0);
  const auto back = read_finished_point(file, 3, "abc");
  REQUIRE(back.has_value());
  CHECK(back->resumed);
  CHECK(back->wall_s == 0.25);
  REQUIRE(back->result.has_value());
  CHECK(run::to_json(*back->result) == run::to_json(summary_with_taxes()));
  CHECK_FALSE(read_finished_point(file, 3, "abd").has_value());  // the config changed
  CHECK_FALSE(read_finished_point(file, 4, "abc").has_value());
  CHECK_FALSE(read_finished_point(point_file(dir, 5, 10), 5, "abc").has_value());  // never ran
  test::write_file("sweep-points/points/0006.json", "{\"truncated\": ");
  CHECK_FALSE(read_finished_point(point_file(dir, 6, 10), 6, "abc").has_value());
}

TEST_CASE("compare: rows for what either run has, deltas only where both have it") {
  run::RunResult b = summary_with_taxes();
  b.result.makespan_ps = 80'000;
  b.result.breakdown->times[static_cast<std::size_t>(workloads::replay::TimeCategory::kLaunchOverhead)] = 0;
  const auto rows = compare_runs(summary_with_taxes(), b);
  REQUIRE(rows.size() == 8);
  CHECK(rows[0].quantity == "makespan_ns");
  CHECK(*rows[0].delta_ns() == -20.0);
  CHECK(*rows[0].delta_pct() == -20.0);
  CHECK(rows[7].quantity == "launch_overhead_ns");
  CHECK(rows[7].is_tax);
  CHECK(*rows[7].delta_pct() == -100.0);
  CHECK(rows[4].quantity == "idle_ns");
  CHECK_FALSE(rows[4].delta_pct().has_value());  // 0 -> 0: no percentage
  const auto only_makespan = compare_runs(run::run_result_from_json({{"makespan_ns", 10.0}}), summary_with_taxes());
  REQUIRE(only_makespan.size() == 8);
  CHECK_FALSE(only_makespan[1].delta_ns().has_value());
  CHECK(comparison_csv(only_makespan).find("compute_ns,,40.000,,,\n") != std::string::npos);
  CHECK(*rows[0].ratio() == doctest::Approx(0.8));
  CHECK_FALSE(rows[4].ratio().has_value());  // 0 -> 0: no ratio
  CHECK(compare_runs(run::run_result_from_json({{"makespan_ns", 10.0}}), run::run_result_from_json({{"makespan_ns", 5.0}}))
            .size() == 1);
  const std::string table = comparison_table(rows);
  CHECK(table.find("A (ns)") != std::string::npos);
  CHECK(table.find("launch_overhead (tax)") != std::string::npos);
  CHECK(table.find("-20.00") != std::string::npos);
}

}  // namespace
}  // namespace tessera::app::sweep

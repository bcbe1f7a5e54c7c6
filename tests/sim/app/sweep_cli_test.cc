// `tessera sweep` and `tessera compare` as a user runs them: outputs, determinism over --jobs,
// failures, --resume, --points slices and their merge, and bad input.
#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/sim/app/cli_process.h"

namespace {

namespace fs = std::filesystem;
using tessera::test::fresh_dir;
using tessera::test::lines_of;
using tessera::test::read_all;
using tessera::test::run_tessera;
using tessera::test::without_wall_s;
using tessera::test::write_file;

const std::string kTinyStudy = std::string(TESSERA_SWEEP_FIXTURES) + "/tiny.yaml";

// The unit a table's header gives a time column ("makespan (us)" -> "us"); empty when the
// column is missing or names no time unit.
std::string header_unit(const std::string& text, const std::string& column) {
  for (const char* unit : {"ns", "us", "ms", "s"}) {
    if (text.find(column + " (" + unit + ")") != std::string::npos) return unit;
  }
  return "";
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

std::size_t count_files(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST_CASE("sweep: results.csv, points/ and report.html, byte-identical for --jobs 1 and --jobs 2") {
  const fs::path one = fresh_dir("sweep-j1");
  const fs::path two = fresh_dir("sweep-j2");
  const auto a = run_tessera("sweep '" + kTinyStudy + "' --jobs 1 --out '" + one.string() + "'");
  const auto b = run_tessera("sweep '" + kTinyStudy + "' --jobs 2 --out '" + two.string() + "'");
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  const std::string csv = read_all(one / "results.csv");
  CHECK(without_wall_s(csv) == without_wall_s(read_all(two / "results.csv")));
  const auto rows = lines_of(csv);
  REQUIRE(rows.size() == 7);
  CHECK(rows[0] ==
        "point,workload.variant,workload.m,system.interconnect.link_bandwidth,makespan_ns,compute_ns,memory_ns,"
        "communication_ns,idle_ns,bulk_synchronous_ns,inter_kernel_locality_ns,launch_overhead_ns,l2_hit_rate,"
        "mall_hit_rate,events,status,error,wall_s");
  CHECK(rows[1].starts_with("0,bsp,64,64 GB/s,"));
  CHECK(rows[2].starts_with("1,bsp,128,32 GB/s,"));
  CHECK(rows[6].starts_with("5,push,128,32 GB/s,"));
  CHECK(rows[6].find(",ok,,") != std::string::npos);
  // Every point's full summary, with the record --resume reads.
  CHECK(count_files(one / "points") == 6);
  const auto p5 = nlohmann::json::parse(read_all(one / "points" / "0005.json"));
  CHECK(p5["variant"] == "push");
  CHECK(p5["workload_parameters"]["m"] == 128);
  CHECK(p5["sweep_point"]["index"] == 5);
  CHECK(p5["sweep_point"]["values"]["system.interconnect.link_bandwidth"] == "32 GB/s");
  CHECK(p5["sweep_point"]["config_hash"].get<std::string>().size() == 16);
  const std::string html = read_all(one / "report.html");
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(html.find("variant=push m=128 link_bandwidth=32 GB/s") != std::string::npos);
  // The terminal table, and nothing but results and the closing line.
  // Every time of the table in one unit, named in the headers.
  const std::string unit = header_unit(a.out, "makespan");
  CHECK(!unit.empty());
  CHECK(header_unit(a.out, "bulk_synchronous") == unit);
  CHECK(header_unit(a.out, "launch_overhead") == unit);
  CHECK(a.err.find("6 points (6 run, 0 resumed, 0 failed)") != std::string::npos);
  CHECK(a.err.find('\r') == std::string::npos);  // no progress bar when stderr is not a terminal
  // Only the outputs are left behind (no temporaries).
  CHECK(count_files(one) == 3);
}

TEST_CASE("sweep: the default output folder is STUDY.sweep in the current folder") {
  const fs::path cwd = fresh_dir("sweep-default-out");
  fs::create_directories(cwd);
  const auto r = run_tessera("sweep '" + kTinyStudy + "'", cwd);
  REQUIRE(r.exit_code == 0);
  CHECK(fs::exists(cwd / "tiny.sweep" / "results.csv"));
}

TEST_CASE("sweep: a failing point is reported and the others finish, exit code 1") {
  const fs::path study_dir = fresh_dir("sweep-fail");
  fs::create_directories(study_dir);
  // A trace of two ranks: it runs on two GPUs and fails on one; a missing trace fails to load.
  const auto config = write_file("sweep-fail/two_ranks.yaml", "system: {base: mi300x-8, num_gpus: 2}\n"
                                                              "workload: {kind: ag_gemm, m: 64, n: 256, k: 512}\n");
  const auto dump = run_tessera("run '" + config.string() + "' --dump-trace '" + (study_dir / "two_ranks.jsonl").string() + "'");
  REQUIRE(dump.exit_code == 0);
  write_file("sweep-fail/study.yaml",
             "base:\n  system: mi300x-8\n  workload: {kind: trace, path: two_ranks.jsonl}\n"
             "sweep:\n  grid:\n    workload.path: [two_ranks.jsonl, missing.jsonl]\n    system.num_gpus: [2, 1]\n");
  const fs::path out = study_dir / "out";
  // Run from elsewhere: the relative trace paths start at the study's folder.
  const auto r = run_tessera("sweep '" + (study_dir / "study.yaml").string() + "' --jobs 2 --out '" + out.string() + "'", "/");
  CHECK(r.exit_code == 1);
  const auto rows = lines_of(read_all(out / "results.csv"));
  REQUIRE(rows.size() == 5);
  CHECK(rows[1].starts_with("0,two_ranks.jsonl,2,"));
  CHECK(rows[1].find(",ok,,") != std::string::npos);
  // A replay error names the trace file (relative paths resolved against the study's folder).
  CHECK(rows[2].find("1,two_ranks.jsonl,1,,,,,,,,,,,,failed," + (study_dir / "two_ranks.jsonl").string() +
                     ": the trace has 2 ranks") == 0);
  CHECK(rows[3].find(",failed,") != std::string::npos);
  CHECK(rows[3].find("missing.jsonl") != std::string::npos);
  CHECK(rows[4].find(",failed,") != std::string::npos);
  CHECK(r.err.find("point 1 (path=two_ranks.jsonl num_gpus=1) failed: " + (study_dir / "two_ranks.jsonl").string() +
                   ": the trace has 2 ranks") != std::string::npos);
  CHECK(r.err.find("4 points (4 run, 0 resumed, 3 failed)") != std::string::npos);
  // Only the point that ran has a summary file; the report still shows all four.
  CHECK(count_files(out / "points") == 1);
  CHECK(read_all(out / "report.html").find("<tr class=\"failed\">") != std::string::npos);
}

TEST_CASE("sweep --resume skips the points already done for the same config") {
  const fs::path out = fresh_dir("sweep-resume");
  const std::string base = "sweep '" + kTinyStudy + "' --jobs 2 --out '" + out.string() + "'";
  REQUIRE(run_tessera(base).exit_code == 0);
  const std::string first_csv = read_all(out / "results.csv");
  // An interrupted run: point 4's summary never got written.
  fs::remove(out / "points" / "0004.json");
  const auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (const auto& f : fs::directory_iterator(out / "points")) fs::last_write_time(f.path(), old_time);

  const auto resumed = run_tessera(base + " --resume");
  REQUIRE(resumed.exit_code == 0);
  CHECK(resumed.err.find("6 points (1 run, 5 resumed, 0 failed)") != std::string::npos);
  CHECK(fs::exists(out / "points" / "0004.json"));
  for (const char* kept : {"0000.json", "0001.json", "0002.json", "0003.json", "0005.json"}) {
    CHECK_MESSAGE(fs::last_write_time(out / "points" / kept) == old_time, kept);
  }
  CHECK(fs::last_write_time(out / "points" / "0004.json") > old_time);
  // The resumed points keep their recorded wall times, so the whole file is the same.
  const std::string resumed_csv = read_all(out / "results.csv");
  CHECK(without_wall_s(resumed_csv) == without_wall_s(first_csv));
  CHECK(lines_of(resumed_csv)[1] == lines_of(first_csv)[1]);

  // Another config (here a --set) makes every point stale; without --resume everything runs.
  CHECK(run_tessera(base + " --resume --set seed=7").err.find("(6 run, 0 resumed, 0 failed)") != std::string::npos);
  CHECK(run_tessera(base).err.find("(6 run, 0 resumed, 0 failed)") != std::string::npos);
}

TEST_CASE("sweep --points slices (Slurm array tasks) merge into the same results with --resume") {
  const fs::path whole = fresh_dir("sweep-whole");
  const fs::path sliced = fresh_dir("sweep-sliced");
  REQUIRE(run_tessera("sweep '" + kTinyStudy + "' --out '" + whole.string() + "'").exit_code == 0);
  const auto t0 = run_tessera("sweep '" + kTinyStudy + "' --points 0:3 --out '" + sliced.string() + "'");
  const auto t1 = run_tessera("sweep '" + kTinyStudy + "' --points 3: --out '" + sliced.string() + "'");
  REQUIRE(t0.exit_code == 0);
  REQUIRE(t1.exit_code == 0);
  CHECK(t0.err.find("points 0 to 2 of 6") != std::string::npos);
  CHECK_FALSE(fs::exists(sliced / "results.csv"));  // a slice writes only its points
  CHECK(count_files(sliced / "points") == 6);
  const auto merge = run_tessera("sweep '" + kTinyStudy + "' --resume --out '" + sliced.string() + "'");
  REQUIRE(merge.exit_code == 0);
  CHECK(merge.err.find("(0 run, 6 resumed, 0 failed)") != std::string::npos);
  CHECK(without_wall_s(read_all(sliced / "results.csv")) == without_wall_s(read_all(whole / "results.csv")));
  CHECK(run_tessera("sweep '" + kTinyStudy + "' --points 6:9").exit_code == 2);
}

TEST_CASE("sweep: bad input names the study file, line and key, exits 2 and writes nothing") {
  const fs::path out = fresh_dir("sweep-bad-out");
  const auto study = write_file("sweep-bad.yaml",
                                "base:\n  system: mi300x-8\n  workload: {kind: ag_gemm, n: 256, k: 512}\n"
                                "sweep:\n  grid:\n    workload.variant: [bsp, push]\n    workload.m: [64, abc]\n");
  const auto r = run_tessera("sweep '" + study.string() + "' --out '" + out.string() + "'");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("sweep-bad.yaml:7:22: workload.m: expected an integer, got \"abc\"") != std::string::npos);
  CHECK(r.err.find("(point 1: workload.variant=bsp workload.m=abc)") != std::string::npos);
  CHECK_FALSE(fs::exists(out));  // the bad point is the second: nothing ran before the check

  const auto zip = write_file("sweep-bad-zip.yaml",
                              "base:\n  system: mi300x-8\n  workload: {kind: ag_gemm}\n"
                              "sweep:\n  zip:\n    workload.m: [64]\n    workload.n: [1, 2]\n");
  const auto z = run_tessera("sweep '" + zip.string() + "' --out '" + out.string() + "'");
  CHECK(z.exit_code == 2);
  CHECK(z.err.find("sweep-bad-zip.yaml:7:17: sweep.zip.workload.n: zip lists must have equal lengths") != std::string::npos);

  const auto top = write_file("sweep-bad-top.yaml", "base: {system: mi300x-8}\nsweeps: {}\n");
  const auto t = run_tessera("sweep '" + top.string() + "'");
  CHECK(t.exit_code == 2);
  CHECK(t.err.find("sweep-bad-top.yaml:2:1: sweeps: unknown key 'sweeps'; did you mean 'sweep'?") != std::string::npos);

  CHECK(run_tessera("sweep").exit_code == 2);
  CHECK(run_tessera("sweep no-such-study.yaml").err.find("cannot find study file 'no-such-study.yaml'") != std::string::npos);
  CHECK(run_tessera("sweep '" + kTinyStudy + "' --jobs 0").exit_code == 2);
  CHECK(run_tessera("sweep '" + kTinyStudy + "' --set workload.n=abc").err.find("error: --set workload.n=abc: workload.n") !=
        std::string::npos);
  // A --set of a swept key would be overridden by every point: an error rather than a silent no-op.
  const auto masked = run_tessera("sweep '" + kTinyStudy + "' --set workload.m=512");
  CHECK(masked.exit_code == 2);
  CHECK(masked.err.find("--set workload.m=512: workload.m: the study sweeps 'workload.m'") != std::string::npos);
  CHECK(run_tessera("sweep --help").out.find("--resume") != std::string::npos);
}

TEST_CASE("the example studies are compiled in and every point of each is a valid config") {
  for (const char* study : {"xgmi_ag_gemm", "flash_decode_batch_kv", "attention_mappings", "gemm_all_scatter_ranks",
                            "papers/taxes_ag_gemm", "papers/taxes_flash_decode", "papers/iris_gemm_all_scatter",
                            "papers/iris_gemm_all_scatter_ranks", "papers/numa_attention", "papers/numa_attention_gqa",
                            "papers/swizzleperf_gemm", "papers/fleet_decode", "selection/ag_gemm_variants", "selection/flash_decode_variants"}) {
    const auto r = run_tessera(fmt::format("sweep studies/{}.yaml --dry-run", study), "/");
    CHECK_MESSAGE(r.exit_code == 0, study << ": " << r.err);
    CHECK_MESSAGE(r.out.find("every point's config is valid") != std::string::npos, study);
  }
  const auto r = run_tessera("sweep studies/xgmi_ag_gemm.yaml --dry-run --points 3:5", "/");
  CHECK(r.out.find("2 of 9 points") != std::string::npos);
  CHECK(r.out.find("64 GB/s") != std::string::npos);
  CHECK_FALSE(fs::exists("/xgmi_ag_gemm.sweep"));
}

TEST_CASE("compare: the makespan and each part from A to B, as a table, JSON and files") {
  const auto a = write_file("compare-a.yaml", "system: {base: mi300x-8, num_gpus: 2}\n"
                                              "workload: {kind: ag_gemm, m: 64, n: 256, k: 512, variant: bsp}\n");
  const auto b = write_file("compare-b.yaml", "system: {base: mi300x-8, num_gpus: 2}\n"
                                              "workload: {kind: ag_gemm, m: 64, n: 256, k: 512, variant: push}\n");
  const fs::path out = fresh_dir("compare-out");
  const auto r = run_tessera("compare '" + a.string() + "' '" + b.string() + "' --out '" + out.string() + "'");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("A: " + a.string() + " (ag_gemm on mi300x-8, variant bsp)") != std::string::npos);
  CHECK(r.out.find("B: " + b.string() + " (ag_gemm on mi300x-8, variant push)") != std::string::npos);
  // What the two configs differ in: the variant alone.
  CHECK(r.out.find("A and B differ in 1 key:\n  workload.variant: bsp -> push\n") != std::string::npos);
  for (const char* column : {"quantity", "change (%)", "B / A", "makespan", "bulk_synchronous (tax)",
                             "inter_kernel_locality (tax)", "launch_overhead (tax)", "compute"}) {
    CHECK_MESSAGE(r.out.find(column) != std::string::npos, column);
  }
  // The times of A, B and B - A in one unit, named in the headers.
  const std::string unit = header_unit(r.out, "A");
  CHECK(!unit.empty());
  CHECK(header_unit(r.out, "B") == unit);
  CHECK(header_unit(r.out, "B - A") == unit);
  const auto j = nlohmann::json::parse(read_all(out / "compare.json"));
  CHECK(j["a"]["variant"] == "bsp");
  CHECK(j["b"]["variant"] == "push");
  REQUIRE(j["differences"].size() == 1);
  CHECK(j["differences"][0] == nlohmann::json{{"key", "workload.variant"}, {"a", "bsp"}, {"b", "push"}});
  const auto& q = j["quantities"];
  REQUIRE(q.size() == 8);
  CHECK(q[0]["quantity"] == "makespan_ns");
  CHECK(q[0]["a_ns"] == j["a"]["makespan_ns"]);
  CHECK(q[0]["delta_ns"].get<double>() == doctest::Approx(q[0]["b_ns"].get<double>() - q[0]["a_ns"].get<double>()));
  CHECK(q[0]["ratio"].get<double>() == doctest::Approx(q[0]["b_ns"].get<double>() / q[0]["a_ns"].get<double>()));
  // The parts of each side add up to its makespan (the summary's promise, carried through).
  double a_sum = 0;
  for (std::size_t i = 1; i < q.size(); ++i) a_sum += q[i]["a_ns"].get<double>();
  CHECK(a_sum == doctest::Approx(q[0]["a_ns"].get<double>()).epsilon(1e-6));
  const auto csv = lines_of(read_all(out / "compare.csv"));
  REQUIRE(csv.size() == 9);
  CHECK(csv[0] == "quantity,a_ns,b_ns,delta_ns,delta_pct,ratio");
  CHECK(csv[1].starts_with("makespan_ns,"));
  // compare.html: the differing key, a bar per side and quantity, the ratios.
  const std::string html = read_all(out / "compare.html");
  CHECK(html.starts_with("<!DOCTYPE html>"));
  CHECK(html.find("<code>workload.variant</code></td><td class=\"text\">bsp</td><td class=\"text\">push</td>") !=
        std::string::npos);
  CHECK(count_of(html, "class=\"series-bar\"") == 2 * q.size());
  CHECK(count_of(html, "B / A = ") + count_of(html, "B / A: n/a") + count_of(html, "both 0") == q.size());
  CHECK(html.find(fmt::format("B / A = {:.3f}", q[0]["ratio"].get<double>())) != std::string::npos);
  CHECK(count_files(out) == 3);

  // --json prints the same object; --set applies to both sides.
  const auto js = run_tessera("compare '" + a.string() + "' '" + b.string() + "' --json --set workload.m=128");
  REQUIRE(js.exit_code == 0);
  const auto jj = nlohmann::json::parse(js.out);
  CHECK(jj["quantities"][0]["a_ns"] != q[0]["a_ns"]);
  CHECK(jj["quantities"][0]["b_ns"] != q[0]["b_ns"]);
}

TEST_CASE("compare: microbenchmarks have no breakdown, so only the makespan is compared, bad input exits 2") {
  const auto a = write_file("compare-mb-a.yaml", "system: mi300x-8\nworkload: {kind: microbench, op: all_store, bytes: 1 MiB}\n");
  const auto b = write_file("compare-mb-b.yaml", "system: mi300x-8\nworkload: {kind: microbench, op: all_store, bytes: 2 MiB}\n");
  const auto r = run_tessera("compare '" + a.string() + "' '" + b.string() + "' --json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["quantities"].size() == 1);
  CHECK(j["quantities"][0]["delta_pct"].get<double>() > 0);
  REQUIRE(j["differences"].size() == 1);
  CHECK(j["differences"][0]["key"] == "workload.bytes");
  CHECK(j["differences"][0]["a"] == "1 MiB");
  CHECK(j["differences"][0]["b"] == "2 MiB");
  CHECK(run_tessera("compare '" + a.string() + "'").exit_code == 2);
  const auto bad = run_tessera("compare '" + a.string() + "' '" + b.string() + "' --set workload.bytes=12");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--set workload.bytes=12") != std::string::npos);
}

}  // namespace

TEST_CASE("sweep --max-wall: a point still running at the limit fails (no file, so --resume runs it again)") {
  const auto study = write_file("max_wall_study.yaml", "base:\n"
                                                       "  system: mi300x-1\n"
                                                       "  workload: {kind: phold, lps: 64}\n"
                                                       "sweep:\n"
                                                       "  grid:\n"
                                                       "    workload.end_time: [1 us, 1 s]\n");
  const fs::path out = fresh_dir("sweep-max-wall");
  const auto r = run_tessera("sweep '" + study.string() + "' --jobs 2 --max-wall 200ms --out '" + out.string() + "'");
  CHECK(r.exit_code == 1);
  const auto rows = lines_of(read_all(out / "results.csv"));
  REQUIRE(rows.size() == 3);
  CHECK(rows[1].find(",ok,,") != std::string::npos);
  CHECK(rows[2].find(",failed,stopped by --max-wall (200 ms) after ") != std::string::npos);
  CHECK(rows[2].find("the result is incomplete") != std::string::npos);
  CHECK(fs::exists(out / "points" / "0000.json"));
  CHECK_FALSE(fs::exists(out / "points" / "0001.json"));
  // The limit is no part of a point's config: the finished point is resumed under another.
  const auto again = run_tessera("sweep '" + study.string() + "' --max-wall 100ms --resume --out '" + out.string() + "'");
  CHECK(again.err.find("1 run, 1 resumed, 1 failed") != std::string::npos);
  CHECK(run_tessera("sweep '" + study.string() + "' --max-wall 5").exit_code == 2);
}

TEST_CASE("sweep --uncertainty: each point's makespan quantiles, and the fastest variant's share per group") {
  const auto study = write_file("sweep-uncertainty-study.yaml",
                                "base:\n"
                                "  system:\n"
                                "    base: mi300x-8-spec\n"
                                "    uncertainty: {gpu.memory.hbm_latency: [300 ns, 900 ns], "
                                "interconnect.link_bandwidth: [16 GB/s, 64 GB/s]}\n"
                                "  workload: {kind: ag_gemm, n: 512, k: 2048, ranks: 2}\n"
                                "sweep:\n"
                                "  grid:\n"
                                "    workload.m: [16, 256]\n"
                                "    workload.variant: [bsp, pull, push]\n");
  const fs::path out = fresh_dir("sweep-uncertainty-out");
  const auto r = run_tessera("sweep '" + study.string() + "' --uncertainty 4 --jobs 2 --quiet --out '" + out.string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto rows = lines_of(read_all(out / "results.csv"));
  REQUIRE(rows.size() == 7);
  CHECK(rows[0].rfind("point,workload.m,workload.variant,makespan_ns,makespan_p5_ns,makespan_median_ns,makespan_p95_ns,"
                      "fastest_share,", 0) == 0);
  double share[2] = {0, 0};
  for (std::size_t i = 1; i < rows.size(); ++i) {
    std::vector<std::string> cells;
    std::istringstream in(rows[i]);
    for (std::string c; std::getline(in, c, ',');) cells.push_back(c);
    const double p5 = std::stod(cells[4]), median = std::stod(cells[5]), p95 = std::stod(cells[6]);
    CHECK(p5 <= median);
    CHECK(median <= p95);
    CHECK(p5 < p95);  // the ranges are wide: the samples spread
    share[(i - 1) / 3] += std::stod(cells[7]);
  }
  CHECK(share[0] == doctest::Approx(1.0));  // m = 16: one variant is the fastest in each sample
  CHECK(share[1] == doctest::Approx(1.0));
  const auto point = nlohmann::json::parse(read_all(out / "points" / "0000.json"));
  CHECK(point["sampled_makespans_ns"].size() == 4);
  // --resume keeps a point only when it ran with as many samples.
  const auto again = run_tessera("sweep '" + study.string() + "' --uncertainty 2 --resume --quiet --out '" + out.string() + "'");
  REQUIRE(again.exit_code == 0);
  CHECK(again.err.find("6 run, 0 resumed") != std::string::npos);
  CHECK(nlohmann::json::parse(read_all(out / "points" / "0000.json"))["sampled_makespans_ns"].size() == 2);
  // A bound the parameter cannot take stops the study before any point runs.
  const auto bad = write_file("sweep-uncertainty-bad.yaml",
                              "base:\n"
                              "  system: {base: mi300x-8-spec, uncertainty: {gpu.compute.matrix_efficiency.fp16: [0.5, 1.5]}}\n"
                              "  workload: {kind: ag_gemm, n: 512, k: 2048, ranks: 2}\n"
                              "sweep:\n"
                              "  grid:\n"
                              "    workload.m: [16, 256]\n");
  const auto refused = run_tessera("sweep '" + bad.string() + "' --uncertainty 2 --quiet --out '" +
                                   fresh_dir("sweep-uncertainty-bad").string() + "'");
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("sweep-uncertainty-bad.yaml:2") != std::string::npos);
  CHECK(refused.err.find("the bound 1.5") != std::string::npos);
}

// `tessera tune` and `tessera select` as a user runs them: the best of a space whose best point is known by
// construction, best.yaml reproducing it, the ranking, determinism over --jobs, --resume, the
// searches and their budget, the l2_hit_rate objective, and bad input (exit 2, file, line, key,
// nothing written).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

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

const std::string kConfig = std::string(TESSERA_SWEEP_FIXTURES) + "/tune_tiny.yaml";

std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) out.push_back(cell);
  return out;
}

std::string tune(const std::string& space, const fs::path& out, const std::string& flags = "") {
  return "tune '" + kConfig + "' --space '" + space + "' --out '" + out.string() + "' --quiet " + flags;
}

// Less work is never slower: the smallest m and k are the best point by construction.
const std::string kLessWork = "workload.k: [2048, 1024, 512]\nworkload.m: [128, 64]\n";

TEST_CASE("tune: finds the point known by construction, and best.yaml runs it to the same makespan") {
  const fs::path out = fresh_dir("tune-best");
  const auto r = run_tessera(tune(write_file("less_work.yaml", kLessWork).string(), out));
  REQUIRE(r.exit_code == 0);
  CAPTURE(r.out);
  CAPTURE(r.err);
  CHECK(r.out.find("6 candidates over 2 keys; exhaustive: 6 runs") != std::string::npos);
  CHECK(r.out.find("Best: k=512 m=64 (point 5)") != std::string::npos);
  const auto tuned = nlohmann::json::parse(read_all(out / "tune.json"));
  CHECK(tuned["best"]["point"] == 5);
  CHECK(tuned["best"]["values"]["workload.k"] == "512");
  CHECK(tuned["search"] == "exhaustive");
  // The ranking: every candidate, fastest first.
  const auto rows = lines_of(read_all(out / "ranking.csv"));
  REQUIRE(rows.size() == 7);
  CHECK(rows[0].starts_with("rank,point,workload.k,workload.m,makespan_ns,"));
  CHECK(rows[1].starts_with("1,5,512,64,"));
  double previous = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const double makespan = std::stod(cells_of(rows[i])[4]);
    CHECK(makespan >= previous);
    previous = makespan;
  }
  // best.yaml is a run config that gives the best point's makespan exactly.
  const auto run = run_tessera("run '" + (out / "best.yaml").string() + "' --json --quiet");
  REQUIRE(run.exit_code == 0);
  CHECK(nlohmann::json::parse(run.out)["makespan_ns"].get<double>() == tuned["best"]["makespan_ns"].get<double>());
  CHECK(fs::exists(out / "points" / "0005.json"));
}

TEST_CASE("tune: the same ranking for --jobs 1 and --jobs 2, and again with --resume") {
  const std::string space = write_file("less_work_j.yaml", kLessWork).string();
  const fs::path one = fresh_dir("tune-j1");
  const fs::path two = fresh_dir("tune-j2");
  REQUIRE(run_tessera(tune(space, one, "--jobs 1")).exit_code == 0);
  REQUIRE(run_tessera(tune(space, two, "--jobs 2")).exit_code == 0);
  const std::string ranking = without_wall_s(read_all(one / "ranking.csv"));
  CHECK(ranking == without_wall_s(read_all(two / "ranking.csv")));
  CHECK(read_all(one / "best.yaml") == read_all(two / "best.yaml"));
  const auto resumed = run_tessera(tune(space, one, "--resume"));
  REQUIRE(resumed.exit_code == 0);
  CHECK(without_wall_s(read_all(one / "ranking.csv")) == ranking);
}

TEST_CASE("tune: coordinate descent within its budget, halving on the proxy") {
  const std::string space = write_file("less_work_big.yaml",
                                       "workload.k: [2048, 1024, 512]\nworkload.m: [128, 64]\n"
                                       "workload.n: [512, 256]\nproxy:\n  workload.variant: push\n");
  const fs::path co = fresh_dir("tune-co");
  const auto c = run_tessera(tune(space, co, "--search coordinate --budget 5"));
  REQUIRE(c.exit_code == 0);
  const auto ct = nlohmann::json::parse(read_all(co / "tune.json"));
  CHECK(ct["search"] == "coordinate");
  CHECK(ct["full_runs"].get<int>() <= 5);
  const fs::path ha = fresh_dir("tune-ha");
  const auto h = run_tessera(tune(space, ha, "--budget 3"));  // auto: 12 candidates > 3, a proxy: halving
  REQUIRE(h.exit_code == 0);
  CAPTURE(h.out);
  const auto ht = nlohmann::json::parse(read_all(ha / "tune.json"));
  CHECK(ht["search"] == "halving");
  CHECK(ht["proxy_runs"] == 12);
  CHECK(ht["full_runs"] == 3);
  CHECK(ht["best"]["label"] == "k=512 m=64 n=256");  // less work under push is less work under pull too
  CHECK(fs::exists(ha / "proxy" / "points"));
}

TEST_CASE("tune: --objective l2_hit_rate ranks the highest hit rate first") {
  const fs::path out = fresh_dir("tune-l2");
  const auto r = run_tessera(tune(write_file("variants.yaml", "workload.variant: [pull, bsp, push]\n").string(), out,
                                  "--objective l2_hit_rate"));
  REQUIRE(r.exit_code == 0);
  const auto rows = lines_of(read_all(out / "ranking.csv"));
  REQUIRE(rows.size() == 4);
  const auto header = cells_of(rows[0]);
  const std::size_t col = static_cast<std::size_t>(std::find(header.begin(), header.end(), "l2_hit_rate") - header.begin());
  REQUIRE(col < header.size());
  CHECK(std::stod(cells_of(rows[1])[col]) >= std::stod(cells_of(rows[2])[col]));
  CHECK(std::stod(cells_of(rows[2])[col]) >= std::stod(cells_of(rows[3])[col]));
}

TEST_CASE("tune: bad input exits 2 naming the file, line and key, and writes nothing") {
  const auto refused = [](const std::string& name, const std::string& text, const std::string& flags,
                          const std::vector<std::string>& words) {
    const fs::path out = fresh_dir("tune-bad-" + name);
    const std::string space = write_file(name + ".yaml", text).string();
    const auto r = run_tessera(tune(space, out, flags));
    CAPTURE(r.err);
    CHECK(r.exit_code == 2);
    for (const std::string& w : words) CHECK(r.err.find(w) != std::string::npos);
    CHECK_FALSE(fs::exists(out));
  };
  refused("misspelt", "workload.m: [128, 64]\nworkload.grup_m: [1, 2]\n", "", {"misspelt.yaml:2", "grup_m", "group_m"});
  refused("bad_value", "workload.group_m: [1, banana]\n", "", {"bad_value.yaml:1", "workload.group_m"});
  refused("not_list", "workload.group_m: 4\n", "", {"not_list.yaml:1", "expected a list of candidates"});
  refused("no_proxy", "workload.m: [128, 64]\n", "--search halving", {"needs a proxy"});
  refused("set_tuned", "workload.m: [128, 64]\n", "--set workload.m=32", {"the space tunes 'workload.m'"});
  refused("objective", "workload.m: [128, 64]\n", "--objective speed", {"--objective"});
  refused("budget", "workload.m: [128, 64]\n", "--budget 0", {"--budget"});
  const auto missing = run_tessera("tune '" + kConfig + "'");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("--space") != std::string::npos);
}

TEST_CASE("select: a selector from a real sweep, its header compiling, and bad input") {
  const fs::path sweep = fresh_dir("select-sweep");
  REQUIRE(run_tessera("sweep '" + std::string(TESSERA_SWEEP_FIXTURES) + "/tiny.yaml' --quiet --out '" + sweep.string() + "'")
              .exit_code == 0);
  const fs::path out = fresh_dir("select-out");
  const auto r = run_tessera("select '" + (sweep / "results.csv").string() + "' --target variant --out '" + out.string() + "'");
  REQUIRE(r.exit_code == 0);
  CAPTURE(r.out);
  CHECK(r.out.find("2 groups of points that differ only in workload.variant (bsp, pull, push") != std::string::npos);
  CHECK(r.out.find("the tree, leave-one-out") != std::string::npos);
  const auto j = nlohmann::json::parse(read_all(out / "selector.json"));
  CHECK(j["classes"].size() == 3);
  CHECK(j["groups"] == 2);
  CHECK(fs::exists(out / "rules.txt"));
  CHECK(lines_of(read_all(out / "groups.csv")).size() == 3);
  // The header compiles into a program that calls it.
  const fs::path program = write_file("use_selector.cc", "#include \"" + (out / "selector.h").string() +
                                                             "\"\nint main() { tessera_selector::Features f{}; "
                                                             "return tessera_selector::select_variant(f) == nullptr; }\n");
  CHECK(std::system(("c++ -std=c++17 -fsyntax-only '" + program.string() + "'").c_str()) == 0);
  // Bad input: exit 2, the file and key named, nothing written.
  const fs::path none = fresh_dir("select-bad");
  const auto target = run_tessera("select '" + (sweep / "results.csv").string() + "' --target mapping --out '" + none.string() + "'");
  CHECK(target.exit_code == 2);
  CHECK(target.err.find("results.csv:1") != std::string::npos);
  CHECK(target.err.find("mapping") != std::string::npos);
  CHECK_FALSE(fs::exists(none));
  CHECK(run_tessera("select '" + (sweep / "results.csv").string() + "'").exit_code == 2);           // no --target
  CHECK(run_tessera("select missing.csv --target variant").exit_code == 2);                          // no such file
  CHECK(run_tessera("select '" + (sweep / "results.csv").string() + "' --target variant --max-depth 0").exit_code == 2);
}

TEST_CASE("tune: the shipped spaces are compiled in and every value is valid with their configs") {
  // One coordinate step (--budget 1: the start point alone) on a shrunk config of each space's workload.
  const std::vector<std::pair<std::string, std::string>> spaces{
      {"spaces/ag_gemm.yaml", write_file("ag_gemm.yaml", "base: default.yaml\nworkload: {m: 256, k: 512}\n").string()},
      {"spaces/h200-gemm.yaml", write_file("h200-gemm.yaml", "system: h200-1-calibrated\nworkload: {kind: gemm, m: 512, n: 512, "
                                                             "k: 256, block_k: 32}\n").string()},
      {"spaces/h200-attention.yaml", write_file("h200-attention.yaml", "system: h200-1-calibrated\nworkload: {kind: "
                                                                       "attention, q_heads: 4, kv_heads: 4, seq_len: 512}\n").string()},
      {"spaces/swizzleperf_gemm.yaml", write_file("swizzleperf.yaml", "system: mi300x-1\nworkload: {kind: gemm, m: 1024, "
                                                                      "n: 1024, k: 256, block_k: 64}\n").string()},
  };
  for (const auto& entry : spaces) {
    const std::string& space = entry.first;  // (not a structured binding: doctest's CHECK captures it in a lambda)
    const std::string& config = entry.second;
    const fs::path out = fresh_dir("tune-shipped");
    const auto r = run_tessera("tune '" + config + "' --space " + space + " --search coordinate --budget 1 --quiet --out '" +
                               out.string() + "'", "/");
    CHECK_MESSAGE(r.exit_code == 0, space << ": " << r.err);
  }
}

}  // namespace

// Determinism end to end: every example config (configs/examples/*.yaml, configs/default.yaml)
// run twice gives a byte-identical summary.json, and every study (configs/studies/*.yaml) run
// with --jobs 1 and --jobs 2 gives a byte-identical results.csv and point files, apart from the
// wall-clock fields. Those are all named wall_* (wall_s, wall_events_per_s, sweep_point.wall_s,
// the wall_s column): the comparison drops exactly those, so a wall-clock field under any other
// name fails this test.
//
// The configs are found in the source tree, so a new example or study is covered (the test asks
// for its shrink flags). To keep the whole test at seconds on a 2-core machine, the studies run
// shrunk by --set flags that keep their structure (system, variants, swept axes) and cut their
// size: determinism does not depend on size, and at full size the four studies twice take
// about a minute.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/sim/app/cli_process.h"

namespace {

namespace fs = std::filesystem;
using tessera::test::read_all;
using tessera::test::run_tessera;
using tessera::test::scratch_dir;

const fs::path kConfigs = TESSERA_CONFIGS_DIR;

// The --set flags that shrink each config (by file name). Swept keys cannot be set, so the
// studies shrink what their axes leave alone.
const std::map<std::string, std::string>& shrink_flags() {
  static const std::map<std::string, std::string> flags{
      // The examples run at full size: under a second each.
      {"default.yaml", ""},
      {"ag_gemm.yaml", ""},
      {"all_reduce.yaml", ""},
      // decode: Qwen3-8B at batch 32 takes about 3 s; two of its 36 layers keep every operator.
      {"decode.yaml", "--set workload.layers=2"},
      // The studies take 2-6 s each at full size with --jobs 2 (about twice that with --jobs 1).
      // ag_gemm 1024 x 3584 x 8192 on 8 x MI300X: keep the 8 ranks, cut the matrices.
      {"xgmi_ag_gemm.yaml", "--set workload.m=128 --set workload.n=512 --set workload.k=1024"},
      {"gemm_all_scatter_ranks.yaml", "--set workload.m=256 --set workload.n=512 --set workload.k=512"},
      // flash_decode: one KV head instead of 12, and one split per block row of the shortest KV.
      {"flash_decode_batch_kv.yaml", "--set workload.q_heads=8 --set workload.kv_heads=1 --set workload.kv_splits=4"},
      // attention: short rows and coarse ops (its cost is the K/V bytes through the caches).
      {"attention_mappings.yaml", "--set workload.head_dim=16 --set workload.kv_blocks_per_op=64"},
      // all-reduce on three wirings: about 2 s at full size.
      {"topology_all_reduce.yaml", ""},
      // collectives across four nodes: 16 MiB instead of 64.
      {"scale_out_collectives.yaml", "--set workload.size=16MiB"},
  };
  return flags;
}

std::string shrink(const fs::path& config) {
  const auto it = shrink_flags().find(config.filename().string());
  CHECK_MESSAGE(it != shrink_flags().end(),
                config.filename().string() << " has no shrink flags in determinism_test.cc: add some that keep it fast");
  return it == shrink_flags().end() ? std::string() : it->second;
}

// Drops every key named wall_* at any depth.
nlohmann::json without_wall(nlohmann::json j) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end();) {
      if (it.key().starts_with("wall_")) {
        it = j.erase(it);
      } else {
        *it = without_wall(*it);
        ++it;
      }
    }
  } else if (j.is_array()) {
    for (auto& item : j) item = without_wall(item);
  }
  return j;
}

// A CSV line's cells; a quoted cell (a swept list, "[2, 4]") keeps its commas and its quotes.
std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

// results.csv without its wall_* columns, found by their header.
std::string csv_without_wall(const std::string& csv) {
  std::istringstream in(csv);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) rows.push_back(split(line));
  REQUIRE(!rows.empty());
  std::vector<bool> keep;
  for (const std::string& name : rows[0]) keep.push_back(!name.starts_with("wall_"));
  CHECK(std::count(keep.begin(), keep.end(), false) == 1);  // wall_s
  std::string out;
  for (const auto& cells : rows) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c >= keep.size() || keep[c]) out += cells[c] + ",";
    }
    out += "\n";
  }
  return out;
}

std::vector<fs::path> yaml_files(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

fs::path fresh(const std::string& name) {
  const fs::path dir = scratch_dir() / name;
  fs::remove_all(dir);
  return dir;
}

}  // namespace

TEST_CASE("every example config, run twice, writes the same summary.json apart from wall_* fields") {
  std::vector<fs::path> configs = yaml_files(kConfigs / "examples");
  configs.push_back(kConfigs / "default.yaml");
  for (const fs::path& config : configs) {
    INFO(config.string());
    std::string summaries[2];
    for (int run = 0; run < 2; ++run) {
      const fs::path out = fresh("determinism-" + config.stem().string() + "-" + std::to_string(run));
      const auto r = run_tessera("run '" + config.string() + "' " + shrink(config) + " --out '" + out.string() + "'");
      REQUIRE_MESSAGE(r.exit_code == 0, r.err);
      summaries[run] = read_all(out / "summary.json");
    }
    const auto a = nlohmann::json::parse(summaries[0]);
    const auto b = nlohmann::json::parse(summaries[1]);
    CHECK(a.contains("wall_s"));  // the wall fields are there, and differ only there
    CHECK(without_wall(a).dump(2) == without_wall(b).dump(2));
  }
}

TEST_CASE("every study, with --jobs 1 and --jobs 2, writes the same results.csv and points/ apart from wall_*") {
  for (const fs::path& study : yaml_files(kConfigs / "studies")) {
    INFO(study.string());
    fs::path outs[2];
    for (int j = 0; j < 2; ++j) {
      outs[j] = fresh("determinism-" + study.stem().string() + "-jobs" + std::to_string(j + 1));
      const auto r = run_tessera("sweep '" + study.string() + "' " + shrink(study) + " --jobs " + std::to_string(j + 1) +
                                 " --out '" + outs[j].string() + "'");
      REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    }
    CHECK(csv_without_wall(read_all(outs[0] / "results.csv")) == csv_without_wall(read_all(outs[1] / "results.csv")));
    std::size_t points = 0;
    for (const auto& e : fs::directory_iterator(outs[0] / "points")) {
      const auto a = nlohmann::json::parse(read_all(e.path()));
      const auto b = nlohmann::json::parse(read_all(outs[1] / "points" / e.path().filename()));
      CHECK_MESSAGE(without_wall(a).dump(2) == without_wall(b).dump(2), e.path().filename().string());
      ++points;
    }
    CHECK(points > 0);
  }
}

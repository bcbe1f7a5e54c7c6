// `tessera tune` checked on hardware (docs/tune.md, "Checked on hardware"): for three GEMM and two attention
// shapes, every candidate of the shipped spaces (configs/spaces/h200-gemm.yaml, h200-attention.yaml) was measured on
// one H200 (validation/data/h200-1-tune/, two runs). Tessera tunes each shape on h200-1-calibrated, exhaustively,
// and the candidate it picks must run within 3% of the measured best (mean of the two runs: their spread is under
// 0.9% on every candidate, so 3% is a real margin, not noise).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/sim/app/cli_process.h"

namespace {

namespace fs = std::filesystem;
using tessera::test::fresh_dir;
using tessera::test::read_all;
using tessera::test::run_tessera;
using tessera::test::write_file;

const fs::path kData = fs::path(TESSERA_SOURCE_DIR) / "validation" / "data" / "h200-1-tune";

struct Shape {
  std::string name;
  std::string workload;                   // the run config's workload map, as the measured case ran it
  std::map<std::string, long> params;     // the measured results' shape parameters
  std::string space;                      // configs/spaces/...
  std::vector<std::string> tuned;         // the space's keys, without "workload."
};

// The mean over the runs of each candidate's measured time (timing.mean_ns), keyed by its tuned values.
std::map<std::string, double> measured(const std::string& kind, const Shape& shape) {
  std::map<std::string, std::vector<double>> times;
  for (const char* run : {"run1", "run2"}) {
    for (const auto& entry : fs::directory_iterator(kData / run)) {
      if (entry.path().extension() != ".json") continue;
      const auto j = nlohmann::json::parse(read_all(entry.path()));
      if (j["case"] != kind || j["status"] != "passed") continue;
      bool same = true;
      for (const auto& [key, value] : shape.params) same = same && j["params"][key].get<long>() == value;
      if (!same) continue;
      std::string key;
      for (const std::string& t : shape.tuned) {
        const auto& v = j["params"][t];
        key += (v.is_string() ? v.get<std::string>() : std::to_string(v.get<long>())) + " ";
      }
      times[key].push_back(j["timing"]["mean_ns"].get<double>());
    }
  }
  std::map<std::string, double> out;
  for (const auto& [key, v] : times) {
    REQUIRE(v.size() == 2);  // both runs
    out[key] = (v[0] + v[1]) / 2;
  }
  return out;
}

TEST_CASE("tune on hardware: Tessera's pick runs within 3% of the measured best on one H200") {
  const std::vector<Shape> shapes{
      {"gemm 4096^3", "{kind: gemm, m: 4096, n: 4096, k: 4096, block_k: 32, persistent: true}",
       {{"m", 4096}, {"n", 4096}, {"k", 4096}}, "spaces/h200-gemm.yaml", {"block_m", "block_n", "group_m", "xcd_remap"}},
      {"gemm 8192^3", "{kind: gemm, m: 8192, n: 8192, k: 8192, block_k: 32, persistent: true}",
       {{"m", 8192}, {"n", 8192}, {"k", 8192}}, "spaces/h200-gemm.yaml", {"block_m", "block_n", "group_m", "xcd_remap"}},
      {"gemm 8192x4608x36864", "{kind: gemm, m: 8192, n: 4608, k: 36864, block_k: 32, persistent: true}",
       {{"m", 8192}, {"n", 4608}, {"k", 36864}}, "spaces/h200-gemm.yaml", {"block_m", "block_n", "group_m", "xcd_remap"}},
      {"attention 32 heads, 8192", "{kind: attention, q_heads: 32, kv_heads: 32, seq_len: 8192}",
       {{"q_heads", 32}, {"kv_heads", 32}, {"seq_len", 8192}}, "spaces/h200-attention.yaml", {"mapping"}},
      {"attention GQA 64/8, 16384", "{kind: attention, q_heads: 64, kv_heads: 8, seq_len: 16384}",
       {{"q_heads", 64}, {"kv_heads", 8}, {"seq_len", 16384}}, "spaces/h200-attention.yaml", {"mapping"}},
  };
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const Shape& shape = shapes[i];
    CAPTURE(shape.name);
    const std::string kind = shape.workload.substr(7, shape.workload.find(',') - 7);
    const std::map<std::string, double> times = measured(kind, shape);
    REQUIRE(times.size() == (kind == "gemm" ? 18u : 4u));  // every candidate of the space was measured
    const fs::path config = write_file(fmt::format("tune-h200-{}.yaml", i),
                                       "system: h200-1-calibrated\nworkload: " + shape.workload + "\n");
    const fs::path out = fresh_dir(fmt::format("tune-h200-{}", i));
    const auto r = run_tessera(fmt::format("tune '{}' --space {} --search exhaustive --jobs 2 --quiet --out '{}'",
                                           config.string(), shape.space, out.string()));
    REQUIRE(r.exit_code == 0);
    const auto tuned = nlohmann::json::parse(read_all(out / "tune.json"));
    std::string pick;
    for (const std::string& t : shape.tuned) pick += tuned["best"]["values"]["workload." + t].get<std::string>() + " ";
    REQUIRE(times.contains(pick));
    const auto best = std::min_element(times.begin(), times.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    const double slowdown = times.at(pick) / best->second - 1;
    MESSAGE(fmt::format("{}: Tessera picks {}({:.1f} us measured), the measured best is {}({:.1f} us): {:+.2f}%",
                        shape.name, pick, times.at(pick) / 1e3, best->first, best->second / 1e3, 100 * slowdown));
    CHECK(slowdown <= 0.03);
  }
}

}  // namespace

// --max-wall on `tessera run`: a runaway run stops after the wall-clock limit with a clear
// message, and its result is marked incomplete (complete: false, stopped_by: wall_limit), for
// every kind of workload; malformed limits are usage errors.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/sim/app/cli_process.h"

namespace {

namespace fs = std::filesystem;
using tessera::test::read_all;
using tessera::test::run_tessera;
using tessera::test::scratch_dir;
using tessera::test::write_file;

// About 10^9 PHOLD events: minutes of wall time, unless stopped.
const char* kEndlessPhold = "system: mi300x-1\nworkload: {kind: phold, lps: 1024, end_time: 10 ms}\n";

}  // namespace

TEST_CASE("--max-wall stops a runaway run and marks it incomplete, saying which limit stopped it") {
  const auto cfg = write_file("endless_phold.yaml", kEndlessPhold);
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_tessera("run '" + cfg.string() + "' --max-wall 200ms --json");
  const auto took = std::chrono::steady_clock::now() - t0;
  REQUIRE(r.exit_code == 0);
  CHECK(took < std::chrono::seconds(5));
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["complete"] == false);
  CHECK(j["stopped_by"] == "wall_limit");
  CHECK(j["events"].get<std::uint64_t>() > 0);
  CHECK(j["wall_s"].get<double>() >= 0.15);
  CHECK(r.err.find("tessera run: stopped by --max-wall (200 ms) after ") != std::string::npos);
  CHECK(r.err.find("the result is incomplete") != std::string::npos);
  // The table says it too, and --out writes the incomplete summary.
  const fs::path out = scratch_dir() / "max_wall_out";
  fs::remove_all(out);
  const auto text = run_tessera("run '" + cfg.string() + "' --max-wall 0.1s --out '" + out.string() + "'");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("note: stopped by --max-wall (100 ms)") != std::string::npos);
  const auto summary = nlohmann::json::parse(read_all(out / "summary.json"));
  CHECK(summary["complete"] == false);
  CHECK(summary["stopped_by"] == "wall_limit");
}

TEST_CASE("--max-wall stops a tile-level replay and a microbenchmark too") {
  const auto replay = run_tessera("run examples/ag_gemm.yaml --max-wall 1ms --json");
  REQUIRE(replay.exit_code == 0);
  const auto r = nlohmann::json::parse(replay.out);
  CHECK(r["complete"] == false);
  CHECK(r["stopped_by"] == "wall_limit");
  const auto bench = write_file("long_stream.yaml", "system: mi300x-1\nworkload: {kind: microbench, op: hbm_stream, bytes: 64 GiB}\n");
  const auto m = nlohmann::json::parse(run_tessera("run '" + bench.string() + "' --max-wall 1ms --json").out);
  CHECK(m["complete"] == false);
  CHECK(m["stopped_by"] == "wall_limit");
  CHECK_FALSE(m.contains("bandwidth_GBps"));  // an incomplete stream measures nothing
}

TEST_CASE("a run that finishes within --max-wall is complete and unchanged") {
  const auto limited = run_tessera("run examples/ag_gemm.yaml --set workload.m=64 --max-wall 600s --json");
  const auto free = run_tessera("run examples/ag_gemm.yaml --set workload.m=64 --json");
  REQUIRE(limited.exit_code == 0);
  REQUIRE(free.exit_code == 0);
  auto a = nlohmann::json::parse(limited.out);
  auto b = nlohmann::json::parse(free.out);
  CHECK(a["complete"] == true);
  CHECK(a["stopped_by"].is_null());
  for (auto* j : {&a, &b}) {
    j->erase("wall_s");
    j->erase("wall_events_per_s");
  }
  CHECK(a == b);
}

TEST_CASE("--max-wall takes a time with a unit, anything else is a usage error") {
  for (const char* bad : {"30", "0s", "ten s", "1 GB"}) {
    const auto r = run_tessera(std::string("run examples/ag_gemm.yaml --max-wall '") + bad + "'");
    CHECK_MESSAGE(r.exit_code == 2, bad);
    CHECK_MESSAGE(r.err.find("--max-wall") != std::string::npos, bad << ": " << r.err);
  }
  CHECK(run_tessera("run --help").out.find("--max-wall") != std::string::npos);
}

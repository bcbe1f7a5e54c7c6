// `tessera run` on tile-level workloads, as the real program: generated kinds, user traces
// (paths relative to the config), --dump-trace, and the errors of each.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/sim/app/cli_process.h"

using tessera::test::run_tessera;
using tessera::test::scratch_dir;
using tessera::test::write_file;

namespace {

std::string quoted(const std::filesystem::path& p) { return fmt::format("'{}'", p.string()); }

// A small ag_gemm on two MI300X: one m-tile, 4 n-tiles, 4 k-steps per rank.
constexpr const char* kSmallAgGemm =
    "system: mi300x-8\n"
    "workload: {kind: ag_gemm, m: 256, n: 256, k: 512, ranks: 2, workgroups: 8, variant: push}\n";

nlohmann::json run_json(const std::string& args) {
  const auto r = run_tessera("run --json " + args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("a generated workload reports makespan, kernels per GPU, hit rates, link bytes and events") {
  const auto config = write_file("ag_gemm_small.yaml", kSmallAgGemm);
  const auto j = run_json(quoted(config));
  CHECK(j["workload"] == "ag_gemm");
  CHECK(j["variant"] == "push");
  CHECK(j["workload_parameters"]["m"] == 256);
  CHECK(j["complete"] == true);
  CHECK(j["makespan_ns"].get<double>() > 0);
  CHECK(j["events"].get<std::uint64_t>() > 0);
  CHECK(j.contains("wall_s"));
  // push: the producer, then the GEMM, on each of the two ranks.
  REQUIRE(j["kernels"].size() == 4);
  double last_end = 0;
  for (const auto& k : j["kernels"]) {
    CHECK(k["start_ns"].get<double>() >= k["launch_ns"].get<double>());
    CHECK(k["end_ns"].get<double>() > k["start_ns"].get<double>());
    last_end = std::max(last_end, k["end_ns"].get<double>());
  }
  CHECK(j["makespan_ns"].get<double>() >= last_end);
  REQUIRE(j["gpus"].size() == 2);
  CHECK(j["l2_hit_rate"].get<double>() >= 0.0);
  CHECK(j["l2_hit_rate"].get<double>() <= 1.0);
  CHECK(j["l2_hit_rate_per_xcd"].size() == 2);  // the trace's ranks (GPUs 0 and 1), 8 XCDs each
  CHECK(j["l2_hit_rate_per_xcd"][0].size() == 8);
  // Each rank pushes its 256 x 256 fp16 shard (128 KiB) to the other over xGMI.
  CHECK(j["link_class_bytes"]["xgmi"].get<std::uint64_t>() >= 2 * 131072);
}

TEST_CASE("--dump-trace writes the generated trace, replaying it as kind trace gives the same run") {
  const auto dir = scratch_dir() / "dump";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto config = write_file("ag_gemm_dump.yaml", kSmallAgGemm);
  for (const char* name : {"t.jsonl", "t.tsrt"}) {
    CAPTURE(name);
    const auto generated = run_json(quoted(config) + " --dump-trace " + quoted(dir / name));
    REQUIRE(std::filesystem::exists(dir / name));
    // A trace config next to the dump, naming it by a relative path.
    std::ofstream(dir / "replay.yaml") << "system: mi300x-8\nworkload: {kind: trace, path: " << name << "}\n";
    const auto replayed = run_json(quoted(dir / "replay.yaml"));
    CHECK(replayed["workload"] == "trace");
    CHECK(replayed["makespan_ns"] == generated["makespan_ns"]);
    CHECK(replayed["events"] == generated["events"]);
    CHECK(replayed["kernels"] == generated["kernels"]);
    CHECK(replayed["link_class_bytes"] == generated["link_class_bytes"]);
  }
}

TEST_CASE("the same generated run twice gives identical results") {
  const auto config = write_file("ag_gemm_twice.yaml", kSmallAgGemm);
  auto a = run_json(quoted(config) + " --set workload.variant=bsp");
  auto b = run_json(quoted(config) + " --set workload.variant=bsp");
  for (auto* j : {&a, &b}) {
    j->erase("wall_s");
    j->erase("wall_events_per_s");
  }
  CHECK(a == b);
}

TEST_CASE("tile-level workload errors: exit 2 naming the file, line and key, nothing on stdout") {
  const auto config = write_file("ag_gemm_bad.yaml", kSmallAgGemm);
  const auto variant = run_tessera("run " + quoted(config) + " --set workload.variant=pushh");
  CHECK(variant.exit_code == 2);
  CHECK(variant.out.empty());
  CHECK(variant.err.find("did you mean 'push'") != std::string::npos);

  const auto ranks = run_tessera("run " + quoted(config) + " --set workload.ranks=9");
  CHECK(ranks.exit_code == 2);
  CHECK(ranks.err.find("workload.ranks") != std::string::npos);

  const auto missing = write_file("trace_missing.yaml", "system: mi300x-1\nworkload: {kind: trace, path: nope.jsonl}\n");
  const auto r = run_tessera("run " + quoted(missing));
  CHECK(r.exit_code == 2);
  // The relative path was resolved against the config's folder.
  CHECK(r.err.find((scratch_dir() / "nope.jsonl").string()) != std::string::npos);

  const auto no_path = write_file("trace_no_path.yaml", "system: mi300x-1\nworkload: {kind: trace}\n");
  const auto p = run_tessera("run " + quoted(no_path));
  CHECK(p.exit_code == 2);
  CHECK(p.err.find("trace_no_path.yaml:2") != std::string::npos);
  CHECK(p.err.find("path") != std::string::npos);

  const auto dump = run_tessera("run --set 'workload={kind: microbench, op: hbm_stream}' --dump-trace x.jsonl");
  CHECK(dump.exit_code == 2);
  CHECK(dump.err.find("no tile-level trace") != std::string::npos);
}

TEST_CASE("a trace that waits forever is a failed run (exit 1) that names the waiting flag") {
  const auto trace = write_file("deadlock.jsonl",
                                "{\"tessera_trace\": 1, \"ranks\": 1}\n"
                                "{\"program\": \"p\", \"ops\": [{\"op\": \"wait\", \"flag_rank\": 0, \"flag_id\": 3, \"value\": 1}]}\n"
                                "{\"kernel\": \"k\", \"rank\": 0, \"grid\": 1, \"program\": \"p\"}\n"
                                "{\"host\": \"launch\", \"kernel\": 0}\n");
  const auto config = write_file("deadlock.yaml", "system: mi300x-1\nworkload: {kind: trace, path: deadlock.jsonl}\n");
  const auto r = run_tessera("run " + quoted(config));
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(r.err.find("flag (rank 0, id 3)") != std::string::npos);
  (void)trace;
}

TEST_CASE("decode runs its three variants on every single-GPU system file, the persistent ones as one kernel") {
  for (const char* system : {"h100-1", "h200-1", "h200-1-calibrated", "mi300x-1", "mi300x-1-spec"}) {
    for (const char* variant : {"kernel_per_op", "megakernel", "chiplet_tasks"}) {
      CAPTURE(system);
      CAPTURE(variant);
      const auto j = run_json(fmt::format(
          "--set 'system={}' --set 'workload={{kind: decode, layers: 1, batch: 20, context: 600, variant: {}}}'", system,
          variant));
      CHECK(j["workload"] == "decode");
      CHECK(j["complete"] == true);
      // kernel_per_op: embedding, 11 operators of the layer (two attention splits), final norm, LM head.
      CHECK(j["kernels"].size() == (std::string(variant) == "kernel_per_op" ? 14U : 1U));
      CHECK(j["l2_hit_rate"].get<double>() >= 0.0);
      CHECK(j["link_class_bytes"]["hbm"].get<std::uint64_t>() > 0);
    }
  }
}

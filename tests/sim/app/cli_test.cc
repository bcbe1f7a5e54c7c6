#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "tests/sim/app/calibration/synthetic_patterns.h"
#include "tests/sim/app/cli_process.h"

using tessera::test::run_tessera;
using tessera::test::write_file;

TEST_CASE("tessera --help and --version succeed, no command is a usage error") {
  const auto help = run_tessera("--help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("Usage: tessera COMMAND") != std::string::npos);
  const auto version = run_tessera("--version");
  CHECK(version.exit_code == 0);
  CHECK(version.out.rfind("tessera ", 0) == 0);
  CHECK(run_tessera("").exit_code == 2);
  for (const char* cmd : {"run --help", "describe --help", "bench phold --help"}) {
    const auto r = run_tessera(cmd);
    CHECK_MESSAGE(r.exit_code == 0, cmd);
    CHECK(r.out.find("Options") != std::string::npos);
  }
}

TEST_CASE("an unknown command or flag is exit code 2 with a suggestion") {
  const auto r = run_tessera("rnu");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown command 'rnu'; did you mean 'run'?") != std::string::npos);
  const auto f = run_tessera("run --bogus");
  CHECK(f.exit_code == 2);
  CHECK(f.err.find("bogus") != std::string::npos);
}

TEST_CASE("tessera run with no config runs the embedded default from any folder") {
  // The default's workload with a smaller size: one run (a workload key was set).
  const auto r = run_tessera("run --json --set workload.m=64 --set workload.n=512 --set workload.k=1024", "/");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);  // stdout holds one JSON object and nothing else
  CHECK(j["system"] == "mi300x-8");
  CHECK(j["workload"] == "ag_gemm");
  CHECK(j["variant"] == "bsp");
  CHECK(j["events"].get<std::uint64_t>() > 0);
  CHECK(j["link_class_bytes"]["xgmi"].get<std::uint64_t>() > 0);
  CHECK(j["complete"] == true);
  CHECK(j.contains("wall_s"));
}

TEST_CASE("the embedded default runs bsp, pull and push side by side, each with its tax table") {
  // On two GPUs (a system key: still the three variants) the default size runs in under a second.
  const auto r = run_tessera("run --set system.num_gpus=2");
  REQUIRE(r.exit_code == 0);
  for (const char* v : {"=== bsp ===", "=== pull ===", "=== push ===", "Side by side", "Fastest: ", "inter_kernel_locality",
                        " slower: ", "its busiest resource: "}) {
    CHECK(r.out.find(v) != std::string::npos);
  }
  const auto j = run_tessera("run --json --set system.num_gpus=2");
  REQUIRE(j.exit_code == 0);
  const auto runs = nlohmann::json::parse(j.out)["runs"];
  REQUIRE(runs.size() == 3);
  const char* variants[] = {"bsp", "pull", "push"};
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(runs[i]["variant"] == variants[i]);
    double parts = 0;
    for (const auto& [k, v] : runs[i]["taxes_ns"].items()) parts += v.get<double>();
    for (const auto& [k, v] : runs[i]["work_ns"].items()) parts += v.get<double>();
    CHECK(parts == doctest::Approx(runs[i]["makespan_ns"].get<double>()).epsilon(1e-9));
  }
}

TEST_CASE("the same config and seed give the same result, another seed another") {
  const auto phold = write_file("phold.yaml", "system: mi300x-1\nworkload: {kind: phold, end_time: 20 us}\n");
  const std::string base = "run '" + phold.string() + "' --json";
  auto events = [](const std::string& out) { return nlohmann::json::parse(out)["events"].get<std::uint64_t>(); };
  const auto a = run_tessera(base + " --seed 3");
  const auto b = run_tessera(base + " --seed 3");
  const auto c = run_tessera(base + " --seed 4");
  REQUIRE(a.exit_code == 0);
  CHECK(events(a.out) == events(b.out));
  CHECK(events(a.out) != events(c.out));
}

TEST_CASE("--max-events stops the run and marks it incomplete") {
  const auto r = run_tessera("run --json --max-events 1000 --set workload.m=64");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["events"] == 1000);
  CHECK(j["complete"] == false);
  CHECK(j["stopped_by"] == "event_limit");
  CHECK(r.err.find("stopped by --max-events (1000) after 1000 events") != std::string::npos);
}

TEST_CASE("--ablate says when it changes nothing, and shows the table when it does") {
  // With its launch costs set to 0 ps, the launch ablation changes nothing, and the run shows what
  // the launch costs measured on the H200 pair would add; the dataflow oracle (sync) always re-runs.
  const std::string free_launch = "--set system=mi300x-8-spec --set system.gpu.dispatch.kernel_launch_latency=0ps "
                                  "--set system.gpu.dispatch.workgroup_dispatch=0ps --set system.gpu.dispatch.kernel_teardown=0ps "
                                  "--set system.host.collective_call=0ps ";
  const auto zero = run_tessera("run " + free_launch + "--set workload.m=64 --set workload.n=512 --set workload.k=1024 "
                                "--ablate launch --ablate sync --json");
  REQUIRE(zero.exit_code == 0);
  const auto z = nlohmann::json::parse(zero.out);
  CHECK(z["ablations"]["launch"]["makespan_ns"] == z["makespan_ns"]);
  CHECK(z["ablations"]["sync"]["makespan_ns"].get<double>() <= z["makespan_ns"].get<double>());
  const auto text = run_tessera("run " + free_launch + "--set workload.m=64 --set workload.n=512 --set "
                                "workload.k=1024 --set workload.variant=bsp --ablate launch --ablate sync");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("Ablation 'launch' changes nothing here") != std::string::npos);
  CHECK(text.out.find("gpu.dispatch.kernel_launch_latency") != std::string::npos);
  // Three kernels one after the other on each rank (all-gather, concat, GEMM): three launch latencies
  // and teardowns (3 x (2.633262 + 0.98168) us) and each kernel's workgroup dispatch (184 ps each).
  CHECK(text.out.find("With the costs measured on h200-2-calibrated (kernel launch latency 2.633262 us, workgroup dispatch "
                      "184 ps, kernel teardown 981.68 ns)") != std::string::npos);
  CHECK(text.out.find("the makespan would move by +10.846 us") != std::string::npos);
  CHECK(text.out.find("Ablation 'sync' (the dataflow oracle") != std::string::npos);
  CHECK(text.out.find("Measured bulk-synchronous tax") != std::string::npos);
  // The calibrated H200 pair has launch costs: the run is repeated and the launch overhead goes.
  const auto h200 = run_tessera("run --set system=h200-2-calibrated --set workload.m=64 --set workload.n=512 "
                                "--set workload.k=1024 --ablate launch");
  REQUIRE(h200.exit_code == 0);
  CHECK(h200.out.find("changes nothing") == std::string::npos);
  CHECK(h200.out.find("Ablation 'launch' (launch_overhead idealised): the makespan moves by -") != std::string::npos);
}

TEST_CASE("--out writes summary.json, taxes.csv, timeline.json, stats.json and report.html, and the table has units") {
  const auto dir = tessera::test::scratch_dir() / "out";
  std::filesystem::remove_all(dir);
  const auto r = run_tessera("run --set workload.m=64 --set workload.n=512 --set workload.k=1024 --out '" + dir.string() + "'");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("simulated time") != std::string::npos);
  CHECK(r.out.find(" ns") != std::string::npos);
  CHECK((r.out.find("time (ns)") != std::string::npos || r.out.find("time (us)") != std::string::npos ||
         r.out.find("time (ms)") != std::string::npos));  // one unit per table, chosen by magnitude
  const auto j = nlohmann::json::parse(tessera::test::read_all(dir / "summary.json"));
  CHECK(j["workload"] == "ag_gemm");
  CHECK(j.contains("taxes_ns"));
  CHECK(j.contains("link_utilisation"));
  CHECK(tessera::test::read_all(dir / "taxes.csv").find("bulk_synchronous_ns") != std::string::npos);
  const auto timeline = nlohmann::json::parse(tessera::test::read_all(dir / "timeline.json"));
  CHECK(!timeline["traceEvents"].empty());
  CHECK(tessera::test::read_all(dir / "report.html").find("tax-bar") != std::string::npos);
  // stats.json: every registered statistic with its unit; the links' counters add up to the
  // summary's bytes per link class.
  const auto stats = nlohmann::json::parse(tessera::test::read_all(dir / "stats.json"));
  std::uint64_t carried = 0;
  std::uint64_t l2_hits = 0;
  for (const auto& [name, stat] : stats.items()) {
    CHECK(stat.contains("unit"));
    if (name.ends_with(".bytes_carried")) carried += stat["value"].get<std::uint64_t>();
    if (name.ends_with(".l2.hit_bytes")) l2_hits += stat["value"].get<std::uint64_t>();
  }
  std::uint64_t by_class = 0;
  for (const auto& [name, bytes] : j["link_class_bytes"].items()) by_class += bytes.get<std::uint64_t>();
  CHECK(carried > 0);
  CHECK(carried == by_class);
  CHECK(l2_hits > 0);
  // Nothing but the five files is left behind (the temporaries were renamed).
  CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 5);
}

TEST_CASE("--timeline none writes no timeline, full adds the CU tracks, another value is a usage error") {
  const auto dir = tessera::test::scratch_dir() / "timeline-levels";
  std::filesystem::remove_all(dir);
  const std::string small = " --set workload.m=64 --set workload.n=512 --set workload.k=1024";
  REQUIRE(run_tessera("run" + small + " --timeline none --out '" + (dir / "none").string() + "'").exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(dir / "none" / "timeline.json"));
  CHECK(std::filesystem::exists(dir / "none" / "report.html"));
  REQUIRE(run_tessera("run" + small + " --out '" + (dir / "kernels").string() + "'").exit_code == 0);
  REQUIRE(run_tessera("run" + small + " --timeline full --out '" + (dir / "full").string() + "'").exit_code == 0);
  const std::string kernels = tessera::test::read_all(dir / "kernels" / "timeline.json");
  const std::string full = tessera::test::read_all(dir / "full" / "timeline.json");
  CHECK(kernels.find("where the time goes") != std::string::npos);
  CHECK(kernels.find("\"cat\":\"workgroup\"") == std::string::npos);
  CHECK(full.find("\"cat\":\"workgroup\"") != std::string::npos);
  CHECK(kernels.size() * 4 < full.size());
  const auto bad = run_tessera("run --timeline cus");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--timeline cus: expected none, kernels or full") != std::string::npos);
}

TEST_CASE("config errors name file, line, column and key, exit 2, and write nothing") {
  const auto dir = tessera::test::scratch_dir() / "no-out";
  std::filesystem::remove_all(dir);
  struct Case {
    const char* name;
    const char* yaml;
    const char* expected;  // after "FILE:"
  };
  const Case cases[] = {
      {"misspelled.yaml", "system: mi300x-1\nworkload:\n  kind: phold\n  lsp: 4\n",
       ":4:3: workload.lsp: unknown key 'lsp'; did you mean 'lps'?"},
      {"wrong_unit.yaml", "system: mi300x-1\nworkload:\n  kind: phold\n  end_time: 4 MiB\n",
       ":4:13: workload.end_time: expected a time"},
      {"no_unit.yaml", "system: mi300x-1\nworkload:\n  kind: phold\n  end_time: 100\n",
       ":4:13: workload.end_time:"},
      {"range.yaml", "system: mi300x-1\nworkload:\n  kind: phold\n  remote: 1.5\n", ":4:11: workload.remote:"},
      {"kind.yaml", "system: mi300x-1\nworkload:\n  kind: phlod\n",
       ":3:9: workload.kind: unknown workload kind 'phlod'; did you mean 'phold'?"},
      {"missing.yaml", "system: mi300x-1\n", ":1:1: missing required key 'workload'"},
      {"top.yaml", "system: mi300x-1\nsede: 3\nworkload: {kind: phold}\n", ":2:1: sede: unknown key 'sede'; did you mean 'seed'?"},
      {"type.yaml", "system: mi300x-1\nworkload:\n  kind: phold\n  lps: [1, 2]\n", ":4:8: workload.lps:"},
      {"nosys.yaml", "system: mi999x\nworkload: {kind: phold}\n", ":1:9: system:"},
      {"syntax.yaml", "system: mi300x-1\nworkload: {kind: phold\n", ":"},
  };
  for (const Case& c : cases) {
    const auto path = write_file(c.name, c.yaml);
    const auto r = run_tessera("run '" + path.string() + "' --out '" + dir.string() + "'");
    CHECK_MESSAGE(r.exit_code == 2, c.name);
    CHECK_MESSAGE(r.err.find(path.string() + c.expected) != std::string::npos, c.name, "\n", r.err);
    CHECK(r.out.empty());
  }
  CHECK_FALSE(std::filesystem::exists(dir));
}

TEST_CASE("system keys are checked too, through base: and --set") {
  const auto r = run_tessera("describe --set system.gpu.compute.clok=\"2 GHz\"");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--set system.gpu.compute.clok=2 GHz: system.gpu.compute.clok: unknown key 'clok'; did you mean 'clock'?") !=
        std::string::npos);
  const auto sys = write_file("mysys.yaml", "base: mi300x-8\ngpu:\n  memory:\n    hbm_bandwidth: 6 TB/S\n");
  const auto run = write_file("uses_mysys.yaml", "system: " + sys.string() + "\nworkload: {kind: phold}\n");
  const auto d = run_tessera("describe '" + run.string() + "'");
  CHECK(d.exit_code == 2);
  CHECK(d.err.find(sys.string() + ":4:20: system.gpu.memory.hbm_bandwidth:") != std::string::npos);
}

TEST_CASE("describe prints every default with units and applies --set") {
  const auto r = run_tessera("describe --set system.interconnect.link_bandwidth=\"128 GB/s\"");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("link_bandwidth: 128 GB/s") != std::string::npos);
  CHECK(r.out.find("clock: 2.1 GHz") != std::string::npos);
  CHECK(r.out.find("capacity: 4 MiB") != std::string::npos);
  CHECK(r.out.find("collective_chunk: 512 KiB") != std::string::npos);  // a default the file never gave
  const auto j = run_tessera("describe --json");
  REQUIRE(j.exit_code == 0);
  CHECK(nlohmann::json::parse(j.out)["system"]["gpu"]["memory"]["hbm_bandwidth"] == "4.1 TB/s");  // measured, not the 5.3 TB/s nameplate
}

TEST_CASE("describe prints the topology as comments, --dot prints Graphviz") {
  const auto r = run_tessera("describe");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("# topology of mi300x-8:") != std::string::npos);
  CHECK(r.out.find("gpu[0].xgmi_to[1]") != std::string::npos);
  const auto h = run_tessera("describe --set system=h200-2");
  REQUIRE(h.exit_code == 0);
  CHECK(h.out.find("gpu[0].nvlink_to[1]") != std::string::npos);
  const auto dot = run_tessera("describe --dot");
  REQUIRE(dot.exit_code == 0);
  CHECK(dot.out.rfind("digraph \"mi300x-8\" {", 0) == 0);
  CHECK(dot.out.find("cluster_gpu7") != std::string::npos);
  CHECK(run_tessera("describe --dot --json").exit_code == 2);
  // A shipped system's name alone, as --set system= takes it.
  const auto by_name = run_tessera("describe h200-2");
  REQUIRE(by_name.exit_code == 0);
  CHECK(by_name.out.rfind("system:\n", 0) == 0);
  CHECK(by_name.out.find("gpu[0].nvlink_to[1]") != std::string::npos);
  CHECK(by_name.out.find("workload:") == std::string::npos);
  const auto unknown = run_tessera("describe h200-3");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("h200-3") != std::string::npos);
}

TEST_CASE("a microbenchmark that needs two GPUs on one is a config error naming the key") {
  const auto cfg = write_file("one_gpu.yaml", "system: mi300x-1\nworkload:\n  kind: microbench\n  op: remote_load\n");
  const auto r = run_tessera("run '" + cfg.string() + "'");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(":4:7: workload.op: remote_load needs at least two GPUs") != std::string::npos);
}

TEST_CASE("tessera bench phold prints the JSON the issue asks for") {
  const auto r = run_tessera("bench phold --lps 64 --events-per-lp 2 --remote 0.5 --end-time \"10 us\" --seed 5 --json --bare");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"events", "wall_s", "wall_events_per_s", "final_time_ps"}) CHECK_MESSAGE(j.contains(key), key);
  CHECK(j.contains("wall_engine_over_bare"));
  CHECK(j["events"] == j["bare"]["events"]);
  const auto again = nlohmann::json::parse(run_tessera("bench phold --lps 64 --events-per-lp 2 --remote 0.5 --end-time \"10 us\" --seed 5 --json").out);
  CHECK(again["events"] == j["events"]);
  const auto bad = run_tessera("bench phold --end-time 10");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("expected a time") != std::string::npos);
  CHECK(run_tessera("bench phold --remote 2").exit_code == 2);
}

TEST_CASE("--quiet is accepted by run, validate, calibrate and sweep, and no progress line reaches a stderr that is no terminal") {
  for (const char* cmd : {"run --help", "validate --help", "calibrate --help", "sweep --help"}) {
    CHECK_MESSAGE(run_tessera(cmd).out.find("no progress") != std::string::npos, cmd);
  }
  const auto quiet = run_tessera("run --quiet --json --set workload.m=64 --set workload.n=512 --set workload.k=1024");
  REQUIRE(quiet.exit_code == 0);
  CHECK(nlohmann::json::parse(quiet.out)["complete"] == true);
  CHECK(quiet.err.empty());
  // The embedded default takes a few seconds, so its line would be due without --quiet: stderr
  // is a file here, so it is never drawn.
  const auto longer = run_tessera("run");
  REQUIRE(longer.exit_code == 0);
  CHECK(longer.out.find("=== push ===") != std::string::npos);
  CHECK(longer.err.find('\r') == std::string::npos);
  CHECK(longer.err.find("elapsed") == std::string::npos);

  const auto dir = tessera::test::synthetic_folder("validate-quiet");
  tessera::test::write_synthetic_patterns(dir);
  const auto validated = run_tessera(fmt::format("validate --measured '{}' --system h200-2 --quiet", dir.string()));
  CHECK(validated.exit_code == 0);
  CHECK(validated.out.find("MAPE: ") != std::string::npos);
  CHECK(validated.err.find('\r') == std::string::npos);
  CHECK(validated.err.find("cases,") == std::string::npos);
  const auto shown = run_tessera(fmt::format("validate --measured '{}' --system h200-2", dir.string()));
  CHECK(shown.exit_code == 0);
  CHECK(shown.out == validated.out);  // stdout is the same with or without the line
  CHECK(shown.err.find('\r') == std::string::npos);
}

// The one JSON form of a run's result: what summary.json, `run --json` and a sweep's points/
// files hold reads back to the same result, for every family of kinds.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "sim/app/run/run_result.h"
#include "sim/app/run/run_workload.h"
#include "sim/app/run/run_config_loader.h"

namespace tessera::app::run {
namespace {

// A run of the embedded default with the system, the workload and more set as `--set` does.
RunResult run_with(const std::vector<std::string>& sets) { return run_workload(load_run_spec(std::nullopt, sets)); }

// to_json(from_json(to_json(r))) == to_json(r): nothing is lost or changed on the way back.
void check_round_trip(const RunResult& r) {
  const nlohmann::json once = to_json(r);
  CHECK(to_json(run_result_from_json(once)) == once);
}

TEST_CASE("a replayed trace's result reads back from its JSON, breakdown, kernels and traffic included") {
  const RunResult r = run_with({"system=mi300x-8", "workload={kind: ag_gemm, m: 64, n: 512, k: 1024, variant: push}"});
  REQUIRE(r.result.breakdown.has_value());
  REQUIRE(r.result.traffic.has_value());
  CHECK(r.variant() == "push");
  CHECK(r.default_label() == "push");
  CHECK_FALSE(r.result.breakdown->kernels.empty());
  CHECK_FALSE(r.result.statistics.entries.empty());  // the models' statistics came out of the replay
  // The critical GPU's parts add up to the makespan exactly (in ps, before any conversion).
  sim::Tick sum = 0;
  for (const sim::Tick t : r.result.breakdown->times) sum += t;
  CHECK(sum == r.result.makespan_ps);
  check_round_trip(r);
  const RunResult back = run_result_from_json(to_json(r));
  CHECK(back.result.makespan_ps == r.result.makespan_ps);
  CHECK(back.result.breakdown->times == r.result.breakdown->times);
  CHECK(back.result.breakdown->kernels.back().end_ps == r.result.breakdown->kernels.back().end_ps);
}

TEST_CASE("a microbenchmark's and PHOLD's results read back from their JSON") {
  const RunResult mb = run_with({"system=mi300x-8", "workload={kind: microbench, op: remote_load, bytes: 1 MiB}"});
  REQUIRE(mb.result.measurement.has_value());
  CHECK(mb.result.measurement->op == "remote_load");
  CHECK(mb.result.measurement->bandwidth_GBps.has_value());
  CHECK_FALSE(mb.result.breakdown.has_value());
  check_round_trip(mb);
  const RunResult ph = run_with({"system=mi300x-1", "workload={kind: phold, lps: 16, end_time: 1 us}"});
  REQUIRE(ph.result.final_time_ps.has_value());
  CHECK(*ph.result.final_time_ps == ph.result.makespan_ps);
  CHECK(ph.result.statistics.entries.empty());  // no machine
  check_round_trip(ph);
}

TEST_CASE("a collective's nccl-tests figures read back from their JSON, exactly, apart from a microbenchmark's") {
  const RunResult r = run_with({"system=mi300x-8", "workload={kind: collective, op: all_reduce, size: 1 MiB}"});
  REQUIRE(r.result.collective.has_value());
  CHECK(r.result.breakdown.has_value());  // replayed as every trace kind
  CHECK_FALSE(r.result.measurement.has_value());
  check_round_trip(r);
  const RunResult back = run_result_from_json(to_json(r));
  REQUIRE(back.result.collective.has_value());
  CHECK(*back.result.collective == *r.result.collective);  // every field, the doubles bit for bit
  CHECK_FALSE(back.result.measurement.has_value());         // its `op` is inside `collective`
  CHECK(to_json(r).at("collective").at("op") == "all_reduce");
  // Kinds without it write no `collective` key.
  CHECK_FALSE(to_json(run_with({"system=mi300x-1", "workload={kind: phold, lps: 4, end_time: 1 ns}"})).contains("collective"));
}

TEST_CASE("a stopped run keeps why it stopped through its JSON, a document of another shape is refused") {
  RunResult r = run_with({"system=mi300x-1", "workload={kind: phold, lps: 16, end_time: 1 us}", "max_events=10"});
  CHECK_FALSE(r.result.complete);
  CHECK(r.result.stop_reason == sim::StopReason::kEventLimit);
  CHECK(run_result_from_json(to_json(r)).result.stop_reason == sim::StopReason::kEventLimit);
  nlohmann::json bad = to_json(r);
  bad["stopped_by"] = "gremlins";
  CHECK_THROWS_AS(run_result_from_json(bad), nlohmann::json::exception);
  bad = to_json(r);
  bad["kernels"] = {{{"name", "k"}}};  // a kernel without its times
  CHECK_THROWS_AS(run_result_from_json(bad), nlohmann::json::exception);
}

}  // namespace
}  // namespace tessera::app::run

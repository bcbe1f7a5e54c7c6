// The registry of workload kinds (workloads/workload_kinds.h): every kind is registered once,
// reads its workload map against the system, and describes, traces and names itself through the
// one Workload interface the program uses.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/config/config_error.h"
#include "tests/support/run_config.h"
#include "workloads/microbench/microbench_params.h"
#include "workloads/phold/phold_params.h"
#include "workloads/workload_kinds.h"

namespace wl = tessera::workloads;

namespace {

wl::Workload read(const std::string& system, const std::string& workload) {
  const auto parts = tessera::test::read_run_config_text("system: " + system + "\nworkload: " + workload + "\n");
  const std::string kind = parts.workload.at("kind").scalar();
  const wl::WorkloadKind* entry = wl::find_workload_kind(kind);
  REQUIRE(entry != nullptr);
  return entry->read(parts.workload, parts.system);
}

// One small workload of every kind, with the system it runs on.
struct Case {
  std::string system, workload;
  bool has_trace;
};

std::vector<Case> one_of_each_kind() {
  return {
      {"mi300x-8", "{kind: microbench, op: remote_load, bytes: 1 MiB}", false},
      {"mi300x-1", "{kind: phold, lps: 4, end_time: 1 ns}", false},
      {"mi300x-8", std::string("{kind: trace, path: ") + TESSERA_TRACE_DATA_DIR + "/two_rank_push.jsonl}", true},
      {"h200-1", "{kind: gemm, m: 256, n: 256, k: 256}", true},
      {"mi300x-8", "{kind: ag_gemm, m: 16, n: 256, k: 512, variant: push}", true},
      {"mi300x-8", "{kind: gemm_all_scatter, m: 256, n: 512, k: 256}", true},
      {"mi300x-8", "{kind: gemm_all_reduce, m: 256, n: 256, k: 512}", true},
      {"mi300x-8", "{kind: flash_decode, kv_len_per_rank: 8192, q_heads: 8, kv_heads: 1}", true},
      {"mi300x-1", "{kind: attention, q_heads: 8, seq_len: 1024}", true},
      {"mi300x-1", "{kind: decode, layers: 1, batch: 4, context: 512, variant: chiplet_tasks}", true},
      {"mi300x-8", "{kind: collective, op: all_reduce, size: 1 MiB}", true},
  };
}

}  // namespace

TEST_CASE("every workload kind is registered once, in the order help texts list them") {
  std::vector<std::string> names;
  for (const wl::WorkloadKind& k : wl::workload_kinds()) {
    names.push_back(k.name);
    CHECK(!k.summary.empty());
    CHECK(wl::find_workload_kind(k.name) == &k);
  }
  CHECK(names == std::vector<std::string>{"microbench", "phold", "trace", "gemm", "ag_gemm", "gemm_all_scatter",
                                          "gemm_all_reduce", "flash_decode", "attention", "decode", "collective"});
  CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
  CHECK(wl::find_workload_kind("ag-gemm") == nullptr);
}

TEST_CASE("each kind reads its map into a Workload that names, describes and traces itself") {
  const std::vector<Case> cases = one_of_each_kind();
  CHECK(cases.size() == wl::workload_kinds().size());
  for (const Case& c : cases) {
    CAPTURE(c.workload);
    const wl::Workload w = read(c.system, c.workload);
    CHECK(c.workload.find("kind: " + w.kind() + ",") != std::string::npos);
    CHECK(!w.to_yaml(2).empty());
    CHECK(w.to_json().is_object());
    CHECK(!w.to_json().contains("kind"));  // the run spec adds it
    const auto parts = tessera::test::read_run_config_text("system: " + c.system + "\nworkload: {kind: phold}\n");
    CHECK(w.trace(parts.system).has_value() == c.has_trace);
  }
}

TEST_CASE("each kind gives the schema of its keys: those its Workload describes itself with") {
  for (const Case& c : one_of_each_kind()) {
    CAPTURE(c.workload);
    const wl::Workload w = read(c.system, c.workload);
    const wl::WorkloadKind* kind = wl::find_workload_kind(w.kind());
    REQUIRE(kind != nullptr);
    REQUIRE(kind->schema_json);
    const nlohmann::json schema = kind->schema_json();
    REQUIRE(schema.contains("fields"));
    CHECK(!schema["fields"].empty());
    std::vector<std::string> schema_keys;
    for (const nlohmann::json& field : schema["fields"]) {
      schema_keys.push_back(field.at("key").get<std::string>());
      CHECK(!field.at("kind").get<std::string>().empty());
      CHECK(!field.at("doc").get<std::string>().empty());
    }
    std::vector<std::string> described_keys;
    const nlohmann::json described = w.to_json();
    for (const auto& [key, value] : described.items()) described_keys.push_back(key);
    std::sort(schema_keys.begin(), schema_keys.end());
    CHECK(schema_keys == described_keys);  // to_json's keys come sorted
  }
}

TEST_CASE("a kind checks its map against the system, at the key") {
  // Two GPUs' worth of peers on one GPU: the microbenchmark's own check, raised by its reader.
  CHECK_THROWS_WITH_AS(read("mi300x-1", "{kind: microbench, op: remote_load}"),
                       doctest::Contains("workload.op: remote_load needs at least two GPUs"),
                       tessera::sim::config::ConfigError);
  // A generated workload beyond the replay's limits, reported at `workload:` before anything runs.
  CHECK_THROWS_WITH_AS(read("mi300x-1", "{kind: gemm, m: 1048576, k: 1048576}"),
                       doctest::Contains("test.yaml:2:11: workload: gemm is too large: the buffers need"),
                       tessera::sim::config::ConfigError);
}

TEST_CASE("the parameters are reachable by type for callers that know the kind, and only by the right type") {
  const wl::Workload w = read("mi300x-8", "{kind: microbench, op: hbm_stream, bytes: 2 MiB}");
  REQUIRE(w.params_if<wl::microbench::MicrobenchParams>() != nullptr);
  CHECK(w.params<wl::microbench::MicrobenchParams>().bytes == 2u << 20);
  CHECK(w.params_if<wl::phold::PholdParams>() == nullptr);
  CHECK_THROWS_AS(w.params<wl::phold::PholdParams>(), std::logic_error);
  const wl::Workload none;
  CHECK_THROWS_AS(none.to_yaml(2), std::logic_error);
}

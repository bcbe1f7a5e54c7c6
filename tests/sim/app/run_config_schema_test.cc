// The schema of a run config as `tessera describe --schema` prints it: every part, selected by
// its dotted path, with the defaults of the place it sits in.
#include "sim/app/run/run_config_schema.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "workloads/workload_kinds.h"

namespace tessera::app::run {
namespace {

using nlohmann::json;

// The field of a schema's JSON with this key; fails the test when there is none.
json field_of(const json& schema, const std::string& key) {
  for (const json& field : schema.at("fields")) {
    if (field.at("key") == key) return field;
  }
  FAIL("no field '" << key << "' in schema '" << schema.value("name", "") << "'");
  return {};
}

TEST_CASE("run config schema: the whole has the run options, the system and every workload kind") {
  const auto whole = run_config_schema_json("");
  REQUIRE(whole.has_value());
  CHECK(field_of(whole->at("run"), "seed").at("default") == 1);
  CHECK(field_of(whole->at("run"), "max_events").at("optional") == true);
  CHECK(field_of(whole->at("system"), "num_gpus").at("max") == 1024);
  for (const workloads::WorkloadKind& kind : workloads::workload_kinds()) {
    CAPTURE(kind.name);
    REQUIRE(whole->at("workload").contains(kind.name));
    const json& schema = whole->at("workload").at(kind.name);
    CHECK(schema.at("summary") == kind.summary);
    CHECK(!schema.at("fields").empty());
    CHECK(run_config_schema_json("workload." + kind.name) == schema);
  }
  CHECK(run_config_schema_json("workload") == whole->at("workload"));

  std::vector<std::string> expected{"run", "system"};
  for (const workloads::WorkloadKind& kind : workloads::workload_kinds()) expected.push_back("workload." + kind.name);
  CHECK(run_config_schema_sections() == expected);
}

TEST_CASE("run config schema: the L2 and the MALL share a schema but not their defaults") {
  const auto l2 = run_config_schema_json("system.gpu.memory.l2");
  const auto mall = run_config_schema_json("system.gpu.memory.mall");
  REQUIRE(l2.has_value());
  REQUIRE(mall.has_value());
  CHECK(field_of(*l2, "capacity").at("default") == "4 MiB");
  CHECK(field_of(*mall, "capacity").at("default") == "0 B");
  CHECK(field_of(*l2, "write_policy").at("default") == "write_back");
  CHECK(field_of(*mall, "write_policy").at("default") == "write_through_allocate");

  const auto markdown = run_config_schema_markdown("system.gpu.memory.mall");
  REQUIRE(markdown.has_value());
  CHECK(markdown->starts_with("**`system.gpu.memory.mall`**: the memory-side cache"));
  CHECK(markdown->find("| `capacity` | bytes | `0 B` |") != std::string::npos);
  // The whole system's tables hold the same table.
  CHECK(run_config_schema_markdown("system")->find(*markdown) != std::string::npos);
}

TEST_CASE("run config schema: lists of maps by key or key[], unknown paths are none") {
  const auto by_key = run_config_schema_json("system.gpu.compute.kernel_efficiency");
  REQUIRE(by_key.has_value());
  CHECK(run_config_schema_json("system.gpu.compute.kernel_efficiency[]") == by_key);
  CHECK(field_of(*by_key, "kernel").at("required") == true);
  CHECK(run_config_schema_markdown("system.gpu.compute.kernel_efficiency")->starts_with(
      "**`system.gpu.compute.kernel_efficiency[]`**"));

  for (const char* path : {"nope", "system.gpu.nope", "system.num_gpus", "system.gpu.memory[]", "workload.nope",
                           "systemx", "system.", "system.gpu.", "system..gpu"}) {
    CAPTURE(path);
    CHECK_FALSE(run_config_schema_json(path).has_value());
    CHECK_FALSE(run_config_schema_markdown(path).has_value());
  }
}

TEST_CASE("run config schema: markdown of the whole is each section's, in order") {
  std::string joined;
  for (const std::string& section : run_config_schema_sections()) {
    if (!joined.empty()) joined += "\n";
    joined += *run_config_schema_markdown(section);
  }
  CHECK(run_config_schema_markdown("") == joined);
  CHECK(run_config_schema_markdown("run")->starts_with("**run options"));
  CHECK(run_config_schema_markdown("workload.gemm")->starts_with("**`workload` with `kind: gemm`**"));
}

}  // namespace
}  // namespace tessera::app::run

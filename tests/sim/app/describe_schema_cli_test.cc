// `tessera describe --schema [PART] [--markdown]` as a user runs it: the schemas of every config
// key as JSON or markdown, one part by its dotted path, and clear usage errors for what does not
// go with it.
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "tests/sim/app/cli_process.h"

namespace tessera::test {
namespace {

TEST_CASE("describe --schema prints every schema as JSON") {
  const auto r = run_tessera("describe --schema");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j.at("run").at("fields").size() == 2);
  CHECK(j.at("system").at("name") == "system");
  CHECK(j.at("workload").contains("gemm"));
  CHECK(j.at("workload").contains("microbench"));

  // A part is the nested schema at that path, with the defaults of its place (the MALL's, not the L2's).
  const auto nested = [](const nlohmann::json& schema, const std::string& key) {
    for (const nlohmann::json& field : schema.at("fields")) {
      if (field.at("key") == key) return field.at("schema");
    }
    FAIL("no nested map " << key);
    return nlohmann::json();
  };
  const auto mall = run_tessera("describe --schema=system.gpu.memory.mall");
  REQUIRE(mall.exit_code == 0);
  const nlohmann::json part = nlohmann::json::parse(mall.out);
  CHECK(part.at("fields") == nested(nested(nested(j.at("system"), "gpu"), "memory"), "mall").at("fields"));
  CHECK(part.at("fields")[0].at("default") == "0 B");
}

TEST_CASE("describe --schema --markdown prints tables, one part by path or as the argument") {
  const auto all = run_tessera("describe --schema --markdown");
  REQUIRE(all.exit_code == 0);
  CHECK(all.out.find("**`system.gpu.memory.l2`**") != std::string::npos);
  CHECK(all.out.find("**`workload` with `kind: phold`**") != std::string::npos);

  const auto by_flag = run_tessera("describe --schema=workload.phold --markdown");
  const auto by_argument = run_tessera("describe --schema --markdown workload.phold");
  REQUIRE(by_flag.exit_code == 0);
  CHECK(by_flag.out == by_argument.out);
  CHECK(by_flag.out.starts_with("**`workload` with `kind: phold`**"));
  CHECK(by_flag.out.find("| `lps` | count | `256` | 1 – 16777216 |") != std::string::npos);
  CHECK(all.out.find(by_flag.out) != std::string::npos);
}

TEST_CASE("describe --schema: what does not go with it is a usage error") {
  const auto config = write_file("schema_cli.yaml", "system: mi300x-1\nworkload: {kind: phold}\n");
  struct Case {
    std::string args, message;
  };
  for (const Case& c : {
           Case{"describe --schema --json", "--schema already prints JSON"},
           Case{"describe --schema --dot", "--schema and --dot exclude each other"},
           Case{"describe --schema --set seed=2", "--set changes no schema"},
           Case{"describe --schema '" + config.string() + "'", "drop CONFIG"},
           Case{"describe --schema=system '" + config.string() + "'", "drop CONFIG"},
           Case{"describe --schema=system.gpu.nope",
                "no part 'system.gpu.nope'; parts: run, system, workload, workload.microbench"},
           Case{"describe --schema nope --markdown", "no part 'nope'"},
           Case{"describe --markdown", "--markdown goes with --schema"},
       }) {
    CAPTURE(c.args);
    const auto r = run_tessera(c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find(c.message) != std::string::npos);
  }
}

}  // namespace
}  // namespace tessera::test

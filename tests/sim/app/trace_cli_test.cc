// `tessera trace inspect` and `tessera trace convert`, run as the real program.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/sim/app/cli_process.h"

using tessera::test::run_tessera;
using tessera::test::write_file;

namespace {

// For the shell (fmt rather than "'" + ...: GCC 12 warns falsely about operator+ on a temporary).
std::string quoted(const std::filesystem::path& p) { return fmt::format("'{}'", p.string()); }

// The committed example: rank 0 pushes four 16 KiB tiles into rank 1's buffer.
std::string example() {
  const auto path = std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "workloads" / "trace" /
                    "data" / "two_rank_push.jsonl";
  return quoted(path);
}

}  // namespace

TEST_CASE("tessera trace inspect summarises the example, with units") {
  const auto r = run_tessera("trace inspect " + example());
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("text trace, format version 1, 2 rank(s)") != std::string::npos);
  CHECK(r.out.find("tile    64 KiB  65536") != std::string::npos);
  CHECK(r.out.find("rank 0: launch 0 (push), sync, rank_barrier") != std::string::npos);
  CHECK(r.out.find("store                 4") != std::string::npos);
  CHECK(r.out.find("atomic_add_range      0") != std::string::npos);
  CHECK(r.out.find("0         1     0 B  64 KiB") != std::string::npos);  // rank 0 stores 64 KiB into rank 1
}

TEST_CASE("tessera trace inspect --json prints one JSON object with the walk's counts") {
  const auto r = run_tessera("trace inspect --json " + example());
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["form"] == "text");
  CHECK(j["ranks"] == 2);
  CHECK(j["buffers"][0]["bytes"] == 65536);
  CHECK(j["kernels"].size() == 2);
  CHECK(j["kernels"][1]["program"] == "pull");
  CHECK(j["host"][1][0]["kernel"] == 1);
  CHECK(j["totals"]["workgroups"] == 8);
  CHECK(j["walk"]["done"] == true);
  CHECK(j["walk"]["ops"]["store"] == 4);
  CHECK(j["walk"]["ops"]["wait"] == 4);
  CHECK(j["walk"]["ops"]["atomic_add"] == 0);
  CHECK(j["walk"]["flops"] == 4.0 * 4194304);
  const auto& traffic = j["walk"]["traffic"];
  REQUIRE(traffic.size() == 2);
  CHECK(traffic[0] == nlohmann::json({{"rank", 0}, {"owner", 1}, {"loaded_bytes", 0}, {"stored_bytes", 65536}}));
  CHECK(traffic[1] == nlohmann::json({{"rank", 1}, {"owner", 1}, {"loaded_bytes", 65536}, {"stored_bytes", 0}}));
}

TEST_CASE("tessera trace inspect skips the walk of a huge trace") {
  const auto big = write_file("big.jsonl",
                              "{\"tessera_trace\": 1, \"ranks\": 1}\n"
                              "{\"program\": \"p\", \"ops\": [{\"op\": \"loop\", \"count\": 1000000}, {\"op\": \"compute\", \"flops\": 1}, "
                              "{\"op\": \"end_loop\"}]}\n"
                              "{\"kernel\": \"k\", \"rank\": 0, \"grid\": 1000, \"program\": \"p\"}\n"
                              "{\"host\": \"launch\", \"kernel\": 0}\n");
  const auto r = run_tessera("trace inspect --json " + quoted(big));
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["walk"]["done"] == false);
  CHECK(j["walk"]["skipped"].get<std::string>().find("50 million") != std::string::npos);
  const auto text = run_tessera("trace inspect " + quoted(big));
  CHECK(text.out.find("walk skipped") != std::string::npos);
}

TEST_CASE("tessera trace convert: text to binary and back gives the same trace") {
  const auto dir = tessera::test::scratch_dir() / "convert";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string bin = quoted(dir / "t.tsrt");
  const std::string text = quoted(dir / "t.jsonl");
  REQUIRE(run_tessera("trace convert " + example() + " " + bin).exit_code == 0);
  REQUIRE(run_tessera("trace convert " + bin + " " + text).exit_code == 0);
  const auto from_bin = run_tessera("trace inspect --json " + bin);
  const auto from_text = run_tessera("trace inspect --json " + text);
  REQUIRE(from_bin.exit_code == 0);
  auto a = nlohmann::json::parse(from_bin.out);
  auto b = nlohmann::json::parse(from_text.out);
  CHECK(a["form"] == "binary");
  CHECK(b["form"] == "text");
  for (auto* j : {&a, &b}) {
    j->erase("file");
    j->erase("form");
  }
  CHECK(a == b);
  CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 2);
}

TEST_CASE("bad traces and bad names are exit code 2 with the place of the problem") {
  const auto bad = write_file("bad.jsonl",
                              "{\"tessera_trace\": 1, \"ranks\": 2}\n"
                              "{\"buffer\": \"A\", \"bytse\": 4096}\n");
  const auto r = run_tessera("trace inspect " + quoted(bad));
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "error: " + bad.string() + ":2: bytse: unknown key; did you mean 'bytes'?\n");
  const auto json = run_tessera("trace inspect --json " + quoted(bad));
  CHECK(json.exit_code == 2);
  CHECK(json.out.empty());  // stdout stays clean for scripts
  const auto ext = run_tessera("trace convert " + example() + " out.txt");
  CHECK(ext.exit_code == 2);
  CHECK(ext.err.find("unknown extension '.txt'") != std::string::npos);
  const auto missing = run_tessera("trace inspect /nonexistent/t.jsonl");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("error: /nonexistent/t.jsonl: cannot open") == 0);
}

TEST_CASE("tessera trace: help for each action, and a misspelt action is a usage error") {
  for (const char* cmd : {"trace --help", "trace inspect --help", "trace convert --help"}) {
    const auto r = run_tessera(cmd);
    CHECK_MESSAGE(r.exit_code == 0, cmd);
  }
  CHECK(run_tessera("trace inspect --help").out.find("Options") != std::string::npos);
  CHECK(run_tessera("trace").exit_code == 2);
  const auto r = run_tessera("trace inspct x");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown trace action 'inspct'; did you mean 'inspect'?") != std::string::npos);
  CHECK(run_tessera("trace inspect").exit_code == 2);
  CHECK(run_tessera("--help").out.find("trace inspect FILE") != std::string::npos);
}

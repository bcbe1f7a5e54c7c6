// Absurd sizes as a user meets them: a generated workload, a system, a trace file, a PHOLD run
// or a study point asking for too much is refused up front, in well under a second, with exit
// code 2, the file, line and key (or the trace file) and the limit, and nothing written.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "tests/sim/app/cli_process.h"

namespace {

namespace fs = std::filesystem;
using tessera::test::ProcessResult;
using tessera::test::run_tessera;
using tessera::test::scratch_dir;
using tessera::test::write_file;

// Runs tessera and checks that it fails as bad input, quickly (nothing big was built).
ProcessResult refused(const std::string& args) {
  const auto t0 = std::chrono::steady_clock::now();
  ProcessResult r = run_tessera(args);
  const auto took = std::chrono::steady_clock::now() - t0;
  INFO(args << "\n" << r.err);
  CHECK(r.exit_code == 2);
  CHECK(took < std::chrono::seconds(3));  // process start and config reading; the run would take days
  return r;
}

}  // namespace

TEST_CASE("a generated workload whose buffers exceed the GPU's HBM is a config error at workload:") {
  const auto cfg = write_file("huge_gemm.yaml", "system: mi300x-1\n"
                                                "workload: {kind: gemm, m: 1048576, k: 1048576}\n");
  const fs::path out = scratch_dir() / "huge_gemm_out";
  fs::remove_all(out);
  const auto r = refused("run '" + cfg.string() + "' --out '" + out.string() + "'");
  CHECK(r.err.find("huge_gemm.yaml:2:11: workload: gemm is too large: the buffers need") != std::string::npos);
  CHECK(r.err.find("(A 2 TiB") != std::string::npos);
  CHECK(r.err.find("a MI300X has 192 GB of HBM") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  // The same through --set, and in describe.
  const auto set = refused("run examples/ag_gemm.yaml --set workload.k=8388608 --set workload.m=1048576");
  CHECK(set.err.find("ag_gemm is too large") != std::string::npos);
  CHECK(refused("describe '" + cfg.string() + "'").err.find("too large") != std::string::npos);
}

TEST_CASE("a system whose caches would need more than 16 GiB of simulator state is a config error") {
  const auto r = refused("run examples/ag_gemm.yaml --set 'system.gpu.memory.l2.capacity=1024 TiB'");
  CHECK(r.err.find("the caches would need") != std::string::npos);
  CHECK(r.err.find("at most 16 GiB") != std::string::npos);
  const auto eight = write_file("many_cus.yaml", "system: h200-8\nworkload: {kind: microbench, op: hbm_stream, bytes: 1 MiB}\n");
  const auto cus = refused("describe '" + eight.string() + "' --set system.num_gpus=1024 --set system.gpu.compute.num_dies=64 "
                           "--set system.gpu.compute.compute_units_per_die=1024 --set 'system.gpu.memory.l2.capacity=64 KiB'");
  CHECK(cus.err.find("compute units in all") != std::string::npos);
}

TEST_CASE("a trace file asking for 10^12 workgroups is refused with the file named, before the replay builds") {
  const auto trace = write_file("huge_grid.jsonl",
                                "{\"tessera_trace\": 1, \"ranks\": 1}\n"
                                "{\"buffer\": \"b\", \"bytes\": \"4 KiB\"}\n"
                                "{\"program\": \"p\", \"ops\": [{\"op\": \"load\", \"buffer\": \"b\", \"rank\": \"rank\", "
                                "\"offset\": 0, \"bytes\": 64}]}\n"
                                "{\"kernel\": \"k\", \"rank\": 0, \"stream\": 0, \"grid\": 1000000000000, \"program\": \"p\"}\n"
                                "{\"host\": \"launch\", \"rank\": 0, \"kernel\": 0}\n");
  const auto cfg = write_file("huge_grid.yaml", "system: mi300x-1\nworkload: {kind: trace, path: huge_grid.jsonl}\n");
  const auto r = refused("run '" + cfg.string() + "'");
  CHECK(r.err.find("huge_grid.jsonl: kernel 'k' on rank 0 has 1000000000000 workgroups; at most 4294967295 per kernel") !=
        std::string::npos);
}

TEST_CASE("a PHOLD run with more pending events than the engine holds is refused before it reserves them") {
  const auto cfg = write_file("huge_phold.yaml", "system: mi300x-1\nworkload: {kind: phold, lps: 16777216, events_per_lp: 1024}\n");
  CHECK(refused("run '" + cfg.string() + "'").err.find("the engine holds at most 2^24") != std::string::npos);
}

TEST_CASE("a study with one absurd point fails before any point runs, naming the point") {
  const auto study = write_file("huge_study.yaml", "base:\n"
                                                   "  system: mi300x-1\n"
                                                   "  workload: {kind: gemm, m: 256, n: 256, k: 1048576}\n"
                                                   "sweep:\n"
                                                   "  grid:\n"
                                                   "    workload.m: [256, 1048576]\n");
  const fs::path out = scratch_dir() / "huge_study_out";
  fs::remove_all(out);
  const auto r = refused("sweep '" + study.string() + "' --out '" + out.string() + "'");
  CHECK(r.err.find("gemm is too large") != std::string::npos);
  CHECK(r.err.find("(point 1: workload.m=1048576)") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}

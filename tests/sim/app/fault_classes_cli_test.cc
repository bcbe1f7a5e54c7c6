// The fault classes of docs/robustness.md ("Fault classes"), one case per site, run as a user
// meets them: each bad input is refused with exit 2 (1 for a run that cannot finish), a message
// that names the file, line and key or the flag, quickly, and without writing or replacing
// anything. A crash (a signal) reads as exit -1 here and fails every check.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "tests/sim/app/cli_process.h"

namespace {

namespace fs = std::filesystem;
using tessera::test::exit_code_of;
using tessera::test::fresh_dir;
using tessera::test::ProcessResult;
using tessera::test::read_all;
using tessera::test::run_tessera;
using tessera::test::scratch_dir;
using tessera::test::start_tessera;
using tessera::test::write_file;

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

bool has(const ProcessResult& r, const std::string& text) { return r.err.find(text) != std::string::npos; }

// Runs tessera; checks the exit code, that it took at most `seconds`, and shows stderr on failure.
ProcessResult expect_exit(int code, const std::string& args, int seconds = 10) {
  const auto t0 = std::chrono::steady_clock::now();
  ProcessResult r = run_tessera(args);
  INFO(args << "\nstderr: " << r.err.substr(0, 2000));
  CHECK(r.exit_code == code);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(seconds));
  return r;
}

// A one-rank trace whose kernel runs `ops` on stream `stream`, and a config that runs it.
fs::path trace_config(const std::string& name, const std::string& ops, const std::string& stream = "0",
                      const std::string& kernel_extra = "") {
  write_file(name + ".jsonl", "{\"tessera_trace\": 6, \"ranks\": 1}\n"
                              "{\"buffer\": \"A\", \"bytes\": 4096}\n"
                              "{\"program\": \"p\", \"ops\": [" + ops + "]}\n"
                              "{\"kernel\": \"k\", \"rank\": 0, \"stream\": " + stream +
                                  ", \"grid\": 4, \"program\": \"p\"" + kernel_extra + "}\n"
                              "{\"host\": \"launch\", \"rank\": 0, \"kernel\": 0}\n"
                              "{\"host\": \"sync\"}\n");
  return write_file(name + ".yaml", "system: h200-1\nworkload: {kind: trace, path: " + name + ".jsonl}\n");
}

const char* kLoad = R"({"op": "load", "buffer": "A", "rank": 0, "offset": "wg*64", "bytes": 64})";

}  // namespace

// ---- 1. Unbounded trace fields --------------------------------------------------------------

TEST_CASE("a stream index beyond the limit is refused at its line, by run and by trace inspect") {
  for (const char* stream : {"4294967295", "100000000", "1024"}) {
    const fs::path config = trace_config("stream_" + std::string(stream), kLoad, stream);
    const auto r = expect_exit(2, "run " + quoted(config));
    CHECK(has(r, ".jsonl:4: stream: " + std::string(stream) + " is too large (at most 1023)"));
    expect_exit(2, "trace inspect " + quoted(scratch_dir() / ("stream_" + std::string(stream) + ".jsonl")));
  }
  expect_exit(0, "run " + quoted(trace_config("stream_ok", kLoad, "1023")));
}

TEST_CASE("a kernel's CU range past the die is bad input, not a failed run") {
  const auto r = expect_exit(2, "run " + quoted(trace_config("cu_range", kLoad, "0", ", \"cu_first\": 60, \"cu_count\": 10")));
  CHECK(has(r, "kernel 'k' on rank 0 asks for CUs [60, 70) of each die; a H200 SXM has 66 per die"));
}

// ---- 2. Arithmetic that leaves 64 bits -------------------------------------------------------

TEST_CASE("trace expressions that leave 64 bits fail the run at the workgroup and instruction") {
  // 2^62 x wg, then 4 x r1: wrapped, workgroup 1's offset would be 0 and pass the bounds check.
  const fs::path product = trace_config(
      "wrap_product",
      R"({"op": "set", "register": "r1", "value": "4611686018427387904*wg"}, {"op": "load", "buffer": "A", "rank": 0, "offset": "4*r1", "bytes": 64})");
  auto r = expect_exit(2, "run " + quoted(product));
  CHECK(has(r, "kernel 'k' (rank 0) workgroup 1: program 'p' instruction 1 (load): 4*r1 leaves the 64-bit integer range "
               "(with r1 = 4611686018427387904)"));
  // A sum of registers (signed overflow, undefined behaviour before).
  const fs::path sum = trace_config(
      "wrap_sum",
      R"({"op": "set", "register": "r1", "value": "9223372036854775807"}, {"op": "set", "register": "r2", "value": "r1 + 1"}, {"op": "load", "buffer": "A", "rank": 0, "offset": "r2", "bytes": 64})");
  r = expect_exit(2, "run " + quoted(sum));
  CHECK(has(r, "instruction 1 (set): r1 + 1 leaves the 64-bit integer range"));
  r = expect_exit(2, "trace inspect " + quoted(scratch_dir() / "wrap_sum.jsonl"));
  CHECK(has(r, "kernel 'k' workgroup 0: program 'p' instruction 1 (set)"));
}

TEST_CASE("simulated time past 2^62 ps fails the run, on the fluid links and on the compute path alike") {
  const fs::path out = fresh_dir("time_range_out");
  auto r = expect_exit(2, "run --set 'system.interconnect.link_bandwidth=1 B/s' --out " + quoted(out), 60);
  CHECK(has(r, "would arrive past the end of simulated time (simulated time ends at 2^62 ps"));
  CHECK(has(r, "at 1 B/s"));
  CHECK_FALSE(fs::exists(out));
  r = expect_exit(2, "run --set system.gpu.compute.matrix_flops_per_clock_per_cu.fp16=1e-12", 60);
  CHECK(has(r, "compute work of"));
  CHECK(has(r, "past the end of simulated time"));
}

// ---- 3. Configs that cannot terminate --------------------------------------------------------

TEST_CASE("includes that fan out load each file once") {
  // f0 includes f1 twice, f1 includes f2 twice, ... 40 levels: 2^40 loads before.
  for (int i = 0; i < 40; ++i) {
    write_file("fan" + std::to_string(i) + ".yaml", "include: [fan" + std::to_string(i + 1) + ".yaml, fan" + std::to_string(i + 1) + ".yaml]\n");
  }
  write_file("fan40.yaml", "system: h200-1\n");
  const fs::path top = write_file("fan_top.yaml", "include: fan0.yaml\nworkload: {kind: gemm, m: 256, n: 256, k: 256}\n");
  const auto r = expect_exit(0, "describe " + quoted(top), 5);
  CHECK(r.out.find("H200") != std::string::npos);
}

TEST_CASE("PHOLD whose delays cannot advance time, or would take days, is refused") {
  const fs::path zero = write_file("phold_zero.yaml", "system: h200-1\nworkload: {kind: phold, min_delay: 0 ps, mean_extra_delay: 0 ps}\n");
  auto r = expect_exit(2, "run " + quoted(zero));
  CHECK(has(r, "phold_zero.yaml:2:11: workload: min_delay and mean_extra_delay are both 0"));
  const fs::path days = write_file("phold_days.yaml", "system: h200-1\nworkload: {kind: phold, min_delay: 1 ps, mean_extra_delay: 0 ps, end_time: 1 s}\n");
  r = expect_exit(2, "run " + quoted(days));
  CHECK(has(r, "more than a day of simulation"));
  r = expect_exit(2, "bench phold --lps 1024 --end-time '10 s'", 5);
  CHECK(has(r, "more than a day of simulation"));
}

TEST_CASE("a 100 KB --set key path is refused at once, with the flag shortened in the message") {
  std::string key = "workload";
  while (key.size() < 100'000) key += ".a";
  const auto r = expect_exit(2, "describe --set " + key + "=1", 5);
  CHECK(has(r, "the key path is 100000 bytes long; at most 512"));
  CHECK(r.err.size() < 1000);
}

// ---- 4. Undetected deadlocks -----------------------------------------------------------------

TEST_CASE("uneven rank_barrier counts are refused when the trace is read") {
  write_file("uneven.jsonl", "{\"tessera_trace\": 1, \"ranks\": 2}\n"
                             "{\"buffer\": \"A\", \"bytes\": 4096}\n"
                             "{\"program\": \"p\", \"ops\": [{\"op\": \"compute\", \"flops\": 1}]}\n"
                             "{\"kernel\": \"k0\", \"rank\": 0, \"grid\": 1, \"program\": \"p\"}\n"
                             "{\"kernel\": \"k1\", \"rank\": 1, \"grid\": 1, \"program\": \"p\"}\n"
                             "{\"host\": \"launch\", \"rank\": 0, \"kernel\": 0}\n"
                             "{\"host\": \"launch\", \"rank\": 1, \"kernel\": 1}\n"
                             "{\"host\": \"rank_barrier\", \"rank\": 0}\n"
                             "{\"host\": \"rank_barrier\", \"rank\": 0}\n"
                             "{\"host\": \"rank_barrier\", \"rank\": 1}\n");
  const fs::path config = write_file("uneven.yaml", "system: h200-2\nworkload: {kind: trace, path: uneven.jsonl}\n");
  const auto r = expect_exit(2, "run " + quoted(config));
  CHECK(has(r, "rank 1 has 1 rank_barrier commands and rank 0 has 2"));
}

// ---- 5. Outputs that destroy or mix ----------------------------------------------------------

TEST_CASE("outputs never replace a FIFO, a symlink or a device, and the target stays what it was") {
  const fs::path dir = fresh_dir("special_targets");
  fs::create_directories(dir);
  const fs::path fifo = dir / "fifo.jsonl";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  const fs::path target = dir / "target.txt";
  write_file("special_target_content.txt", "keep me\n");
  fs::copy_file(scratch_dir() / "special_target_content.txt", target);
  const fs::path link = dir / "link.jsonl";
  fs::create_symlink(target, link);
  const fs::path trace = scratch_dir() / "stream_ok.jsonl";
  trace_config("stream_ok", kLoad, "0");

  for (const fs::path& special : {fifo, link}) {
    auto r = expect_exit(2, "trace convert " + quoted(trace) + " " + quoted(special));
    CHECK(has(r, "Tessera writes and replaces regular files only"));
    r = expect_exit(2, "run " + quoted(scratch_dir() / "stream_ok.yaml") + " --dump-trace " + quoted(special));
    CHECK(has(r, "--dump-trace: "));
  }
  // Not a new file in /dev either (root may create one there).
  auto r = expect_exit(2, "trace convert " + quoted(trace) + " /dev/tessera-test.jsonl");
  CHECK(has(r, "/dev is a system folder"));
  CHECK_FALSE(fs::exists("/dev/tessera-test.jsonl"));
  r = expect_exit(2, "calibrate --measured " + quoted(dir) + " --system h200-1 --out /dev/null");
  CHECK(has(r, "--out: /dev/null is a character device"));
  // A run's output folder whose summary.json is a link to another file: refused, the link kept.
  const fs::path out = fresh_dir("linked_out");
  fs::create_directories(out);
  fs::create_symlink(target, out / "summary.json");
  expect_exit(2, "run " + quoted(scratch_dir() / "stream_ok.yaml") + " --out " + quoted(out));
  CHECK(fs::is_fifo(fs::symlink_status(fifo)));
  CHECK(fs::is_symlink(fs::symlink_status(link)));
  CHECK(fs::is_symlink(fs::symlink_status(out / "summary.json")));
  CHECK(read_all(target) == "keep me\n");
  CHECK(fs::is_character_file(fs::status("/dev/null")));
}

TEST_CASE("inputs that are FIFOs or devices are refused, not waited on") {
  const fs::path dir = fresh_dir("special_inputs");
  fs::create_directories(dir);
  const fs::path fifo = dir / "trace.jsonl";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  auto r = expect_exit(2, "trace inspect " + quoted(fifo), 5);
  CHECK(has(r, "is not a regular file"));
  const fs::path config = write_file("include_fifo.yaml", "include: " + fifo.string() + "\n");
  r = expect_exit(2, "describe " + quoted(config), 5);
  CHECK(has(r, "is not a regular file"));
  r = expect_exit(2, "describe " + quoted(write_file("include_zero.yaml", "include: /dev/zero\n")), 5);
  CHECK(has(r, "/dev/zero: is not a regular file"));
}

TEST_CASE("an unwritable output folder is found before any work") {
  const fs::path file = write_file("not_a_folder", "x\n");
  const fs::path study = write_file("outputs_study.yaml", "base:\n  system: h200-1\n  workload: {kind: phold, end_time: 1 us}\n"
                                                          "sweep:\n  grid:\n    seed: [1, 2]\n");
  auto r = expect_exit(2, "sweep " + quoted(study) + " --out " + quoted(file / "sub"));
  CHECK(has(r, "exists and is not a folder"));
  r = expect_exit(2, "run --out ''");
  CHECK(has(r, "--out: expected a folder, got an empty name"));
  expect_exit(2, "validate --measured " + quoted(scratch_dir()) + " --system h200-2 --out " + quoted(file));
  expect_exit(2, "compare a.yaml b.yaml --out ''");
}

TEST_CASE("a run's --out folder holds one run's files: the next run replaces them all, other files stay") {
  const fs::path out = fresh_dir("replaced_out");
  fs::create_directories(out);
  write_file("replaced_out/notes.txt", "mine\n");
  const std::string small = "--set workload.m=64 --set workload.n=256 --set workload.k=512 --quiet --out " + quoted(out);
  expect_exit(0, "run --variants bsp,pull " + small, 60);
  CHECK(fs::exists(out / "timeline-pull.json"));
  expect_exit(0, "run --set workload.variant=bsp " + small, 60);
  CHECK(fs::exists(out / "timeline.json"));
  CHECK(fs::exists(out / "summary.json"));
  CHECK_FALSE(fs::exists(out / "timeline-pull.json"));  // the previous run's, gone with it
  CHECK_FALSE(fs::exists(out / "stats-bsp.json"));
  CHECK(read_all(out / "notes.txt") == "mine\n");
  for (const auto& entry : fs::directory_iterator(out)) CHECK_MESSAGE(entry.path().filename().string()[0] != '.', entry.path());
}

TEST_CASE("SIGINT during run --out exits 130 with a message and writes nothing") {
  const fs::path out = fresh_dir("interrupted_run");
  const fs::path err = scratch_dir() / "interrupted_run.err";
  const fs::path config = write_file("long_phold.yaml", "system: h200-1\nworkload: {kind: phold, lps: 4096, end_time: 100 ms}\n");
  const pid_t pid = start_tessera({"run", config.string(), "--quiet", "--out", out.string()}, err);
  REQUIRE(pid > 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  ::kill(pid, SIGINT);
  const int code = exit_code_of(pid);
  const std::string message = read_all(err);
  INFO(message);
  CHECK(code == 130);
  CHECK(message.find("tessera run: interrupted; nothing written") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}

// ---- 6. Wrong exit codes and unnamed files ---------------------------------------------------

TEST_CASE("measured results: a number beyond a double, a duplicate key, a symlink loop are bad input naming the file") {
  const fs::path dir = fresh_dir("measured_bad");
  fs::create_directories(dir / "a");
  write_file("measured_bad/a/overflow.json", "{\"schema\": 1, \"value\": 1e999}\n");
  auto r = expect_exit(2, "validate --measured " + quoted(dir / "a") + " --system h200-2");
  CHECK(has(r, "overflow.json: not valid JSON: number overflow parsing '1e999'"));
  fs::create_directories(dir / "b");
  write_file("measured_bad/b/duplicate.json", "{\"schema\": 1, \"status\": \"passed\", \"status\": \"failed\"}\n");
  r = expect_exit(2, "validate --measured " + quoted(dir / "b") + " --system h200-2");
  CHECK(has(r, "duplicate.json: status: duplicate key"));
  fs::create_directories(dir / "c");
  fs::create_symlink("loop2.json", dir / "c" / "loop1.json");
  fs::create_symlink("loop1.json", dir / "c" / "loop2.json");
  r = expect_exit(2, "calibrate --measured " + quoted(dir / "c") + " --system h200-1");
  CHECK(has(r, "loop1.json: cannot be read: "));
  // A file that is not JSON: the message does not quote it.
  fs::create_directories(dir / "d");
  write_file("measured_bad/d/private.json", "secret-token-123 and more\n");
  r = expect_exit(2, "validate --measured " + quoted(dir / "d") + " --system h200-2");
  CHECK(has(r, "private.json: not valid JSON at line 1, column 1"));
  CHECK_FALSE(has(r, "secret-token"));
}

TEST_CASE("whole-number flags take digits only, as the config keys they stand for") {
  CHECK(has(expect_exit(2, "run --seed -5"), "the argument ('-5') for option '--seed' is invalid"));
  expect_exit(2, "run --max-events -1");
  expect_exit(2, "run --uncertainty -1");
  expect_exit(2, "run --jobs -1");
  expect_exit(2, "run --seed 18446744073709551616");
  expect_exit(2, "sweep x.yaml --jobs -2");
  expect_exit(2, "validate --measured x --system h200-2 --jobs 1x");
  expect_exit(2, "bench phold --lps -1");
}

// ---- 7. Smaller ------------------------------------------------------------------------------

TEST_CASE("config files: a size limit, and a file that cannot be read is not an empty one") {
  const fs::path big = scratch_dir() / "big_include.yaml";
  { std::ofstream(big) << "a: 1\n"; }
  fs::resize_file(big, std::uintmax_t{200} << 20);  // sparse: 200 MB on disk costs nothing
  auto r = expect_exit(2, "describe " + quoted(write_file("includes_big.yaml", "include: big_include.yaml\n")), 5);
  CHECK(has(r, "big_include.yaml: is 200 MiB; at most 16 MiB is read"));
  fs::remove(big);
  r = expect_exit(2, "describe " + quoted(write_file("base_proc.yaml", "base: /proc/self/mem\n")), 5);
  CHECK(has(r, "/proc/self/mem: read error"));
}

TEST_CASE("a study whose axes multiply past a million points is refused before any point is made") {
  std::string grid;
  for (int axis = 0; axis < 7; ++axis) {
    grid += "    workload.a" + std::to_string(axis) + ": [";
    for (int v = 0; v < 10; ++v) grid += (v ? ", " : "") + std::to_string(v);
    grid += "]\n";
  }
  const fs::path study = write_file("huge_study.yaml", "base:\n  system: h200-1\n  workload: {kind: phold}\nsweep:\n  grid:\n" + grid);
  const auto r = expect_exit(2, "sweep " + quoted(study) + " --dry-run", 5);
  CHECK(has(r, "huge_study.yaml:5:3: sweep: the axes make more than 1000000 points"));
}

TEST_CASE("validate and calibrate take --max-wall: a case past it fails, and the command says so") {
  const fs::path data = fs::path(__FILE__).parent_path().parent_path().parent_path().parent_path() / "validation" / "data";
  auto r = expect_exit(1, "validate --quiet --measured " + quoted(data / "h200-2" / "run1") + " --system h200-2-calibrated --max-wall 1ns", 60);
  CHECK(has(r, "stopped by --max-wall (1 ns)"));
  r = expect_exit(1, "calibrate --quiet --measured " + quoted(data / "h200-2" / "gpu0") + " --system h200-2 --max-wall 1ns", 60);
  CHECK(has(r, "the run stopped before the end (wall_limit)"));
  expect_exit(2, "validate --measured " + quoted(data / "h200-2" / "run1") + " --system h200-2 --max-wall soon");
}

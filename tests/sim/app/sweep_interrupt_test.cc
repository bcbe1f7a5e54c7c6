// SIGINT and SIGTERM during `tessera sweep`, as a user sends them: the sweep stops cleanly
// with exit code 130, the points that finished keep their files and make up results.csv, the
// running ones leave no file (not even a half-written one), and --resume then completes the
// study with a results.csv byte-identical to an uninterrupted run's (apart from wall_s).
#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/sim/app/cli_process.h"

namespace {

namespace fs = std::filesystem;
using tessera::test::exit_code_of;
using tessera::test::fresh_dir;
using tessera::test::read_all;
using tessera::test::run_tessera;
using tessera::test::start_tessera;
using tessera::test::without_wall_s;
using tessera::test::write_file;

// Eight PHOLD points of ~0.3 s each (a few million events; seconds on a loaded machine): long
// enough that an interrupt after the first finishes leaves most of them to do.
const char* kStudy =
    "description: eight PHOLD seeds, for the interrupt tests\n"
    "base:\n"
    "  system: mi300x-1\n"
    "  workload: {kind: phold, lps: 256, end_time: 250 us}\n"
    "sweep:\n"
    "  grid:\n"
    "    seed: [1, 2, 3, 4, 5, 6, 7, 8]\n";

std::size_t line_count(const std::string& text) {
  std::size_t n = 0;
  for (const char c : text) n += c == '\n' ? 1 : 0;
  return n;
}

// `tessera sweep STUDY --jobs 1 --out OUT` as a child process, stderr to a file.
pid_t start_sweep(const fs::path& study, const fs::path& out, const fs::path& err) {
  return start_tessera({"sweep", study.string(), "--jobs", "1", "--out", out.string()}, err);
}

// Waits (up to a minute) until `file` exists.
bool wait_for(const fs::path& file) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(file)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// Interrupts a sweep with `signal` once its first point is written; checks what it left.
// Returns the number of points that finished.
std::size_t interrupt_after_first_point(int signal, const fs::path& study, const fs::path& out) {
  const fs::path err = out.string() + ".err";
  const pid_t pid = start_sweep(study, out, err);
  REQUIRE(pid > 0);
  REQUIRE(wait_for(out / "points" / "0000.json"));
  ::kill(pid, signal);
  const int code = exit_code_of(pid);
  const std::string message = read_all(err);
  INFO(message);
  CHECK(code == 130);
  CHECK(message.find("interrupted: partial results: ") != std::string::npos);
  CHECK(message.find("finish the study with: tessera sweep " + study.string() + " --out " + out.string() + " --resume") !=
        std::string::npos);
  // The finished points have complete files, and nothing else is left behind (no temporary
  // of a point that was running).
  std::size_t finished = 0;
  for (const auto& entry : fs::directory_iterator(out / "points")) {
    const std::string name = entry.path().filename().string();
    CHECK_MESSAGE(name.size() == 9, name);
    CHECK_MESSAGE(name.ends_with(".json"), name);
    const auto j = nlohmann::json::parse(read_all(entry.path()));
    CHECK(j["complete"] == true);
    ++finished;
  }
  for (const auto& entry : fs::directory_iterator(out)) CHECK_MESSAGE(entry.path().filename().string()[0] != '.', entry.path());
  CHECK(finished >= 1);
  CHECK(finished < 8);
  // results.csv lists exactly the finished points.
  const std::string csv = read_all(out / "results.csv");
  CHECK(line_count(csv) == 1 + finished);
  CHECK(csv.find("0,1,") != std::string::npos);
  return finished;
}

}  // namespace

TEST_CASE("SIGINT stops a sweep cleanly (exit 130, finished points kept), and --resume completes it identically") {
  const fs::path study = write_file("interrupt_study.yaml", kStudy);
  const fs::path reference = fresh_dir("interrupt-reference");
  const auto full = run_tessera("sweep '" + study.string() + "' --jobs 2 --out '" + reference.string() + "'");
  REQUIRE(full.exit_code == 0);

  const fs::path out = fresh_dir("interrupt-sigint");
  const std::size_t finished = interrupt_after_first_point(SIGINT, study, out);
  const auto resumed = run_tessera("sweep '" + study.string() + "' --jobs 2 --out '" + out.string() + "' --resume");
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  CHECK(resumed.err.find(std::to_string(8 - finished) + " run, " + std::to_string(finished) + " resumed, 0 failed") !=
        std::string::npos);
  CHECK(without_wall_s(read_all(out / "results.csv")) == without_wall_s(read_all(reference / "results.csv")));
}

TEST_CASE("SIGTERM (a scheduler's kill) stops a sweep the same way") {
  const fs::path study = write_file("interrupt_study_term.yaml", kStudy);
  const fs::path out = fresh_dir("interrupt-sigterm");
  interrupt_after_first_point(SIGTERM, study, out);
}

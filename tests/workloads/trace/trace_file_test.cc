// Trace files: the form is read from the content, written from the extension, atomically.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "tests/workloads/trace/trace_test_support.h"
#include "workloads/trace/trace_file.h"

using namespace tessera::workloads::trace;
namespace fs = std::filesystem;

namespace {

fs::path scratch() {
  const fs::path dir = fs::temp_directory_path() / fmt::format("tessera-trace-test-{}", ::getpid());
  fs::create_directories(dir);
  return dir;
}

std::size_t files_in(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

std::string first_bytes(const fs::path& p, std::size_t n) {
  std::ifstream in(p, std::ios::binary);
  std::string s(n, '\0');
  in.read(s.data(), static_cast<std::streamsize>(n));
  s.resize(static_cast<std::size_t>(in.gcount()));
  return s;
}

}  // namespace

TEST_CASE("save by extension, load by content, both forms, nothing else left behind") {
  const fs::path dir = scratch() / "forms";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const Trace t = test::sample_trace();
  save_trace(t, dir / "a.jsonl");
  save_trace(t, dir / "a.tsrt");
  CHECK(first_bytes(dir / "a.jsonl", 1) == "{");
  CHECK(first_bytes(dir / "a.tsrt", 8) == "TSRTRACE");
  CHECK(form_of_file(dir / "a.jsonl") == TraceForm::kText);
  CHECK(form_of_file(dir / "a.tsrt") == TraceForm::kBinary);
  test::check_same(t, load_trace(dir / "a.jsonl"));
  test::check_same(t, load_trace(dir / "a.tsrt"));
  // The content decides, not the name.
  save_trace(t, dir / "binary.jsonl", TraceForm::kBinary);
  CHECK(form_of_file(dir / "binary.jsonl") == TraceForm::kBinary);
  test::check_same(t, load_trace(dir / "binary.jsonl"));
  // Saving over an existing file replaces it; no temporary stays.
  save_trace(t, dir / "a.tsrt");
  CHECK(files_in(dir) == 3);
}

TEST_CASE("an unknown extension, a missing file and a folder are TraceErrors") {
  const fs::path dir = scratch();
  const Trace t = test::sample_trace();
  CHECK_THROWS_WITH_AS(save_trace(t, dir / "a.txt"), doctest::Contains("unknown extension '.txt'"), TraceError);
  CHECK_THROWS_WITH_AS(save_trace(t, dir / "a"), doctest::Contains("no extension"), TraceError);
  CHECK(form_of_path("x/y.jsonl") == TraceForm::kText);
  CHECK(form_of_path("y.tsrt") == TraceForm::kBinary);
  CHECK_THROWS_WITH_AS(load_trace(dir / "missing.jsonl"), doctest::Contains("missing.jsonl: cannot open"), TraceError);
  CHECK_THROWS_WITH_AS(load_trace(dir), doctest::Contains("is a folder"), TraceError);
}

TEST_CASE("a load error names the file as given") {
  const fs::path p = scratch() / "broken.jsonl";
  std::ofstream(p) << "{\"tessera_trace\": 1, \"ranks\": 1}\n{\"buffer\": \"A\"}\n";
  CHECK_THROWS_WITH_AS(load_trace(p), (p.string() + ":2: missing key 'bytes' (a buffer record needs it)").c_str(), TraceError);
}

TEST_CASE("the committed example loads through load_trace") {
  const Trace t = load_trace(fs::path(TESSERA_TRACE_DATA_DIR) / "two_rank_push.jsonl");
  CHECK(t.ranks == 2);
  CHECK(stats_of(t).workgroups == 8);
}

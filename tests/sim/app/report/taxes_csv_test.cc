#include <doctest/doctest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "sample_runs.h"
#include "sim/app/report/taxes_csv.h"

using namespace tessera::app::report;
using namespace tessera::app::report::testing;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Splits one CSV line (quoted fields allowed).
std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

constexpr const char* kHeader =
    "run,scope,rank,kernel,span_ns,compute_ns,memory_ns,communication_ns,idle_ns,bulk_synchronous_ns,"
    "inter_kernel_locality_ns,launch_overhead_ns";

}  // namespace

TEST_CASE("taxes.csv: a header, then per run a total row, a row per GPU and a row per kernel") {
  const auto lines = lines_of(taxes_csv(sample_runs()));
  REQUIRE(lines.size() == 1 + 2 * (1 + 2 + 3) + 1);
  CHECK(lines[0] == kHeader);
  CHECK(lines[1] == "bsp,total,,,1000.000,400.000,150.000,100.000,50.000,200.000,60.000,40.000");
  CHECK(lines[2] == "bsp,gpu,0,,1000.000,420.000,140.000,110.000,30.000,180.000,70.000,50.000");
  CHECK(lines[3] == "bsp,gpu,1,,1000.000,380.000,160.000,90.000,110.000,170.000,50.000,40.000");
  CHECK(lines[4] == "bsp,kernel,0,all_gather,300.000,0.000,100.000,150.000,0.000,40.000,0.000,10.000");
  CHECK(lines[5].rfind("bsp,kernel,0,gemm,700.000,", 0) == 0);
  CHECK(lines[6].rfind("bsp,kernel,1,gemm,890.000,", 0) == 0);
  CHECK(lines[7] == "push,total,,,800.000,320.000,120.000,80.000,40.000,160.000,48.000,32.000");
  // No attribution: the total row only, its category cells empty.
  CHECK(lines[13] == "micro,total,,,1234.500,,,,,,,");
}

TEST_CASE("taxes.csv: every row has all columns, and the parts sum to the span") {
  const auto lines = lines_of(taxes_csv(sample_runs()));
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto f = fields_of(lines[i]);
    REQUIRE(f.size() == 12);
    if (f[5].empty()) continue;
    double sum = 0.0;
    for (std::size_t c = 5; c < 12; ++c) sum += std::stod(f[c]);
    CHECK_MESSAGE(std::fabs(sum - std::stod(f[4])) < 1e-6, lines[i]);
  }
}

TEST_CASE("taxes.csv: labels and kernel names are quoted when they must be, a run without a breakdown leaves cells empty") {
  nlohmann::json s = attributed_summary("bsp");
  s["kernels"][0]["name"] = "gemm, \"fused\"";
  s["kernels"][1].erase("taxes_ns");  // read back as zero taxes
  s["per_gpu"][1]["work_ns"]["idle"] = 1e-4;  // 0.1 ps: rounds to 0 ps
  const auto lines = lines_of(taxes_csv({{"a,b", tessera::app::run::run_result_from_json(s), ""}, {"m", microbench_run(), ""}}));
  const auto total = fields_of(lines[1]);
  CHECK(total[0] == "a,b");
  CHECK(lines[1].rfind("\"a,b\",total,", 0) == 0);
  CHECK(fields_of(lines[3])[8] == "0.000");  // not -0.000
  const auto k0 = fields_of(lines[4]);
  CHECK(k0[3] == "gemm, \"fused\"");
  const auto k1 = fields_of(lines[5]);
  CHECK(k1[5] == "400.000");  // work still there
  CHECK(k1[9] == "0.000");    // taxes read back as 0
  CHECK(k1[11] == "0.000");
  const auto micro = fields_of(lines[7]);
  CHECK(micro[1] == "total");
  CHECK(micro[5].empty());  // no breakdown: empty category cells
  CHECK(micro[11].empty());
  CHECK(taxes_csv({}) == std::string(kHeader) + "\n");
}

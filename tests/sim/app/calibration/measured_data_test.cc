// Reading kernel-suite result files: what is used, what is skipped and why, and malformed files
// reported with the file and the key. Every document here is SYNTHETIC, made up by the test.
#include <doctest/doctest.h>

#include <string>

#include "sim/app/measured/measured_data_error.h"
#include "sim/app/measured/measured_quantity.h"
#include "sim/app/measured/measured_set.h"
#include "synthetic_results.h"

using namespace tessera::app::measured;
using tessera::test::synthetic_folder;
using tessera::test::synthetic_result;
using tessera::test::write_json;
using tessera::test::write_text;

namespace {

const nlohmann::json kHbmWorkload{{"kind", "microbench"}, {"op", "hbm_stream"}, {"bytes", "1073741824 B"}};

// The message of the MeasuredDataError that reading `folder` throws ("" when none).
std::string error_of_folder(const std::filesystem::path& folder) {
  try {
    (void)read_measured_folder(folder);
  } catch (const MeasuredDataError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a passed result is read with its timing and metrics and Tessera workload") {
  const nlohmann::json doc = synthetic_result("hbm_stream", "microbenchmark", kHbmWorkload, 1, 250000.0, {{"bytes", 1073741824}},
                                              {{"bandwidth_GBps_mean", 8589.9}});
  const ParsedFile parsed = parse_measured_case(doc, "x.json", "x.json");
  REQUIRE(parsed.is_result);
  const MeasuredCase& c = parsed.result;
  CHECK(c.case_name == "hbm_stream");
  CHECK(c.is_microbenchmark());
  CHECK(c.usable());
  CHECK(c.timing.mean_ns == 250000.0);
  CHECK(c.timing.samples == 3);
  CHECK(c.tessera_workload["op"] == "hbm_stream");
  CHECK(c.tessera_ranks == 1);
  CHECK(c.device == "synthetic device");
}

TEST_CASE("a folder is read recursively in path order and failed or shared-GPU or foreign documents are skipped and counted") {
  const auto dir = synthetic_folder("folder");
  write_json(dir / "b" / "hbm.json", synthetic_result("hbm_stream", "microbenchmark", kHbmWorkload, 1, 2e5));
  write_json(dir / "a.json", synthetic_result("gemm", "pattern", {{"kind", "gemm"}}, 1, 1e4));
  nlohmann::json failed = {{"schema", "tessera-kernels-result/1"}, {"case", "gemm"}, {"kind", "pattern"}, {"status", "failed"},
                           {"error", "the result check failed"}};
  write_json(dir / "failed.json", failed);  // a failed result needs no timing
  nlohmann::json shared = synthetic_result("gemm", "pattern", {{"kind", "gemm"}}, 2, 1e4);
  shared["shared_gpu"] = true;
  write_json(dir / "shared.json", shared);
  write_json(dir / "validation.json", {{"schema", "tessera-validation/1"}, {"cases", nlohmann::json::array()}});
  write_text(dir / "notes.txt", "not JSON and not *.json: never read");

  const MeasuredSet set = read_measured_folder(dir);
  REQUIRE(set.usable.size() == 2);
  CHECK(set.usable[0].case_name == "gemm");        // a.json sorts before b/hbm.json
  CHECK(set.usable[1].case_name == "hbm_stream");
  CHECK(set.patterns().size() == 1);
  CHECK(set.microbenchmarks().size() == 1);
  CHECK(set.skipped.size() == 3);
  CHECK(describe_skipped(set.skipped) == "3 skipped: 1 failed, 1 not a result, 1 shared_gpu");
  CHECK(describe_skipped({}) == "none skipped");
}

TEST_CASE("malformed result files are errors that name the file and the key") {
  SUBCASE("not JSON") {
    const auto dir = synthetic_folder("notjson");
    write_text(dir / "broken.json", "{\"schema\": \"tessera-kernels-result/1\", ");
    const std::string e = error_of_folder(dir);
    CHECK(e.find("broken.json") != std::string::npos);
    CHECK(e.find("not valid JSON") != std::string::npos);
  }
  SUBCASE("a missing timing.mean_ns") {
    const auto dir = synthetic_folder("nomean");
    nlohmann::json doc = synthetic_result("hbm_stream", "microbenchmark", kHbmWorkload, 1, 2e5);
    doc["timing"].erase("mean_ns");
    write_json(dir / "hbm.json", doc);
    const std::string e = error_of_folder(dir);
    CHECK(e.find("hbm.json: timing.mean_ns: missing required key") != std::string::npos);
  }
  SUBCASE("a mistyped key") {
    const auto dir = synthetic_folder("mistyped");
    nlohmann::json doc = synthetic_result("hbm_stream", "microbenchmark", kHbmWorkload, 1, 2e5);
    doc["ranks"] = "two";
    write_json(dir / "hbm.json", doc);
    CHECK(error_of_folder(dir).find("hbm.json: ranks: expected a positive integer, got \"two\"") != std::string::npos);
  }
  SUBCASE("no schema, and a newer schema version") {
    const auto dir = synthetic_folder("schema");
    write_json(dir / "plain.json", {{"case", "gemm"}});
    CHECK(error_of_folder(dir).find("plain.json: schema: missing required key") != std::string::npos);
    const auto dir2 = synthetic_folder("schema2");
    nlohmann::json doc = synthetic_result("gemm", "pattern", {{"kind", "gemm"}}, 1, 1e4);
    doc["schema"] = "tessera-kernels-result/2";
    write_json(dir2 / "new.json", doc);
    CHECK(error_of_folder(dir2).find("new.json: schema: unsupported version") != std::string::npos);
  }
  SUBCASE("a workload without its kind") {
    const auto dir = synthetic_folder("nokind");
    write_json(dir / "w.json", synthetic_result("gemm", "pattern", {{"m", 64}}, 1, 1e4));
    CHECK(error_of_folder(dir).find("w.json: tessera.workload.kind: missing required key") != std::string::npos);
  }
  SUBCASE("a folder that does not exist") {
    CHECK(error_of_folder("/nonexistent/tessera/results").find("no such folder") != std::string::npos);
  }
}

TEST_CASE("the measured number of each case: times and per-operation latencies and rates") {
  const auto parse = [](const nlohmann::json& doc) { return parse_measured_case(doc, "r.json", "r.json").result; };
  const MeasuredCase hbm = parse(synthetic_result("hbm_stream", "microbenchmark", kHbmWorkload, 1, 2e5));
  CHECK(measured_value(hbm, *case_quantity("hbm_stream")) == 2e5);

  // A latency: the metric when there is one, else the mean time over the operations of an iteration.
  const nlohmann::json atomic{{"kind", "microbench"}, {"op", "atomic_add"}};
  CHECK(measured_value(parse(synthetic_result("atomic_add", "microbenchmark", atomic, 1, 1e5, {{"iterations", 100}},
                                              {{"latency_ns_mean", 812.5}})),
                       *case_quantity("atomic_add")) == 812.5);
  CHECK(measured_value(parse(synthetic_result("atomic_add", "microbenchmark", atomic, 1, 1e5, {{"iterations", 100}})),
                       *case_quantity("atomic_add")) == 1000.0);
  // A ping-pong iteration is a round trip: one way is half of it.
  const nlohmann::json pingpong{{"kind", "microbench"}, {"op", "flag_pingpong"}};
  CHECK(measured_value(parse(synthetic_result("flag_pingpong", "microbenchmark", pingpong, 2, 1e5, {{"iterations", 100}})),
                       *case_quantity("flag_pingpong")) == 500.0);

  // matrix_rate: TFLOP/s to FLOP/s; without the metric an error names the file and what it needs.
  const MeasuredCase rate = parse(synthetic_result("matrix_rate", "microbenchmark", kHbmWorkload, 1, 1e3, {{"dtype", "bf16"}}, {{"tflops", 700.0}}));
  CHECK(measured_value(rate, *case_quantity("matrix_rate")) == doctest::Approx(700e12));
  CHECK(matrix_rate_dtype(rate) == "bf16");
  const MeasuredCase no_rate = parse(synthetic_result("matrix_rate", "microbenchmark", kHbmWorkload, 1, 1e3));
  CHECK_THROWS_WITH_AS(measured_value(no_rate, *case_quantity("matrix_rate")),
                       doctest::Contains("r.json: metrics.matrix_TFLOPs_mean: a matrix_rate result needs one of"), MeasuredDataError);
  CHECK(case_quantity("gemm") == nullptr);
}

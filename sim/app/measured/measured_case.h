#pragma once
// One result file of the HIP kernel suite (schema "tessera-kernels-result/1", written by
// kernels/harness/result.hip): the case, how it ran, its timing and metrics, and the Tessera
// workload of the same computation. Only the fields calibrate and validate read are kept.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/app/measured/kernel_boundaries.h"
#include "sim/app/measured/library_kernel_times.h"

namespace tessera::app::measured {

inline constexpr const char* kResultSchema = "tessera-kernels-result/1";
inline constexpr const char* kResultSchemaFamily = "tessera-kernels-result/";

struct MeasuredTiming {
  double mean_ns = 0;    // the mean of the per-iteration device-event times: the public benchmarks' convention
  double median_ns = 0;
  double min_ns = 0;
  double max_ns = 0;
  std::size_t samples = 0;
};

struct MeasuredCase {
  std::filesystem::path file;   // as found under the measured folder
  std::string display_name;     // the file relative to the measured folder, for tables and comments
  std::string case_name;        // "hbm_stream", "ag_gemm", ...
  std::string kind;             // "microbenchmark" or "pattern"
  std::string status;           // "passed" or "failed"
  bool shared_gpu = false;      // ranks shared one GPU: a functional check, never a timing
  std::uint32_t ranks = 1;
  std::string device;           // the first rank's device name
  nlohmann::json params;        // the case's resolved parameters
  MeasuredTiming timing;        // only for passed cases
  nlohmann::json metrics;       // case-specific (bandwidth_GBps_mean, latency_ns, ...); an object
  nlohmann::json tessera_workload;  // the `workload:` map of a Tessera run config for the same computation
  std::uint32_t tessera_ranks = 1;

  bool usable() const { return status == "passed" && !shared_gpu; }
  bool is_microbenchmark() const { return kind == "microbenchmark"; }
  bool is_pattern() const { return kind == "pattern"; }
};

// What a parsed file is: a result to use, or another JSON document to leave alone (a report
// written into the same folder, say), with the reason.
struct ParsedFile {
  bool is_result = false;
  std::string not_a_result_reason;
  MeasuredCase result;
  // A document of kLibraryKernelTimesSchema (not a result): its cases.
  std::vector<LibraryKernelTime> kernel_times;
  // A document of kKernelBoundariesSchema (not a result).
  std::optional<KernelBoundaries> kernel_boundaries;
};

// Reads one result document. Throws MeasuredDataError naming `display_name` and the key when a
// required key is missing or has the wrong type, or the schema version is not supported.
// Failed and shared-GPU results need only schema, case, kind and status (they are skipped).
ParsedFile parse_measured_case(const nlohmann::json& document, const std::filesystem::path& file,
                               const std::string& display_name);

// The same from the file's text; text that is not JSON is a MeasuredDataError too.
ParsedFile parse_measured_file(const std::filesystem::path& file, const std::string& display_name);
// The same for the file's text, read already (the fuzz target feeds it): a key twice in one
// object, a number beyond a double and malformed JSON are MeasuredDataErrors with the line.
ParsedFile parse_measured_text(std::string_view text, const std::filesystem::path& file, const std::string& display_name);

}  // namespace tessera::app::measured

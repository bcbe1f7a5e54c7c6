#pragma once
// SYNTHETIC kernel-suite results for the tests of calibrate and validate: made up by the tests
// from known parameters or chosen times, never measured, and written only to temporary folders.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tessera::test {

// A fresh temporary folder per call.
inline std::filesystem::path synthetic_folder(const std::string& name) {
  static std::atomic<int> counter{0};
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("tessera-synthetic-{}-{}-{}", ::getpid(), name, counter++);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A passed result document in the schema of kernels/harness/result.hip, with `mean_ns` as the
// mean (and median) of the timed iterations.
inline nlohmann::json synthetic_result(const std::string& case_name, const std::string& kind, const nlohmann::json& workload,
                                       unsigned ranks, double mean_ns, const nlohmann::json& params = nlohmann::json::object(),
                                       const nlohmann::json& metrics = nlohmann::json::object()) {
  return {{"schema", "tessera-kernels-result/1"},
          {"case", case_name},
          {"kind", kind},
          {"description", "SYNTHETIC: made up by a test"},
          {"ranks", ranks},
          {"device", "synthetic device"},
          {"shared_gpu", false},
          {"status", "passed"},
          {"params", params},
          {"timing", {{"warmup", 1}, {"repeats", 3}, {"median_ns", mean_ns}, {"mean_ns", mean_ns}, {"min_ns", mean_ns},
                      {"max_ns", mean_ns}, {"samples_ns", {mean_ns, mean_ns, mean_ns}}}},
          {"metrics", metrics},
          {"tessera", {{"workload", workload}, {"ranks", ranks}}}};
}

inline void write_json(const std::filesystem::path& path, const nlohmann::json& document) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << document.dump(1);
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

}  // namespace tessera::test

#include "sim/app/measured/library_kernel_times.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "sim/app/measured/measured_data_error.h"

namespace tessera::app::measured {
namespace {

// "key" at the top level, "cases[3].key" inside a case.
std::string key_path(const std::string& path, const char* key) { return path.empty() ? key : path + "." + key; }

const nlohmann::json& need(const nlohmann::json& object, const char* key, const std::string& file, const std::string& path) {
  const auto it = object.find(key);
  if (it == object.end()) throw MeasuredDataError(file, key_path(path, key), "missing required key");
  return *it;
}

std::string text(const nlohmann::json& object, const char* key, const std::string& file, const std::string& path) {
  const nlohmann::json& v = need(object, key, file, path);
  if (!v.is_string()) throw MeasuredDataError(file, key_path(path, key), fmt::format("expected a string, got {}", v.dump()));
  return v.get<std::string>();
}

double number(const nlohmann::json& object, const char* key, const std::string& file, const std::string& path) {
  const nlohmann::json& v = need(object, key, file, path);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0) {
    throw MeasuredDataError(file, key_path(path, key), fmt::format("expected a positive number, got {}", v.dump()));
  }
  return v.get<double>();
}

// NCCL_ALGO / NCCL_PROTO as forced in the run's environment: one known name, else "auto".
std::string forced(const nlohmann::json& environment, const char* variable, std::initializer_list<const char*> names) {
  const auto it = environment.find(variable);
  if (it == environment.end() || !it->is_string()) return "auto";
  std::string value = it->get<std::string>();
  std::transform(value.begin(), value.end(), value.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* n : names) {
    if (value == n) return value;
  }
  return "auto";
}

}  // namespace

std::vector<LibraryKernelTime> parse_library_kernel_times(const nlohmann::json& document, const std::string& file) {
  if (!document.is_object()) throw MeasuredDataError(file, "", "expected a JSON object at the top level");
  const nlohmann::json& environment = need(document, "environment", file, "");
  if (!environment.is_object()) throw MeasuredDataError(file, "environment", "expected an object");
  const nlohmann::json& world = need(document, "world_size", file, "");
  if (!world.is_number_integer() || world.get<std::int64_t>() < 1 || world.get<std::int64_t>() > 1024) {
    throw MeasuredDataError(file, "world_size", fmt::format("expected a count of GPUs (1..1024), got {}", world.dump()));
  }
  const std::string device = text(document, "device", file, "");
  text(document, "nccl", file, "");  // the library's version: required, as every measured file names what ran
  const std::string dtype = text(document, "dtype", file, "");
  const std::string algorithm = forced(environment, "NCCL_ALGO", {"ring", "tree"});
  const std::string protocol = forced(environment, "NCCL_PROTO", {"ll", "ll128", "simple"});
  const nlohmann::json& cases = need(document, "cases", file, "");
  if (!cases.is_array()) throw MeasuredDataError(file, "cases", "expected an array");
  std::vector<LibraryKernelTime> out;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string path = fmt::format("cases[{}]", i);
    const nlohmann::json& c = cases[i];
    if (!c.is_object()) throw MeasuredDataError(file, path, "expected an object");
    LibraryKernelTime t;
    t.display_name = file;
    t.device = device;
    t.algorithm = algorithm;
    t.protocol = protocol;
    t.dtype = dtype;
    t.ranks = static_cast<std::uint32_t>(world.get<std::uint64_t>());
    t.op = text(c, "op", file, path);
    if (t.op != "all_gather" && t.op != "reduce_scatter" && t.op != "all_reduce") {
      throw MeasuredDataError(file, path + ".op", fmt::format("expected all_gather, reduce_scatter or all_reduce, got \"{}\"", t.op));
    }
    const nlohmann::json& size = need(c, "size_bytes", file, path);
    if (!size.is_number_integer() || size.get<std::int64_t>() < 1) {
      throw MeasuredDataError(file, path + ".size_bytes", fmt::format("expected a positive count of bytes, got {}", size.dump()));
    }
    t.size_bytes = size.get<std::uint64_t>();
    t.kernel_ns = number(c, "kernel_us_median", file, path) * 1e3;
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace tessera::app::measured

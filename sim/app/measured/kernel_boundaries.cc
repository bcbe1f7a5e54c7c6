#include "sim/app/measured/kernel_boundaries.h"

#include <cmath>

#include <fmt/format.h>

#include "sim/app/measured/measured_data_error.h"

namespace tessera::app::measured {
namespace {

std::string key_path(const std::string& path, const char* key) { return path.empty() ? key : path + "." + key; }

const nlohmann::json& need(const nlohmann::json& object, const char* key, const std::string& file, const std::string& path,
                           nlohmann::json::value_t type, const char* what) {
  if (!object.is_object()) throw MeasuredDataError(file, path, "expected an object");
  const auto it = object.find(key);
  if (it == object.end()) throw MeasuredDataError(file, key_path(path, key), "missing required key");
  const bool numeric = type == nlohmann::json::value_t::number_float;
  if (numeric ? !it->is_number() : it->type() != type) {
    throw MeasuredDataError(file, key_path(path, key), fmt::format("expected {}, got {}", what, it->dump()));
  }
  return *it;
}

// A time in ns: finite and not negative (a span may be 0: starts within one tick of the timer).
double nanoseconds(const nlohmann::json& object, const char* key, const std::string& file, const std::string& path) {
  const double v = need(object, key, file, path, nlohmann::json::value_t::number_float, "a time in ns").get<double>();
  if (!std::isfinite(v) || v < 0) throw MeasuredDataError(file, key_path(path, key), fmt::format("expected a time in ns (0 or more), got {}", v));
  return v;
}

}  // namespace

KernelBoundaries parse_kernel_boundaries(const nlohmann::json& document, const std::string& file) {
  using T = nlohmann::json::value_t;
  if (!document.is_object()) throw MeasuredDataError(file, "", "expected a JSON object at the top level");
  KernelBoundaries out;
  out.display_name = file;
  out.device = need(document, "device", file, "", T::string, "a string").get<std::string>();
  const nlohmann::json& teardown = need(document, "teardown", file, "", T::object, "an object");
  const double direct = nanoseconds(need(teardown, "direct", file, "teardown", T::object, "an object"), "mean_ns", file, "teardown.direct");
  const double stream = nanoseconds(need(teardown, "stream", file, "teardown", T::object, "an object"), "mean_ns", file, "teardown.stream");
  if (stream <= direct) {
    throw MeasuredDataError(file, "teardown.stream.mean_ns",
                            fmt::format("{} ns is not above teardown.direct.mean_ns ({} ns): the stream's write cannot come "
                                        "before the kernel's own",
                                        stream, direct));
  }
  out.teardown_ns = stream - direct;
  out.queued_gap_ns = nanoseconds(need(document, "queued", file, "", T::object, "an object"), "median_ns", file, "queued");
  const nlohmann::json& dispatch = need(document, "dispatch", file, "", T::array, "an array");
  for (std::size_t i = 0; i < dispatch.size(); ++i) {
    const std::string path = fmt::format("dispatch[{}]", i);
    const nlohmann::json& w = need(dispatch[i], "workgroups", file, path, T::number_float, "a count of workgroups");
    if (!w.is_number_integer() || w.get<std::int64_t>() < 1 || w.get<std::int64_t>() > (1 << 24)) {
      throw MeasuredDataError(file, path + ".workgroups", fmt::format("expected a count of workgroups (1..16777216), got {}", w.dump()));
    }
    out.dispatch.push_back({static_cast<std::uint32_t>(w.get<std::uint64_t>()), nanoseconds(dispatch[i], "median_ns", file, path)});
  }
  return out;
}

}  // namespace tessera::app::measured

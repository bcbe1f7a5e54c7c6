#include "sim/app/report/summary_fields.h"

#include <cmath>

namespace tessera::app::report {

std::optional<double> number_at(const nlohmann::json& obj, std::string_view key) {
  if (!obj.is_object()) return std::nullopt;
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<std::string> string_at(const nlohmann::json& obj, std::string_view key) {
  if (!obj.is_object()) return std::nullopt;
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::optional<double> category_ns(const nlohmann::json& scope, workloads::replay::TimeCategory c) {
  if (!scope.is_object()) return std::nullopt;
  const auto group = scope.find(workloads::replay::is_tax(c) ? "taxes_ns" : "work_ns");
  if (group == scope.end()) return std::nullopt;
  return number_at(*group, workloads::replay::to_string(c));
}

bool has_attribution(const nlohmann::json& scope) {
  return scope.is_object() && (scope.contains("taxes_ns") || scope.contains("work_ns"));
}

}  // namespace tessera::app::report

#include "sim/app/report/taxes_csv.h"

#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "sim/app/report/category_style.h"
#include "sim/app/report/summary_fields.h"

namespace tessera::app::report {
namespace {

// RFC 4180: quote a field that holds a separator, a quote or a line break.
std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string csv_number(std::optional<double> v) {
  if (!v) return "";
  std::string s = fmt::format("{:.3f}", *v);
  if (s == "-0.000") s = "0.000";  // a rounding residue below zero is still zero
  return s;
}

std::string csv_rank(const nlohmann::json& scope) {
  const std::optional<double> r = number_at(scope, "rank");
  return r ? fmt::format("{}", static_cast<long long>(*r)) : "";
}

void append_row(std::string& out, const std::string& run, std::string_view scope, const std::string& rank,
                const std::string& kernel, std::optional<double> span_ns, const nlohmann::json* parts) {
  out += csv_field(run);
  out += ',';
  out += scope;
  out += ',';
  out += rank;
  out += ',';
  out += csv_field(kernel);
  out += ',';
  out += csv_number(span_ns);
  for (TimeCategory c : kAllCategories) {
    out += ',';
    if (parts != nullptr) out += csv_number(category_ns(*parts, c));
  }
  out += '\n';
}

std::optional<double> kernel_span_ns(const nlohmann::json& k) {
  const std::optional<double> launch = number_at(k, "launch_ns");
  const std::optional<double> end = number_at(k, "end_ns");
  if (!launch || !end) return std::nullopt;
  return *end - *launch;
}

}  // namespace

std::string taxes_csv(const std::vector<LabeledSummary>& runs) {
  std::string out = "run,scope,rank,kernel,span_ns";
  for (TimeCategory c : kAllCategories) out += fmt::format(",{}_ns", workloads::replay::to_string(c));
  out += '\n';
  for (const LabeledSummary& run : runs) {
    const nlohmann::json& s = run.summary;
    const bool attributed = s.is_object() && s.contains("taxes_ns");
    append_row(out, run.label, "total", "", "", number_at(s, "makespan_ns"), attributed ? &s : nullptr);
    if (!attributed) continue;
    if (const auto it = s.find("per_gpu"); it != s.end() && it->is_array()) {
      for (const nlohmann::json& g : *it) append_row(out, run.label, "gpu", csv_rank(g), "", number_at(g, "span_ns"), &g);
    }
    if (const auto it = s.find("kernels"); it != s.end() && it->is_array()) {
      for (const nlohmann::json& k : *it) {
        append_row(out, run.label, "kernel", csv_rank(k), string_at(k, "name").value_or(""), kernel_span_ns(k), &k);
      }
    }
  }
  return out;
}

}  // namespace tessera::app::report

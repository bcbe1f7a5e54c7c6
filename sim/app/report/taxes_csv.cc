#include "sim/app/report/taxes_csv.h"

#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "sim/app/report/category_style.h"

namespace tessera::app::report {
namespace {

using workloads::replay::CategoryTimes;

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

void append_row(std::string& out, const std::string& run, std::string_view scope, const std::string& rank,
                const std::string& kernel, double span_ns, const CategoryTimes* parts) {
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
    if (parts != nullptr) out += csv_number(run::category_ns(*parts, c));
  }
  out += '\n';
}

}  // namespace

std::string taxes_csv(const std::vector<LabeledRun>& runs) {
  std::string out = "run,scope,rank,kernel,span_ns";
  for (TimeCategory c : kAllCategories) out += fmt::format(",{}_ns", workloads::replay::to_string(c));
  out += '\n';
  for (const LabeledRun& run : runs) {
    const run::RunResult& r = run.result;
    const std::optional<workloads::Breakdown>& b = r.result.breakdown;
    append_row(out, run.label, "total", "", "", r.makespan_ns(), b ? &b->times : nullptr);
    if (!b) continue;
    // Each GPU's breakdown covers [0, makespan].
    for (std::uint32_t rank = 0; rank < b->gpu_times.size(); ++rank) {
      append_row(out, run.label, "gpu", std::to_string(rank), "", r.makespan_ns(), &b->gpu_times[rank]);
    }
    for (const workloads::KernelTiming& k : b->kernels) {
      append_row(out, run.label, "kernel", std::to_string(k.rank), k.name,
                 static_cast<double>(k.end_ps) / 1e3 - static_cast<double>(k.launch_ps) / 1e3, &k.times);
    }
  }
  return out;
}

}  // namespace tessera::app::report

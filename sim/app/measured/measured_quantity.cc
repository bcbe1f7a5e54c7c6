#include "sim/app/measured/measured_quantity.h"

#include <array>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/app/measured/measured_data_error.h"

namespace tessera::app::measured {
namespace {

using Q = Quantity;

// Bandwidth cases: the timed span against Tessera's timed span (docs/config-reference.md,
// "kind: microbench"). Latency cases: per operation against Tessera's latency_ns.
// matrix_rate's metric names are provisional (the tile-loop case of the suite is in progress):
// change them here only.
using TF = TesseraFigure;
const std::array<CaseQuantity, 14> kCaseQuantities{{
    {"hbm_stream", Q::kTimeNs, {}, 1.0, {}, 1.0, {}, TF::kTimedNs},
    {"l2_bandwidth", Q::kTimeNs, {}, 1.0, {}, 1.0, {}, TF::kTimedNs},
    {"remote_load", Q::kTimeNs, {}, 1.0, {}, 1.0, {}, TF::kTimedNs},
    {"remote_store", Q::kTimeNs, {}, 1.0, {}, 1.0, {}, TF::kTimedNs},
    {"all_load", Q::kTimeNs, {}, 1.0, {}, 1.0, {}, TF::kTimedNs},
    {"all_store", Q::kTimeNs, {}, 1.0, {}, 1.0, {}, TF::kTimedNs},
    {"p2p_copy", Q::kTimeNs, {}, 1.0, {}, 1.0, {}, TF::kTimedNs},
    {"atomic_add", Q::kLatencyNs, {"latency_ns_mean"}, 1.0, "iterations", 1.0, {"latency_ns"}, TF::kLatencyNs},
    {"atomic_xchg", Q::kLatencyNs, {"latency_ns_mean"}, 1.0, "iterations", 1.0, {"latency_ns"}, TF::kLatencyNs},
    // One way: an iteration is a round trip.
    {"flag_pingpong", Q::kLatencyNs, {"latency_ns_mean"}, 1.0, "iterations", 2.0, {"latency_ns"}, TF::kLatencyNs},
    {"launch_latency", Q::kLatencyNs, {"latency_ns_mean"}, 1.0, "iterations", 1.0, {"latency_ns"}, TF::kLatencyNs},
    {kMatrixRateCase, Q::kFlopsPerSecond, {"matrix_TFLOPs_mean", "tflops_mean", "tflops"}, 1e12, {}, 1.0, {}, {}},
    {kAttentionStepCase, Q::kFlopsPerSecond, {"matrix_TFLOPs_mean"}, 1e12, {}, 1.0, {}, {}},
    // The GEMM K-step's load round trip (ns per step); not a Tessera workload (kstep_fit.cc).
    {"kstep_load", Q::kLatencyNs, {"ns_per_step_mean"}, 1.0, {}, 1.0, {}, {}},
}};

std::optional<double> positive_metric(const MeasuredCase& r, std::string_view name) {
  const auto it = r.metrics.find(name);
  if (it == r.metrics.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) {
    throw MeasuredDataError(r.display_name, fmt::format("metrics.{}", name), fmt::format("expected a number, got {}", it->dump()));
  }
  const double v = it->get<double>();
  if (!(v > 0)) throw MeasuredDataError(r.display_name, fmt::format("metrics.{}", name), fmt::format("expected a positive number, got {}", v));
  return v;
}

}  // namespace

std::string_view name_of(TesseraFigure figure) {
  switch (figure) {
    case TesseraFigure::kNone: return "";
    case TesseraFigure::kTimedNs: return "timed_ns";
    case TesseraFigure::kLatencyNs: return "latency_ns";
  }
  return "";
}

const CaseQuantity* case_quantity(std::string_view case_name) {
  for (const CaseQuantity& q : kCaseQuantities) {
    if (q.case_name == case_name) return &q;
  }
  return nullptr;
}

std::optional<double> numeric_param(const MeasuredCase& r, std::string_view key) {
  const auto it = r.params.find(key);
  if (it == r.params.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::optional<std::string> text_param(const MeasuredCase& r, std::string_view key) {
  const auto it = r.params.find(key);
  if (it == r.params.end() || it->is_null()) return std::nullopt;
  return it->is_string() ? it->get<std::string>() : it->dump();
}

double measured_value(const MeasuredCase& r, const CaseQuantity& q) {
  if (q.quantity == Q::kTimeNs) return r.timing.mean_ns;
  for (std::string_view m : q.metrics) {
    if (const auto v = positive_metric(r, m)) return *v * q.metric_scale;
  }
  if (!q.ops_param.empty()) {
    if (const auto ops = numeric_param(r, q.ops_param); ops && *ops >= 1) return r.timing.mean_ns / (q.per_iteration_ops * *ops);
  }
  for (std::string_view m : q.fallback_metrics) {
    if (const auto v = positive_metric(r, m)) return *v * q.metric_scale;
  }
  std::vector<std::string> ways;
  for (std::string_view m : q.metrics) ways.push_back(fmt::format("metrics.{}", m));
  if (!q.ops_param.empty()) ways.push_back(fmt::format("params.{} (with timing.mean_ns)", q.ops_param));
  for (std::string_view m : q.fallback_metrics) ways.push_back(fmt::format("metrics.{}", m));
  throw MeasuredDataError(r.display_name, ways.empty() ? "metrics" : ways.front(),
                          fmt::format("a {} result needs one of: {}", q.case_name, fmt::join(ways, ", ")));
}

std::string matrix_rate_dtype(const MeasuredCase& r) {
  if (const auto d = text_param(r, "dtype")) return *d;
  const auto it = r.tessera_workload.find("dtype");
  if (it != r.tessera_workload.end() && it->is_string()) return it->get<std::string>();
  return "fp16";
}

std::vector<std::string> inner_loop_kernels(const MeasuredCase& r) {
  std::vector<std::string> names;
  const auto it = r.tessera_workload.find("kernel");
  if (it == r.tessera_workload.end() || !it->is_string()) return names;
  const std::string text = it->get<std::string>();
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    if (comma > start) names.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return names;
}

}  // namespace tessera::app::measured

#pragma once
// What number of a microbenchmark result a fit uses, and which field of a Tessera run summary
// predicts it: one small table (measured_quantity.cc), the only place that knows the suite's
// metric names, so that a renamed metric is a one-line change.
//
// Convention: times are the mean of the per-iteration device-event times (timing.mean_ns), as
// the public benchmarks report them; validate compares against the same statistic.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/app/measured/measured_case.h"

namespace tessera::app::measured {

enum class Quantity {
  kTimeNs,         // the timed span of one iteration (bandwidth cases)
  kLatencyNs,      // per operation: one atomic, one kernel launch, one way of a ping-pong
  kFlopsPerSecond  // an achieved rate (matrix_rate)
};

// The figures of a Tessera microbenchmark run (workloads::Measurement) a measured quantity is
// compared with.
enum class TesseraFigure {
  kNone,
  kTimedNs,   // the timed span
  kLatencyNs  // per operation
};
std::string_view name_of(TesseraFigure figure);  // "timed_ns", "latency_ns" (as the run's JSON names them)

struct CaseQuantity {
  std::string_view case_name;
  Quantity quantity;
  // Metrics tried first, in order, each times `metric_scale` (e.g. TFLOP/s -> FLOP/s).
  std::vector<std::string_view> metrics;
  double metric_scale = 1.0;
  // For latencies, when no metric is there: timing.mean_ns / (per_iteration_ops x params[ops_param]).
  std::string_view ops_param;
  double per_iteration_ops = 1.0;
  // Metrics tried last (a latency derived from another statistic than the mean).
  std::vector<std::string_view> fallback_metrics;
  // The figure of Tessera's microbenchmark run that predicts it; kNone when Tessera has no such
  // microbenchmark (matrix_rate is compared with the system's peak instead).
  TesseraFigure tessera_figure = TesseraFigure::kNone;
};

// nullptr for a case no fit reads.
const CaseQuantity* case_quantity(std::string_view case_name);

// The measured number. Throws MeasuredDataError naming the file and the metric when the result
// holds none of the ways to get it.
double measured_value(const MeasuredCase& result, const CaseQuantity& quantity);

// A parameter of the result as a number (integers, reals, or text like "256 MiB" are not
// converted: nullopt) and as text.
std::optional<double> numeric_param(const MeasuredCase& result, std::string_view key);
std::optional<std::string> text_param(const MeasuredCase& result, std::string_view key);

// matrix_rate: the data type of the tile loop (params.dtype, fp16 when absent).
inline constexpr std::string_view kMatrixRateCase = "matrix_rate";
// attention_step: the attention kernel's KV step on a resident block (metrics.matrix_TFLOPs_mean).
inline constexpr std::string_view kAttentionStepCase = "attention_step";
// The dtype of a matrix_rate / attention_step result: params.dtype, else tessera.workload.dtype, else fp16.
std::string matrix_rate_dtype(const MeasuredCase& result);
// The Tessera kernels whose inner loop a matrix_rate / attention_step result times:
// tessera.workload.kernel, a comma-separated list of kernel names; empty when absent.
std::vector<std::string> inner_loop_kernels(const MeasuredCase& result);

}  // namespace tessera::app::measured

#include "sim/app/validation/validation_summary.h"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/app/run/version.h"

namespace tessera::app::validation {
namespace {

nlohmann::json optional_number(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

// The library collectives: their own summary keys (sizes from kSmallCollectiveBytes up, and
// below) and array, apart from the pattern cases'.
void add_collectives_json(const ValidationReport& r, nlohmann::json& j) {
  const CollectiveSummary& s = r.collective_summary;
  const auto worst = [&](const CollectiveClassSummary& c) {
    return c.worst_case ? nlohmann::json(r.collectives[*c.worst_case].source->display_name) : nlohmann::json(nullptr);
  };
  j["collectives_small_below_bytes"] = kSmallCollectiveBytes;
  j["collectives_predicted_statistic"] =
      fmt::format("collective.time_us of kind collective, library nccl, host one_thread, {} iterations up to {} bytes, {} above",
                  kSteadyStateIterations, kSteadyStateMaxBytes, kLargeIterations);
  j["collectives_mape_percent"] = optional_number(s.large.mape_percent);
  j["collectives_max_abs_error_percent"] = optional_number(s.large.max_abs_error_percent);
  j["collectives_worst_case"] = worst(s.large);
  j["collectives_library_model_mape_percent"] = optional_number(s.large.library_model_mape_percent);
  j["collectives_small_mape_percent"] = optional_number(s.small.mape_percent);
  j["collectives_small_max_abs_error_percent"] = optional_number(s.small.max_abs_error_percent);
  j["collectives_small_worst_case"] = worst(s.small);
  j["collectives_small_library_model_mape_percent"] = optional_number(s.small.library_model_mape_percent);
  j["collective_cases_total"] = s.cases;
  j["collective_cases_predicted"] = s.predicted;
  j["collective_cases_large"] = s.large.cases;
  j["collective_cases_small"] = s.small.cases;
  nlohmann::json cases = nlohmann::json::array();
  for (const CollectiveCase& c : r.collectives) {
    const auto model_error = c.library_model_error_percent();
    nlohmann::json e{{"file", c.source->display_name},
                     {"case", c.source->case_name},
                     {"op", c.collective.op},
                     {"ranks", c.collective.ranks},
                     {"size_bytes", c.collective.size_bytes},
                     {"dtype", c.collective.dtype},
                     {"algorithm_forced", c.collective.algorithm},
                     {"protocol_forced", c.collective.protocol},
                     {"workload", c.workload},
                     {"device", c.source->device},
                     {"measured_ns", c.measured_ns},
                     {"predicted_ns", optional_number(c.predicted_ns)},
                     {"error_percent", c.predicted_ns ? nlohmann::json(c.error_percent()) : nlohmann::json(nullptr)},
                     {"library_model_ns", c.figures && c.figures->library_model_time_us > 0
                                              ? nlohmann::json(c.figures->library_model_time_us * 1e3)
                                              : nlohmann::json(nullptr)},
                     {"library_model_error_percent", optional_number(model_error)}};
    if (c.figures) {
      e["algorithm"] = c.figures->algorithm;
      e["protocol"] = c.figures->protocol;
      e["channels"] = c.figures->channels;
    }
    if (!c.error.empty()) e["error"] = c.error;
    cases.push_back(std::move(e));
  }
  j["collectives"] = std::move(cases);
}

}  // namespace

ValidationSummary summarize(const std::vector<ValidationCase>& cases, const std::vector<VariantGroup>& groups) {
  ValidationSummary s;
  s.cases = cases.size();
  double sum_abs = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!cases[i].predicted_ns) continue;
    ++s.predicted;
    const double abs_error = std::abs(cases[i].error_percent());
    sum_abs += abs_error;
    if (!s.max_abs_error_percent || abs_error > *s.max_abs_error_percent) {
      s.max_abs_error_percent = abs_error;
      s.worst_case = i;
    }
  }
  if (s.predicted > 0) s.mape_percent = sum_abs / static_cast<double>(s.predicted);
  for (const VariantGroup& g : groups) {
    ++s.groups;
    s.groups_agreeing += g.agrees() ? 1 : 0;
    if (g.significant()) {
      ++s.significant_groups;
      s.significant_agreeing += g.agrees() ? 1 : 0;
    }
  }
  if (s.groups > 0) s.order_agreement = static_cast<double>(s.groups_agreeing) / static_cast<double>(s.groups);
  if (s.significant_groups > 0) {
    s.order_agreement_significant = static_cast<double>(s.significant_agreeing) / static_cast<double>(s.significant_groups);
  }
  return s;
}

std::string order_text(const std::vector<std::string>& variants) { return fmt::format("{}", fmt::join(variants, " < ")); }

nlohmann::json validation_json(const ValidationReport& r) {
  const ValidationSummary& s = r.summary;
  nlohmann::json j;
  j["schema"] = "tessera-validation/1";  // not a kernel-suite result: read_measured_folder skips it
  j["tessera_version"] = run::kVersion;
  j["system"] = r.system_argument;
  j["system_name"] = r.system_name;
  j["measured"] = r.measured_folder;
  j["measured_statistic"] = "timing.mean_ns";
  j["predicted_statistic"] = "makespan_ns";
  j["error_definition"] = "100 * (predicted_ns - measured_ns) / measured_ns";
  j["significant_gap_percent"] = kSignificantGapPercent;
  j["mape_percent"] = optional_number(s.mape_percent);
  j["max_abs_error_percent"] = optional_number(s.max_abs_error_percent);
  j["worst_case"] = s.worst_case ? nlohmann::json(r.cases[*s.worst_case].source->display_name) : nlohmann::json(nullptr);
  j["order_agreement"] = optional_number(s.order_agreement);
  j["order_groups"] = s.groups;
  j["order_groups_agreeing"] = s.groups_agreeing;
  j["order_agreement_significant"] = optional_number(s.order_agreement_significant);
  j["significant_groups"] = s.significant_groups;
  j["significant_groups_agreeing"] = s.significant_agreeing;
  j["cases_total"] = s.cases;
  j["cases_predicted"] = s.predicted;
  j["microbenchmark_results_not_validated"] = r.microbenchmark_results;
  if (r.max_mape_percent) {
    j["max_mape_percent"] = *r.max_mape_percent;
    j["passed"] = s.mape_percent.has_value() && *s.mape_percent <= *r.max_mape_percent;
  }
  nlohmann::json cases = nlohmann::json::array();
  for (const ValidationCase& c : r.cases) {
    nlohmann::json e{{"file", c.source->display_name},
                     {"case", c.source->case_name},
                     {"variant", c.variant},
                     {"params", c.params_text},
                     {"workload", c.workload},
                     {"ranks", c.source->tessera_ranks},
                     {"device", c.source->device},
                     {"measured_ns", c.measured_ns},
                     {"predicted_ns", optional_number(c.predicted_ns)},
                     {"error_percent", c.predicted_ns ? nlohmann::json(c.error_percent()) : nlohmann::json(nullptr)}};
    if (!c.error.empty()) e["error"] = c.error;
    cases.push_back(std::move(e));
  }
  j["cases"] = std::move(cases);
  nlohmann::json groups = nlohmann::json::array();
  for (const VariantGroup& g : r.groups) {
    nlohmann::json variants = nlohmann::json::array();
    for (const VariantTime& v : g.variants) {
      variants.push_back({{"variant", v.variant}, {"measured_ns", v.measured_ns}, {"predicted_ns", v.predicted_ns}, {"results", v.results}});
    }
    groups.push_back({{"case", g.case_name},
                      {"params", g.params_text},
                      {"ranks", g.ranks},
                      {"variants", std::move(variants)},
                      {"measured_fastest", g.measured_fastest()},
                      {"predicted_fastest", g.predicted_fastest()},
                      {"predicted_order", g.predicted_order},
                      {"measured_gap_percent", g.measured_gap_percent()},
                      {"significant", g.significant()},
                      {"agrees", g.agrees()}});
  }
  j["groups"] = std::move(groups);
  add_collectives_json(r, j);
  nlohmann::json skipped = nlohmann::json::array();
  for (const measured::SkippedFile& f : r.skipped) skipped.push_back({{"file", f.display_name}, {"reason", f.reason}});
  j["skipped"] = std::move(skipped);
  return j;
}

}  // namespace tessera::app::validation

#pragma once
// The numbers a validation is judged by: the mean absolute percentage error over the cases, the
// worst case, and the order agreement (the share of variant groups whose fastest variant Tessera
// predicts), overall and where the measured gap exceeds 5%; and the JSON of `validate --json`
// and validation.json.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/app/measured/measured_set.h"
#include "sim/app/validation/collective_cases.h"
#include "sim/app/validation/validation_case.h"
#include "sim/app/validation/variant_groups.h"

namespace tessera::app::validation {

struct ValidationSummary {
  std::size_t cases = 0;       // pattern results
  std::size_t predicted = 0;   // of them, those Tessera ran
  std::optional<double> mape_percent;            // over the predicted cases
  std::optional<double> max_abs_error_percent;
  std::optional<std::size_t> worst_case;         // index into the cases
  std::size_t groups = 0;                        // variant groups (two variants or more)
  std::size_t groups_agreeing = 0;
  std::optional<double> order_agreement;         // groups_agreeing / groups, a fraction
  std::size_t significant_groups = 0;            // measured gap above 5%
  std::size_t significant_agreeing = 0;
  std::optional<double> order_agreement_significant;
};

ValidationSummary summarize(const std::vector<ValidationCase>& cases, const std::vector<VariantGroup>& groups);

// Everything about a validation: schema "tessera-validation/1", system, measured folder,
// convention, summary (mape_percent, max_abs_error_percent, order_agreement, ...), cases,
// groups, skipped files; and the library collectives apart (collectives, collectives_mape_percent,
// ...), which the pattern summary and --max-mape never include.
struct ValidationReport {
  std::string system_argument;
  std::string system_name;
  std::string measured_folder;
  std::vector<ValidationCase> cases;
  std::vector<VariantGroup> groups;
  ValidationSummary summary;
  std::vector<measured::SkippedFile> skipped;
  std::size_t microbenchmark_results = 0;  // not validated here: calibration data (library collectives excluded)
  std::vector<CollectiveCase> collectives;  // the library's collectives (collective_cases.h)
  CollectiveSummary collective_summary;
  std::optional<double> max_mape_percent;  // --max-mape, when given
};

nlohmann::json validation_json(const ValidationReport& report);

// "push < pull < bsp" (fastest first).
std::string order_text(const std::vector<std::string>& variants);

}  // namespace tessera::app::validation

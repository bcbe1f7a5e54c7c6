#pragma once
// The tables of a validation as plain cells, so that the terminal, report.md and report.html
// show the same rows: the cases (measured against predicted), the variant groups (order), and
// the summary lines.
#include <string>
#include <vector>

#include "sim/app/validation/validation_summary.h"

namespace tessera::app::validation {

struct CellTable {
  std::vector<std::string> header;  // names carry units
  std::vector<std::vector<std::string>> rows;
};

// case, variant, parameters, ranks, measured (us), predicted (us), error (%); a failed run shows
// "failed" and its reason in the last column.
CellTable cases_table(const ValidationReport& report);

// case, parameters, ranks, measured order, predicted order, measured gap (%), fastest predicted?
CellTable groups_table(const ValidationReport& report);

// The library collectives: op, ranks, the algorithm/protocol the measurement forced ("auto" when
// NCCL chose), size, measured (us), predicted (us), error (%), Tessera's choice (algorithm and
// protocol), channels, NCCL's own model (us) and its error (%); a failed run shows "failed".
CellTable collectives_table(const ValidationReport& report);

// "MAPE: 6.21% over 14 cases (target 10%)", "worst: ...", "order agreement: ..."; with library
// collectives, their two MAPEs (from 64 KiB up, and below) after the pattern lines.
std::vector<std::string> summary_lines(const ValidationReport& report);

// Whether a cell reads as one number ("12.5", "+3.1"): numbers align right.
bool is_number_cell(const std::string& cell);

// A table as Markdown (pipes escaped in cells).
std::string markdown_table(const CellTable& table);

}  // namespace tessera::app::validation

#pragma once
// The files of `tessera validate --out DIR` (besides validation.json): report.md, the tables and
// the summary in Markdown, and report.html, one self-contained page (inline CSS and SVG, no
// scripts) with the predicted-against-measured scatter plot. Same report in, same bytes out.
#include <string>

#include "sim/app/validation/validation_summary.h"

namespace tessera::app::validation {

std::string validation_markdown(const ValidationReport& report);
std::string validation_html(const ValidationReport& report);

}  // namespace tessera::app::validation

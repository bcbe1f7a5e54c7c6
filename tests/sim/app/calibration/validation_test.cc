// validate's arithmetic on a SYNTHETIC folder of pattern results (made up by the test from
// Tessera's own predictions times chosen factors): errors, MAPE, worst case, variant groups and
// order agreement, and the report files.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <regex>
#include <string>

#include "sim/app/validation/scatter_plot.h"
#include "sim/app/validation/validation_case.h"
#include "sim/app/validation/validation_documents.h"
#include "sim/app/validation/validation_summary.h"
#include "synthetic_patterns.h"

using namespace tessera;
using namespace tessera::app::validation;

namespace {

struct Validated {
  std::vector<test::SyntheticPattern> made;
  std::unique_ptr<app::measured::MeasuredSet> set;  // the cases point into it
  ValidationReport report;
};

Validated validate_synthetic() {
  Validated v;
  const auto dir = test::synthetic_folder("validate");
  v.made = test::write_synthetic_patterns(dir);
  v.set = std::make_unique<app::measured::MeasuredSet>(app::measured::read_measured_folder(dir));
  const app::measured::MeasuredSet& set = *v.set;
  PreparedCases prepared = prepare_cases(set, "h200-2", 2);
  predict_cases(prepared, 2);
  v.report.system_argument = "h200-2";
  v.report.system_name = "h200-2";
  v.report.measured_folder = dir.string();
  v.report.skipped = set.skipped;
  v.report.microbenchmark_results = set.microbenchmarks().size();
  v.report.cases = std::move(prepared.cases);
  v.report.groups = group_variants(v.report.cases);
  v.report.summary = summarize(v.report.cases, v.report.groups);
  return v;
}

const test::SyntheticPattern& made_for(const Validated& v, const ValidationCase& c) {
  for (const auto& m : v.made) {
    if (c.source->display_name.ends_with(m.file)) return m;
  }
  FAIL("no synthetic case for ", c.source->display_name);
  return v.made.front();
}

}  // namespace

TEST_CASE("validate: each error is (predicted - measured) / measured and the MAPE is their mean absolute value") {
  const Validated v = validate_synthetic();
  const ValidationSummary& s = v.report.summary;
  REQUIRE(v.report.cases.size() == 8);  // the microbenchmark and the failed run are not validated
  CHECK(v.report.microbenchmark_results == 1);
  CHECK(s.predicted == 8);
  for (const ValidationCase& c : v.report.cases) {
    const auto& m = made_for(v, c);
    REQUIRE(c.predicted_ns);
    CHECK(*c.predicted_ns == doctest::Approx(m.predicted_ns));  // deterministic
    CHECK(c.measured_ns == doctest::Approx(m.measured_ns));
    CHECK(c.error_percent() == doctest::Approx(100 * (m.predicted_ns - m.measured_ns) / m.measured_ns));
  }
  const auto gemm = std::find_if(v.report.cases.begin(), v.report.cases.end(),
                                 [](const ValidationCase& c) { return c.source->display_name.ends_with("gemm.m-256.r1.json"); });
  CHECK(gemm->error_percent() == doctest::Approx(100 * (1 / 1.1 - 1)));  // measured 10% slower: -9.09%
  CHECK(gemm->params_text == "k=256 m=256 n=256");
  REQUIRE(s.mape_percent);
  CHECK(*s.mape_percent == doctest::Approx(test::expected_mape_percent(v.made)));
  // The worst: the predicted-slowest ag_gemm variant of m = 256, measured at half the fastest.
  REQUIRE(s.worst_case);
  CHECK(v.report.cases[*s.worst_case].source->display_name.find("m-256.variant") != std::string::npos);
}

TEST_CASE("validate: variants of one case form a group and the order agrees where the measurement follows the prediction") {
  const Validated v = validate_synthetic();
  REQUIRE(v.report.groups.size() == 2);  // the two gemm cases differ in m: no group
  const VariantGroup& agreeing = v.report.groups[0];
  const VariantGroup& disagreeing = v.report.groups[1];
  CHECK(agreeing.params_text == "k=1024 m=128 n=512");
  CHECK(agreeing.variants.size() == 3);
  CHECK(agreeing.agrees());
  CHECK_FALSE(disagreeing.agrees());
  CHECK(disagreeing.significant());
  CHECK(disagreeing.measured_gap_percent() == doctest::Approx(100.0));  // the fastest at half the second
  const ValidationSummary& s = v.report.summary;
  CHECK(s.groups == 2);
  CHECK(s.groups_agreeing == 1);
  REQUIRE(s.order_agreement);
  CHECK(*s.order_agreement == doctest::Approx(0.5));
  CHECK(s.significant_groups == (agreeing.significant() ? 2u : 1u));
  CHECK(s.significant_agreeing == (agreeing.significant() ? 1u : 0u));
}

TEST_CASE("validate: JSON and Markdown and HTML carry the same cases and summary") {
  const Validated v = validate_synthetic();
  const nlohmann::json j = validation_json(v.report);
  CHECK(j["schema"] == "tessera-validation/1");
  CHECK(j["mape_percent"].get<double>() == doctest::Approx(*v.report.summary.mape_percent));
  CHECK(j["max_abs_error_percent"].get<double>() == doctest::Approx(*v.report.summary.max_abs_error_percent));
  CHECK(j["order_agreement"].get<double>() == doctest::Approx(0.5));
  REQUIRE(j["cases"].size() == 8);
  for (const auto& c : j["cases"]) {
    CHECK(c.contains("measured_ns"));
    CHECK(c.contains("predicted_ns"));
    CHECK(c.contains("error_percent"));
  }
  const std::string md = validation_markdown(v.report);
  CHECK(md.find("| case | variant | parameters |") != std::string::npos);
  CHECK(md.find("- MAPE: ") != std::string::npos);
  CHECK(md.find("bsp") != std::string::npos);
  const std::string html = validation_html(v.report);
  CHECK(html.find("<svg") != std::string::npos);
  std::size_t points = 0;
  for (std::size_t at = html.find("class=\"point\""); at != std::string::npos; at = html.find("class=\"point\"", at + 1)) ++points;
  CHECK(points == 8);
  CHECK(html.find("<script") == std::string::npos);  // self-contained, no scripts
}

TEST_CASE("validate: the scatter is log-log over the points' decades, labelled as the report charts label time") {
  const std::vector<ScatterPoint> points = {
      {1000.0, 1000.0, "gemm", "exact"},
      {200.0, 5000.0, "ag_gemm", "25 times slow"},
      {0.0, 100.0, "gemm", "not measured"},      // left out: no place on a log axis
      {300.0, -1.0, "ag_gemm", "not predicted"},  // left out
  };
  const std::string svg = log_log_scatter_svg(points);
  // Both axes from 100 ns (the decade of 200 ns) to 10 us (the decade above 5 us), one label per decade.
  CHECK(svg.find("data-scale=\"log\"") != std::string::npos);
  for (const char* label : {">100 ns<", ">1 us<", ">10 us<"}) {
    std::size_t n = 0;
    for (std::size_t at = svg.find(label); at != std::string::npos; at = svg.find(label, at + 1)) ++n;
    CHECK_MESSAGE(n == 2, label);  // once along each axis
  }
  CHECK(svg.find(">10 ns<") == std::string::npos);
  CHECK(svg.find(">100 us<") == std::string::npos);
  CHECK(svg.find("measured (mean)") != std::string::npos);
  CHECK(svg.find("predicted (Tessera)") != std::string::npos);
  // 1 us against 1 us: the middle of the 440 px square whose bottom-left corner is at (78, 456).
  CHECK(svg.find(R"(cx="298.00" cy="236.00")") != std::string::npos);
  std::size_t circles = 0;
  for (std::size_t at = svg.find("class=\"point\""); at != std::string::npos; at = svg.find("class=\"point\"", at + 1)) ++circles;
  CHECK(circles == 2);
  // The five guides (perfect prediction, +-10%, +-25%) run at 45 degrees and stay inside the square.
  const std::regex guide(R"re(<line class="guide" x1="([-0-9.]+)" y1="([-0-9.]+)" x2="([-0-9.]+)" y2="([-0-9.]+)")re");
  std::size_t guides = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), guide); it != std::sregex_iterator(); ++it, ++guides) {
    const double x1 = std::stod((*it)[1]), y1 = std::stod((*it)[2]), x2 = std::stod((*it)[3]), y2 = std::stod((*it)[4]);
    for (const double x : {x1, x2}) CHECK((x >= 78.0 && x <= 518.0));
    for (const double y : {y1, y2}) CHECK((y >= 16.0 && y <= 456.0));
    CHECK(x2 - x1 == doctest::Approx(y1 - y2).epsilon(1e-3));
    CHECK(x2 > x1);
  }
  CHECK(guides == 5);
  CHECK(svg.find(R"(<title>perfect prediction</title>)") != std::string::npos);
  // Nothing to plot: still a decade on each axis.
  const std::string empty = log_log_scatter_svg({});
  CHECK(empty.find(">1 ns<") != std::string::npos);
  CHECK(empty.find(">10 ns<") != std::string::npos);
  CHECK(empty.find("class=\"point\"") == std::string::npos);
}

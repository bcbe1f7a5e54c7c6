// compare.html (sim/app/report/compare_html.h): the differing keys, escaped; A's and B's bars and
// ratios; each side's busiest resource; one self-contained, deterministic page.
#include <doctest/doctest.h>

#include <string>

#include "sample_runs.h"
#include "sim/app/report/compare_html.h"

using namespace tessera::app::report;
using namespace tessera::app::report::testing;

namespace {

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

}  // namespace

TEST_CASE("compare.html lists the differing keys with both values, escaped") {
  const SampleCompare c = sample_compare();
  const std::string html = compare_html(c.a, c.b, c.differences, c.quantities);
  CHECK(html.starts_with("<!DOCTYPE html>"));
  CHECK(has(html, "A and B differ in 2 keys"));
  CHECK(has(html, "<td class=\"text\"><code>system.interconnect.link_bandwidth</code></td><td class=\"text\">64 GB/s</td>"
                  "<td class=\"text\">8 GB/s</td>"));
  CHECK(has(html, "<code>workload.variant</code></td><td class=\"text\">bsp</td><td class=\"text\">push &lt;&amp;&gt;</td>"));
  CHECK(has(html, "configs/b &lt;fast&gt;.yaml"));
  CHECK_FALSE(has(html, "<fast>"));
  CHECK_FALSE(has(html, "push <&>"));
  const std::string same = compare_html(c.a, c.a, {}, c.quantities);
  CHECK(has(same, "A and B are the same configuration."));
}

TEST_CASE("compare.html draws A and B side by side with B / A for each quantity") {
  const SampleCompare c = sample_compare();
  const std::string html = compare_html(c.a, c.b, c.differences, c.quantities);
  // A bar per side and quantity: the makespan and the seven parts.
  CHECK(count_of(html, "class=\"series-bar\"") == 2 * 8);
  CHECK(has(html, R"(data-series="A" data-group="makespan")"));
  CHECK(has(html, R"x(data-series="B" data-group="bulk_synchronous (tax)")x"));
  // B is A stretched 90 times: every ratio is 90, and the axes (B / A spans two decades) are log.
  CHECK(count_of(html, "B / A = 90.000") == 8);
  CHECK(count_of(html, "<td class=\"ratio\">90.000</td>") == 8);
  CHECK(has(html, "data-scale=\"log\""));
  CHECK(has(html, "time (log scale)"));
  // The table: one unit for every time in it (B's makespan is 90 us), stated in the headers.
  CHECK(has(html, "<th>A (us)</th><th>B (us)</th><th>B &minus; A (us)</th>"));
  CHECK(has(html, "<td title=\"90000.000 ns\">90.000</td>"));
  CHECK(has(html, "<td title=\"89000.000 ns\">+89.000</td>"));
  // Where the time goes, as stacked bars per side.
  CHECK(count_of(html, "class=\"run-bar\"") == 2);
  CHECK(has(html, "<li class=\"legend-group\">taxes:</li>"));
}

TEST_CASE("compare.html names each side's busiest resource, or that none carried bytes") {
  const SampleCompare c = sample_compare();
  const std::string html = compare_html(c.a, c.b, c.differences, c.quantities);
  CHECK(has(html, "<tr><td class=\"text\">B</td><td class=\"text\">xgmi</td><td class=\"text\">gpu[0]-&gt;gpu[1]</td><td>97.3%</td></tr>"));
  CHECK(has(html, "<tr><td class=\"text\">A</td><td class=\"text na\" colspan=\"3\">no resource carried bytes"));
}

TEST_CASE("compare.html: missing values and a zero A have no ratio, and the page is self-contained and deterministic") {
  SampleCompare c = sample_compare();
  c.quantities.push_back({"compute", false, 0.0, 5.0});
  c.quantities.push_back({"memory", false, std::nullopt, 5.0});
  const std::string html = compare_html(c.a, c.b, c.differences, c.quantities);
  CHECK(count_of(html, "B / A: n/a") == 2);
  CHECK_FALSE(has(html, ">B: n/a</text>"));  // B has every value
  CHECK(has(html, ">A: n/a</text>"));
  CHECK(html.find("<script") == std::string::npos);
  for (const char* fetch : {" src=", " href=", "url(", "@import", "https:"}) CHECK_MESSAGE(!has(html, fetch), fetch);
  CHECK(html == compare_html(c.a, c.b, c.differences, c.quantities));
}

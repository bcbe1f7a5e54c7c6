#include <doctest/doctest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "sample_runs.h"
#include "sim/app/report/report_html.h"

using namespace tessera::app::report;
using namespace tessera::app::report::testing;

namespace {

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

struct Bar {
  std::string cls;
  std::string category;
  std::string run;
  bool per_gpu;
};

std::vector<Bar> bars_of(const std::string& html) {
  static const std::regex rect(R"re(<rect class="([a-z-]+)" data-category="([a-z_]+)" data-run="([^"]*)"( data-rank="\d+")?)re");
  std::vector<Bar> bars;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), rect); it != std::sregex_iterator(); ++it) {
    bars.push_back({(*it)[1], (*it)[2], (*it)[3], (*it)[4].matched});
  }
  return bars;
}

}  // namespace

TEST_CASE("report.html: a stacked bar per run and per GPU, taxes and work told apart") {
  const std::string html = report_html(sample_runs());
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("</html>") != std::string::npos);
  const std::set<std::string> taxes = {"bulk_synchronous", "inter_kernel_locality", "launch_overhead"};
  const std::set<std::string> work = {"compute", "memory", "communication", "idle"};
  int run_bars_bsp = 0;
  int gpu_bars_push = 0;
  int total_bars = 0;
  for (const Bar& b : bars_of(html)) {
    if (b.cls == "tax-bar") CHECK_MESSAGE(taxes.count(b.category) == 1, b.category);
    if (b.cls == "work-bar") CHECK_MESSAGE(work.count(b.category) == 1, b.category);
    if (b.cls == "total-bar") {
      ++total_bars;
      CHECK(b.run == "micro");
      CHECK(b.category == "makespan");
    }
    if (b.run == "bsp" && !b.per_gpu) ++run_bars_bsp;
    if (b.run == "push" && b.per_gpu) ++gpu_bars_push;
  }
  CHECK(run_bars_bsp == 7);        // all seven categories are non-zero
  CHECK(gpu_bars_push == 2 * 7);   // two GPUs
  CHECK(total_bars == 1);          // the microbenchmark has no attribution
  CHECK(count_of(html, "class=\"tax-bar\"") == 3 * (1 + 2) * 2);  // 3 taxes x (run + 2 GPUs) x 2 attributed runs
  CHECK(count_of(html, "class=\"work-bar\"") == 4 * 3 * 2);
  // Tooltips in ns and us.
  CHECK(html.find("<title>bsp: tax bulk_synchronous: 200.000 ns = 0.200 us (20.0% of 1.000 us)</title>") != std::string::npos);
  CHECK(html.find("<title>push / GPU 1: work compute: 304.000 ns = 0.304 us") != std::string::npos);
}

TEST_CASE("report.html: tables of the parts, cache hit rates, bytes per link class, utilisation, configs") {
  const std::string html = report_html(sample_runs());
  // One unit per table, stated: ns for the runs (the longest span is 1234.5 ns).
  CHECK(html.find("<caption class=\"note\">times in ns; below each value its share of the span</caption>") != std::string::npos);
  CHECK(html.find("<th>span (ns)</th>") != std::string::npos);
  CHECK(html.find("<td title=\"200.000 ns\">200.000<span class=\"share\">20.0%</span></td>") != std::string::npos);  // bsp bulk_synchronous
  CHECK(html.find("bsp: L2 hit rate per XCD") != std::string::npos);
  CHECK(html.find(">80.0%</td>") != std::string::npos);
  CHECK(html.find("<td class=\"na\">&ndash;</td>") != std::string::npos);  // the XCD that loaded nothing
  CHECK(html.find("<td title=\"117440512 bytes\">112.00 MiB</td>") != std::string::npos);
  CHECK(html.find(">nvlink</td>") != std::string::npos);
  CHECK(count_of(html, "class=\"util-line\"") == 4);  // (xgmi, hbm) x (bsp, push)
  CHECK(html.find("data-class=\"xgmi\"") != std::string::npos);
  CHECK(html.find("<pre class=\"config\">system: mi300x-8\nworkload: {kind: ag_gemm, variant: bsp}\n</pre>") !=
        std::string::npos);
  CHECK(html.find("latencies taken as 0 until calibrated: interconnect.link_latency") != std::string::npos);
}

TEST_CASE("report.html: self-contained, escaped, deterministic") {
  auto runs = sample_runs();
  runs[0].label = "bsp <b>&</b>";
  runs[0].config_yaml = "name: \"</pre><script>alert('x')</script>\"\n";
  const std::string html = report_html(runs);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("&lt;/pre&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;") != std::string::npos);
  CHECK(html.find("<b>") == std::string::npos);
  CHECK(html.find("bsp &lt;b&gt;&amp;&lt;/b&gt;") != std::string::npos);
  CHECK(html.find("data-run=\"bsp &lt;b&gt;&amp;&lt;/b&gt;\"") != std::string::npos);
  // Nothing fetched: no external resources of any kind.
  for (const char* fetch : {" src=", " href=", "url(", "@import", "https:"}) CHECK_MESSAGE(html.find(fetch) == std::string::npos, fetch);
  CHECK(html == report_html(runs));
  // wall_s is not shown, so a rerun with another wall time gives the same page.
  auto rerun = runs;
  rerun[0].result.result.wall_s = 99.0;
  CHECK(html == report_html(rerun));
}

TEST_CASE("report.html: runs without attribution or utilisation still make a page") {
  const std::string html = report_html({{"micro", microbench_run(), ""}});
  CHECK(html.find("<title>Tessera report: microbench on h200-2</title>") != std::string::npos);
  CHECK(count_of(html, "class=\"tax-bar\"") == 0);
  CHECK(count_of(html, "class=\"total-bar\"") == 1);
  CHECK(html.find("No link utilisation recorded") != std::string::npos);
  CHECK(html.find("No per-GPU attribution") != std::string::npos);
  CHECK(html.find("(no config recorded)") != std::string::npos);
  CHECK(report_html({}).find("</html>") != std::string::npos);
}

TEST_CASE("report.html: one labelled bar per GPU, a legend that tells work from taxes") {
  const std::string html = report_html(sample_runs());
  // Two attributed runs of two GPUs each; the microbenchmark has no per-GPU breakdown.
  CHECK(count_of(html, "<g class=\"gpu-bar\"") == 4);
  for (const char* run : {"bsp", "push"}) {
    for (int rank : {0, 1}) {
      const std::string bar = "<g class=\"gpu-bar\" data-run=\"" + std::string(run) + "\" data-rank=\"" +
                              std::to_string(rank) + "\" aria-label=\"" + run + " / GPU " + std::to_string(rank) + "\">";
      CHECK_MESSAGE(html.find(bar) != std::string::npos, bar);
      CHECK(html.find(">GPU " + std::to_string(rank) + "</text>", html.find(bar)) != std::string::npos);
    }
  }
  CHECK(count_of(html, "<g class=\"run-bar\"") == 3);
  CHECK(html.find("<h3>push: 2 GPUs</h3>") != std::string::npos);
  // The legend, in both sections: work, then the taxes, each named.
  CHECK(count_of(html, "<li class=\"legend-group\">work:</li>") == 2);
  CHECK(count_of(html, "<li class=\"legend-group\">taxes:</li>") == 2);
  CHECK(html.find("inter kernel locality (tax)</li>") != std::string::npos);
  // The per-run spans differ by less than the log ratio: linear axes throughout.
  CHECK(html.find("data-scale=\"log\"") == std::string::npos);
}

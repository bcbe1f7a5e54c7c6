// Writes the sample report.html and compare.html of the report tests into a folder, for the
// headless-Chromium test, and prints what the rendered pages must hold, as "name count" lines:
// per_gpu_bars (one per GPU of each sample run with a per-GPU breakdown) and compare_bars (one
// per value of A and of B). With --broken each page gets a script that throws, so the test can
// prove it notices errors.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "sample_runs.h"
#include "sim/app/report/compare_html.h"
#include "sim/app/report/report_html.h"

namespace {

bool write(const std::filesystem::path& path, std::string html, bool broken) {
  if (broken) html.insert(html.rfind("</body>"), "<script>no_such_function();</script>\n");
  std::ofstream out(path, std::ios::binary);
  out << html;
  out.close();
  if (!out) std::cerr << "write_sample_report: cannot write " << path.string() << "\n";
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tessera::app::report;
  if (argc < 2 || argc > 3 || (argc == 3 && std::string(argv[2]) != "--broken")) {
    std::cerr << "usage: write_sample_report OUT_DIR [--broken]\n";
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  const bool broken = argc == 3;
  const auto runs = testing::sample_runs();
  const testing::SampleCompare c = testing::sample_compare();
  if (!write(dir / "report.html", report_html(runs), broken) ||
      !write(dir / "compare.html", compare_html(c.a, c.b, c.differences, c.quantities), broken)) {
    return 1;
  }
  std::size_t per_gpu_bars = 0;
  for (const LabeledRun& run : runs) {
    if (run.result.result.breakdown) per_gpu_bars += run.result.result.breakdown->gpu_times.size();
  }
  std::size_t compare_bars = 0;
  for (const CompareQuantity& q : c.quantities) compare_bars += (q.a_ns ? 1 : 0) + (q.b_ns ? 1 : 0);
  std::cout << "per_gpu_bars " << per_gpu_bars << "\ncompare_bars " << compare_bars << "\n";
  return 0;
}

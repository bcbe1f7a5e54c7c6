// Writes the sample report.html of the report tests to a file, for the headless-Chromium test.
// With --broken it appends a script that throws, so the test can prove it notices errors.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "sample_runs.h"
#include "sim/app/report/report_html.h"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3 || (argc == 3 && std::string(argv[2]) != "--broken")) {
    std::cerr << "usage: write_sample_report OUT.html [--broken]\n";
    return 2;
  }
  std::string html = tessera::app::report::report_html(tessera::app::report::testing::sample_runs());
  if (argc == 3) html.insert(html.rfind("</body>"), "<script>no_such_function();</script>\n");
  std::ofstream out(argv[1], std::ios::binary);
  out << html;
  out.close();
  if (!out) {
    std::cerr << "write_sample_report: cannot write " << argv[1] << "\n";
    return 1;
  }
  return 0;
}

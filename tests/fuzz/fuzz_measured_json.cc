// libFuzzer target: the reader of the kernel suite's result files (sim/app/measured), as
// `tessera validate` and `tessera calibrate` read every file under --measured.
//
// A MeasuredDataError is the documented answer to a bad file; anything else (a crash, a
// sanitizer report, another exception such as nlohmann's out_of_range for 1e999) is a finding.
// Its message names the file and never quotes the input past the key names it reports.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "sim/app/measured/measured_case.h"
#include "sim/app/measured/measured_data_error.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto parsed = tessera::app::measured::parse_measured_text(text, "result.json", "result.json");
    (void)parsed;
  } catch (const tessera::app::measured::MeasuredDataError& e) {
    const std::string message = e.what();
    tessera::fuzz::check(message.starts_with("result.json: "), fmt::format("message without the file name: {}", message));
  }
  return 0;
}

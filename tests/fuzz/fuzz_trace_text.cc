// libFuzzer target: the text (JSON Lines) form of a tile-level trace, read_trace_text.
//
// A TraceError is the documented answer to a bad trace; anything else (a crash, a sanitizer
// report, another exception, a hang) is a finding. A trace that reads must also survive both
// writers and readers (trace_round_trip.h), since `tessera trace convert` relies on them.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "tests/fuzz/trace_round_trip.h"
#include "workloads/trace/trace_error.h"
#include "workloads/trace/trace_text.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tessera::workloads::trace;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  Trace trace;
  try {
    trace = read_trace_text(in, "fuzz.jsonl");
  } catch (const TraceError&) {
    return 0;  // the documented answer to a bad trace
  }
  if (!tessera::fuzz::small_enough_to_round_trip(trace)) return 0;
  tessera::fuzz::check_text_round_trip(trace);
  tessera::fuzz::check_binary_round_trip(trace);
  return 0;
}

#pragma once
// The round trips both trace fuzz targets check on a trace that was read without error: each
// form's writer must produce text (or bytes) that its reader takes back to the same trace, as
// `tessera trace convert` promises. "The same" is judged by writing again: the writers are
// deterministic, so equal traces give equal output.
#include <sstream>
#include <string>

#include "tests/fuzz/fuzz_check.h"
#include "workloads/trace/trace_binary.h"
#include "workloads/trace/trace_text.h"

namespace tessera::fuzz {

inline std::string text_of(const workloads::trace::Trace& trace) {
  std::ostringstream out;
  workloads::trace::write_trace_text(out, trace);
  return out.str();
}

inline std::string binary_of(const workloads::trace::Trace& trace) {
  std::ostringstream out;
  workloads::trace::write_trace_binary(out, trace);
  return out.str();
}

// A trace read from a few bytes may hold a million host commands (one line without a rank puts a
// command on every rank) and write a million lines: fine for the program, but too slow to
// round-trip for every fuzz input. Larger traces are read, and not written back.
inline bool small_enough_to_round_trip(const workloads::trace::Trace& trace) {
  std::size_t commands = 0;
  for (const auto& rank_commands : trace.host) commands += rank_commands.size();
  return commands <= (1u << 16);
}

// Any exception here escapes the target: a written trace that cannot be read back is a bug.
inline void check_binary_round_trip(const workloads::trace::Trace& trace) {
  const std::string bytes = binary_of(trace);
  std::istringstream in(bytes);
  const workloads::trace::Trace again = workloads::trace::read_trace_binary(in, "round-trip.tsrt");
  check(binary_of(again) == bytes, "the binary form does not read back to the same trace");
}

inline void check_text_round_trip(const workloads::trace::Trace& trace) {
  const std::string text = text_of(trace);
  std::istringstream in(text);
  const workloads::trace::Trace again = workloads::trace::read_trace_text(in, "round-trip.jsonl");
  check(text_of(again) == text, "the text form does not read back to the same trace:\n" + text);
}

}  // namespace tessera::fuzz

#pragma once
// The binary form of a trace: compact, exact and quick to read; the same content as the text
// form (docs/trace-format.md, "Binary form"). Little-endian fixed-width fields after the magic
// bytes "TSRTRACE" and the format version; strings are a u32 length and the bytes.
#include <istream>
#include <ostream>
#include <string>
#include <string_view>

#include "workloads/trace/trace.h"
#include "workloads/trace/trace_error.h"

namespace tessera::workloads::trace {

inline constexpr std::string_view kBinaryMagic = "TSRTRACE";

// Reads and validates a whole trace. Throws TraceError "FILE: byte OFFSET: reason" on a bad
// magic or version, truncation, an out-of-range enum or size, or trailing bytes; counts are
// checked against the bytes left before anything is allocated, so a corrupt count cannot make
// it allocate more than the file could hold. validate()'s problems read "FILE: reason".
Trace read_trace_binary(std::istream& in, const std::string& file_name);

// Writes every field of the trace: read_trace_binary gives back an identical trace.
void write_trace_binary(std::ostream& out, const Trace& trace);

}  // namespace tessera::workloads::trace

#pragma once
// The text form of a trace: JSON Lines, one record per line, easy to write from a script
// (docs/trace-format.md has every record and field):
//
//   {"tessera_trace": 1, "ranks": 2}
//   {"buffer": "A", "bytes": 4096}
//   {"program": "push", "ops": [{"op": "store", "buffer": "A", "rank": "rank + 1", "offset": 0, "bytes": 4096}]}
//   {"kernel": "push", "rank": 0, "stream": 0, "grid": 1, "program": "push"}
//   {"host": "launch", "rank": 0, "kernel": 0}
//   {"host": "rank_barrier"}
//
// A record may only name what earlier lines defined (buffers, programs, kernels), so every
// mistake is reported at its own line.
#include <istream>
#include <ostream>
#include <string>

#include "workloads/trace/trace.h"
#include "workloads/trace/trace_error.h"

namespace tessera::workloads::trace {

// Reads and validates a whole trace. Throws TraceError "FILE:LINE: key: reason" (the key path
// inside the record, e.g. `ops[3].offset`) for malformed JSON, unknown or duplicate keys (with
// a "did you mean"), bad values or expressions, names not defined before, and rule breaks
// (validate()); problems of the whole trace name the line of the record at fault.
Trace read_trace_text(std::istream& in, const std::string& file_name);

// Writes the trace so that read_trace_text gives it back. An instruction's fields that its op
// does not use (trace.h) are not written, so they read back at their defaults.
void write_trace_text(std::ostream& out, const Trace& trace);

}  // namespace tessera::workloads::trace

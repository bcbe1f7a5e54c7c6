// Every class of malformed text is an error at its own line, naming the key and, for a
// misspelling, the intended word.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "workloads/trace/trace_text.h"

using namespace tessera::workloads::trace;

namespace {

constexpr const char* kHeader = R"({"tessera_trace": 1, "ranks": 2})";
constexpr const char* kBuffer = R"({"buffer": "A", "bytes": 4096})";
constexpr const char* kProgram = R"({"program": "p", "ops": [{"op": "compute", "flops": 1}]})";
constexpr const char* kKernel = R"({"kernel": "k", "rank": 0, "grid": 4, "program": "p"})";
constexpr const char* kLaunch = R"({"host": "launch", "rank": 0, "kernel": 0})";

// The error message of reading these lines ("" when they read).
std::string error_of(std::initializer_list<std::string> lines) {
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  std::istringstream in(text);
  try {
    read_trace_text(in, "t.jsonl");
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

// Checks that the message starts with `prefix` (file, line, key) and contains `detail`.
void check_error(std::initializer_list<std::string> lines, const std::string& prefix, const std::string& detail = "") {
  const std::string message = error_of(lines);
  CHECK_MESSAGE(message.rfind(prefix, 0) == 0, "message: ", message);
  CHECK_MESSAGE(message.find(detail) != std::string::npos, "message: ", message);
}

std::string program_with(const std::string& ops) { return R"({"program": "p", "ops": [)" + ops + "]}"; }

}  // namespace

TEST_CASE("a well-formed minimal trace reads (the baseline of the cases below)") {
  CHECK(error_of({kHeader, kBuffer, kProgram, kKernel, kLaunch}) == "");
}

TEST_CASE("bad JSON and non-objects") {
  check_error({kHeader, R"({"buffer": "A", "bytes": })"}, "t.jsonl:2: bad JSON at column 26: ", "syntax error");
  check_error({kHeader, R"({"buffer": "A")"}, "t.jsonl:2: bad JSON at column");
  check_error({kHeader, "[1, 2]"}, "t.jsonl:2: expected a JSON object, got [1,2]");
  check_error({kHeader, "", "  ", "42"}, "t.jsonl:4: expected a JSON object, got 42");
  check_error({kHeader, R"({"buffer": "A", "bytes": 1, "bytes": 2})"}, "t.jsonl:2: bytes: duplicate key");
  check_error({kHeader, program_with(R"({"op": "compute", "flops": 1, "flops": 2})")}, "t.jsonl:2: flops: duplicate key");
}

// Found by fuzz_trace_text: nlohmann reports a number overflow as out_of_range, not as a
// parse_error, and it escaped read_trace_text (the program said "run failed", exit 1).
TEST_CASE("a number beyond a double's range is bad JSON at its line") {
  check_error({R"({"tessera_trace": 1e999, "ranks": 2})"}, "t.jsonl:1: bad JSON: number overflow parsing '1e999'");
  check_error({kHeader, R"({"buffer": "A", "bytes": -999999900E00000000000000841})"}, "t.jsonl:2: bad JSON: ",
              "number overflow");
}

// Found probing fuzz_trace_text: with a million ranks, each `{"host": "sync"}` line (15 bytes)
// added a million commands, so a 4 KB trace asked for more than 2 GB.
TEST_CASE("host commands are bounded over all ranks, so a few lines cannot ask for gigabytes") {
  const std::string header = R"({"tessera_trace": 1, "ranks": 1048576})";
  const std::string sync = R"({"host": "sync"})";
  CHECK(error_of({header, sync}) == "");
  CHECK(error_of({header, sync, sync}) ==
        "t.jsonl:3: host: more than 1048576 host commands over all ranks (one without a rank counts once for each of "
        "the 1048576 ranks)");
  CHECK(error_of({header, sync, R"({"host": "rank_barrier", "rank": 7})"}).find("more than 1048576 host commands") !=
        std::string::npos);
}

TEST_CASE("the header: first, once, the right version, sensible ranks") {
  CHECK(error_of({}) == R"(t.jsonl: no header: the first line must be {"tessera_trace": 1, "ranks": N})");
  check_error({kBuffer}, "t.jsonl:1: the first record must be the header");
  check_error({kHeader, kHeader}, "t.jsonl:2: tessera_trace: a second header");
  check_error({R"({"tessera_trace": 9, "ranks": 2})"},
              "t.jsonl:1: tessera_trace: format version 9 (this Tessera reads versions 1 to 8)");
  check_error({R"({"tessera_trace": 0, "ranks": 2})"},
              "t.jsonl:1: tessera_trace: format version 0 (this Tessera reads versions 1 to 8)");
  check_error({R"({"tessera_trace": 1, "ranks": 0})"}, "t.jsonl:1: ranks: must be at least 1");
  check_error({R"({"tessera_trace": 1, "ranks": -2})"}, "t.jsonl:1: ranks: must not be negative");
  check_error({R"({"tessera_trace": 1, "ranks": 4000000000})"}, "t.jsonl:1: ranks: 4000000000 is too large");
  check_error({R"({"tessera_trace": 1})"}, "t.jsonl:1: missing key 'ranks' (the header needs it)");
  check_error({R"({"tessera_trace": 1, "rank": 2})"}, "t.jsonl:1: rank: unknown key; did you mean 'ranks'?");
}

TEST_CASE("load_async and wait_load: version 3 only, a slot in 0..7") {
  const std::string load = R"({"op": "load_async", "buffer": "A", "rank": 1, "offset": 64, "bytes": 64, "slot": 2})";
  const std::string v3 = R"({"tessera_trace": 3, "ranks": 2})";
  CHECK(error_of({v3, kBuffer, program_with(load + ", " + R"({"op": "wait_load", "slot": 2})"), kKernel, kLaunch}) == "");
  check_error({kHeader, kBuffer, program_with(load)},
              "t.jsonl:3: ops[0].op: load_async needs format version 3 (the header says 1)");
  check_error({R"({"tessera_trace": 2, "ranks": 2})", kBuffer, program_with(R"({"op": "wait_load", "slot": 0})")},
              "t.jsonl:3: ops[0].op: wait_load needs format version 3 (the header says 2)");
  check_error({v3, kBuffer, program_with(R"({"op": "load_async", "buffer": "A", "rank": 1, "offset": 64, "bytes": 64})")},
              "t.jsonl:3: ops[0]: missing key 'slot'");
  check_error({v3, kBuffer,
               program_with(R"({"op": "load_async", "buffer": "A", "rank": 1, "offset": 64, "bytes": 64, "slot": 8})")},
              "t.jsonl:3: ops[0].slot: load slot 8 (0..7)");
  check_error({v3, kBuffer, program_with(R"({"op": "wait_load", "slot": -1})")}, "t.jsonl:3: ops[0].slot: load slot -1 (0..7)");
  check_error({v3, kBuffer, program_with(R"({"op": "wait_load", "slot": 1, "bytes": 4})")},
              "t.jsonl:3: ops[0].bytes: unknown key (a wait_load op has: op, slot)");
}

TEST_CASE("atomic_add_range: version 2 only, a buffer and a range") {
  const std::string add = R"({"op": "atomic_add_range", "buffer": "A", "rank": 1, "offset": 64, "bytes": 64})";
  const std::string v2 = R"({"tessera_trace": 2, "ranks": 2})";
  CHECK(error_of({v2, kBuffer, program_with(add), kKernel, kLaunch}) == "");
  check_error({kHeader, kBuffer, program_with(add)},
              "t.jsonl:3: ops[0].op: atomic_add_range needs format version 2 (the header says 1)");
  check_error({v2, kBuffer, program_with(R"({"op": "atomic_add_range", "buffer": "A", "rank": 1, "offset": 64})")},
              "t.jsonl:3: ops[0]: missing key 'bytes'");
  check_error({v2, kBuffer, program_with(R"({"op": "atomic_add_range", "buffer": "B", "rank": 1, "offset": 0, "bytes": 8})")},
              "t.jsonl:3: ops[0].buffer: no buffer 'B'");
  check_error({v2, kBuffer,
               program_with(R"({"op": "atomic_add_range", "buffer": "A", "rank": 1, "offset": 0, "bytes": 8, "dtype": "fp61"})")},
              "t.jsonl:3: ops[0].dtype: unknown dtype 'fp61'; did you mean 'fp16'?");
}

TEST_CASE("unknown keys and record kinds name the nearest known word") {
  check_error({kHeader, R"({"buffer": "A", "bytse": 4096})"}, "t.jsonl:2: bytse: unknown key; did you mean 'bytes'?");
  check_error({kHeader, R"({"bufer": "A", "bytes": 4096})"}, "t.jsonl:2: no record kind", "did you mean 'buffer' for 'bufer'?");
  check_error({kHeader, R"({"buffer": "A", "bytes": 4096, "colour": 1})"},
              "t.jsonl:2: colour: unknown key (a buffer record has: buffer, bytes, coherence)");
  check_error({kHeader, R"({"buffer": "A", "bytes": 4096, "coherence": "fien"})"},
              "t.jsonl:2: coherence: unknown coherence 'fien'; did you mean 'fine'?");
  check_error({R"({"tessera_trace": 5, "ranks": 2})", R"({"buffer": "A", "bytes": 4096, "coherence": "fine"})"},
              "t.jsonl:2: coherence: a buffer's coherence needs format version 6 (the header says 5)");
  check_error({kHeader, kBuffer, program_with(R"({"op": "load", "buffer": "A", "rank": 0, "ofset": 0, "bytes": 8})")},
              "t.jsonl:3: ops[0].ofset: unknown key; did you mean 'offset'?");
  check_error({kHeader, program_with(R"({"op": "lod"})")}, "t.jsonl:2: ops[0].op: unknown op 'lod'; did you mean 'load'?");
  check_error({kHeader, program_with(R"({"op": "compute", "flops": 1, "dtype": "fp61"})")},
              "t.jsonl:2: ops[0].dtype: unknown dtype 'fp61'; did you mean 'fp16'?");
  check_error({kHeader, program_with(R"({"op": "barrier", "scope": "devcie"})")},
              "t.jsonl:2: ops[0].scope: unknown barrier scope 'devcie'; did you mean 'device'?");
  check_error({kHeader, program_with(R"({"op": "wait", "flag_rank": 0, "flag_id": 0, "value": 1, "compare": ">="})")},
              "t.jsonl:2: ops[0].compare: unknown compare '>='", "eq, ne, ge, gt, le, lt");
  check_error({kHeader, R"({"host": "snyc"})"}, "t.jsonl:2: host: unknown host command 'snyc'; did you mean 'sync'?");
  check_error({kHeader, kProgram, R"({"kernel": "k", "rank": 0, "grid": 4, "program": "p", "cu_frist": 2})"},
              "t.jsonl:3: cu_frist: unknown key; did you mean 'cu_first'?");
}

TEST_CASE("missing keys and values of the wrong type") {
  check_error({kHeader, kBuffer, program_with(R"({"op": "store", "buffer": "A", "rank": 0, "bytes": 8})")},
              "t.jsonl:3: ops[0]: missing key 'offset' (a store op needs it)");
  check_error({kHeader, program_with(R"({"flops": 1})")}, "t.jsonl:2: ops[0]: missing key 'op' (an op needs it)");
  check_error({kHeader, R"({"program": "p", "ops": {"op": "compute"}})"}, "t.jsonl:2: ops: expected an array of ops");
  check_error({kHeader, R"({"program": "p", "ops": [3]})"}, "t.jsonl:2: ops[0]: expected an op object");
  check_error({kHeader, R"({"buffer": 7, "bytes": 1})"}, "t.jsonl:2: buffer: expected a string, got 7");
  check_error({kHeader, R"({"buffer": "A", "bytes": 1.5})"}, "t.jsonl:2: bytes: expected an integer, got 1.5");
  check_error({kHeader, R"({"buffer": "A", "bytes": "64 KiBs"})"}, "t.jsonl:2: bytes: ");
  check_error({kHeader, program_with(R"({"op": "set", "register": "r9", "value": 1})")}, "t.jsonl:2: ops[0].register: expected a register r0..r7");
  check_error({kHeader, program_with(R"({"op": "set", "register": 8, "value": 1})")}, "t.jsonl:2: ops[0].register: register 8 (r0..r7)");
}

TEST_CASE("bad expressions name the key and the column") {
  check_error({kHeader, kBuffer, program_with(R"({"op": "load", "buffer": "A", "rank": 0, "offset": "wg*", "bytes": 8})")},
              R"(t.jsonl:3: ops[0].offset: bad expression "wg*": expected an integer factor at column 4)");
  check_error({kHeader, program_with(R"({"op": "compute", "flops": 1}, {"op": "loop", "count": "wg + q"})")},
              R"(t.jsonl:2: ops[1].count: bad expression "wg + q": expected a variable)");
  check_error({kHeader, program_with(R"({"op": "compute", "flops": true})")},
              "t.jsonl:2: ops[0].flops: expected an expression (an integer, or a string like \"wg*4096 + 64\"), got true");
  check_error({kHeader, program_with(R"({"op": "compute", "flops": 18446744073709551615})")}, "t.jsonl:2: ops[0].flops: integer out of range");
  check_error({kHeader, kProgram, R"({"kernel": "k", "rank": 0, "grid": 4, "program": "p", "args": [1, "i0"]})"},
              "t.jsonl:3: args[1]: uses i0: arguments may use wg, nwg, rank, nranks only");
}

TEST_CASE("names must be defined on an earlier line") {
  check_error({kHeader, kBuffer, program_with(R"({"op": "load", "buffer": "B", "rank": 0, "offset": 0, "bytes": 8})")},
              "t.jsonl:3: ops[0].buffer: no buffer 'B' defined before this line");
  check_error({kHeader, R"({"buffer": "weights", "bytes": 8})", program_with(R"({"op": "load", "buffer": "weight", "rank": 0, "offset": 0, "bytes": 8})")},
              "t.jsonl:3: ops[0].buffer: no buffer 'weight' defined before this line; did you mean 'weights'?");
  check_error({kHeader, program_with(R"({"op": "wait", "flag_rank": 0, "flag_id": 0, "value": 1, "acquire_buffer": "A", "acquire_offset": 0, "acquire_bytes": 8})")},
              "t.jsonl:2: ops[0].acquire_buffer: no buffer 'A' (none is defined before this line)");
  check_error({kHeader, kProgram, R"({"kernel": "k", "rank": 0, "grid": 4, "program": "q"})"},
              "t.jsonl:3: program: no program 'q' defined before this line");
  check_error({kHeader, kProgram, kKernel, R"({"host": "launch", "rank": 0, "kernel": 1})"},
              "t.jsonl:4: kernel: kernel index 1, but 1 kernel record(s) come before this line");
  check_error({kHeader, kProgram, kKernel, R"({"host": "launch", "rank": 0, "kernel": "kk"})"},
              "t.jsonl:4: kernel: no kernel 'kk' on rank 0 defined before this line; did you mean 'k'?");
  check_error({kHeader, kProgram, kKernel, kKernel, R"({"host": "launch", "rank": 0, "kernel": "k"})"},
              "t.jsonl:5: kernel: 2 kernels named 'k' on rank 0: name it by index instead");
}

TEST_CASE("rule breaks (validate) are reported at the line of the record at fault") {
  check_error({kHeader, R"({"buffer": "A", "bytes": 0})"}, "t.jsonl:2: bytes: a buffer's size must be positive");
  check_error({kHeader, kBuffer, kBuffer}, "t.jsonl:3: buffer: buffer 'A' is defined twice");
  check_error({kHeader, kProgram, kProgram}, "t.jsonl:3: program: program 'p' is defined twice");
  check_error({kHeader, program_with(R"({"op": "loop", "count": 2}, {"op": "compute", "flops": 1})")},
              "t.jsonl:2: ops: 1 loop(s) without end_loop");
  check_error({kHeader, program_with(R"({"op": "compute", "flops": 1}, {"op": "end_loop"})")}, "t.jsonl:2: ops[1]: end_loop without a loop");
  const std::string loop = R"({"op": "loop", "count": 2}, )";
  check_error({kHeader, program_with(loop + loop + loop + loop + loop + R"({"op": "end_loop"})")},
              "t.jsonl:2: ops[4]: loops nest deeper than 4 (i0..i3)");
  check_error({kHeader, program_with(R"({"op": "wait", "flag_rank": 0, "flag_id": 0, "value": 1, "acquire_bytes": 8})")},
              "t.jsonl:2: ops[0].acquire_bytes: given without acquire_buffer");
  check_error({kHeader, kProgram, R"({"kernel": "k", "rank": 2, "grid": 4, "program": "p"})"}, "t.jsonl:3: rank: rank 2 of a 2-rank trace");
  check_error({kHeader, kProgram, R"({"kernel": "k", "rank": 0, "grid": 0, "program": "p"})"}, "t.jsonl:3: grid: must be at least 1 workgroup");
  check_error({kHeader, kProgram, R"({"kernel": "k", "rank": 0, "grid": 1, "program": "p", "args": [1,2,3,4,5,6,7,8,9]})"},
              "t.jsonl:3: args: 9 arguments; at most 8 (r0..r7)");
  check_error({kHeader, kProgram, kKernel, R"({"host": "sync"})"},
              R"(t.jsonl:3: kernel 'k' (index 0) is never launched: add {"host": "launch", "rank": 0, "kernel": 0})");
  check_error({kHeader, kProgram, kKernel, kLaunch, kLaunch}, "t.jsonl:5: kernel: kernel 0 ('k') is already launched");
  check_error({kHeader, kProgram, kKernel, R"({"host": "launch", "rank": 1, "kernel": 0})"}, "t.jsonl:4: rank: kernel 0 ('k') runs on rank 0, not 1");
  check_error({kHeader, R"({"host": "sync", "rank": 5})"}, "t.jsonl:2: rank: rank 5 of a 2-rank trace");
}

TEST_CASE("a kernel's collective: true or false, version 4 only") {
  const std::string v4 = R"({"tessera_trace": 4, "ranks": 2})";
  const std::string collective = R"({"kernel": "k", "rank": 0, "grid": 4, "program": "p", "collective": true})";
  CHECK(error_of({v4, kBuffer, kProgram, collective, kLaunch}) == "");
  check_error({v4, kBuffer, kProgram, R"({"kernel": "k", "rank": 0, "grid": 4, "program": "p", "collective": 1})"},
              "t.jsonl:4: collective: expected true or false, got 1");
  CHECK(error_of({kHeader, kBuffer, kProgram, collective, kLaunch}).find("collective needs format version 4") !=
        std::string::npos);
}

TEST_CASE("a host delay: version 5 only, delay_ps an integer from 0 to 10^15, a rank's delays within 10^15 in all") {
  const std::string v5 = R"({"tessera_trace": 5, "ranks": 2})";
  CHECK(error_of({v5, kProgram, kKernel, kLaunch, R"({"host": "delay", "rank": 0, "delay_ps": 10000000})",
                  R"({"host": "delay", "delay_ps": 0})", R"({"host": "delay", "rank": 1, "delay_ps": 1000000000000000})"}) ==
        "");
  check_error({R"({"tessera_trace": 4, "ranks": 2})", R"({"host": "delay", "rank": 0, "delay_ps": 5})"},
              "t.jsonl:2: host: delay needs format version 5 (the header says 4)");
  check_error({v5, R"({"host": "delay", "rank": 0})"}, "t.jsonl:2: missing key 'delay_ps' (a delay command needs it)");
  check_error({v5, R"({"host": "delay", "rank": 0, "delay_ps": -1})"}, "t.jsonl:2: delay_ps: must not be negative, got -1");
  check_error({v5, R"({"host": "delay", "rank": 0, "delay_ps": 1.5})"}, "t.jsonl:2: delay_ps: expected an integer, got 1.5");
  check_error({v5, R"({"host": "delay", "rank": 0, "delay_ps": "10 us"})"},
              R"(t.jsonl:2: delay_ps: expected a non-negative integer, got "10 us")");
  check_error({v5, R"({"host": "delay", "rank": 0, "delay_ps": 1000000000000001})"},
              "t.jsonl:2: delay_ps: 1000000000000001 is too large (at most 1000000000000000)");
  check_error({v5, R"({"host": "delay", "rank": 0, "delay_ps": 18446744073709551616})"}, "t.jsonl:2: delay_ps: ");
  check_error({v5, R"({"host": "delay", "rank": 2, "delay_ps": 5})"}, "t.jsonl:2: rank: rank 2 of a 2-rank trace");
  check_error({v5, R"({"host": "delay", "rank": 0, "delay_sp": 5})"}, "t.jsonl:2: delay_sp: unknown key; did you mean 'delay_ps'?");
  check_error({v5, R"({"host": "sync", "delay_ps": 5})"}, "t.jsonl:2: delay_ps: unknown key (a sync command has: host, rank)");
  check_error({v5, R"({"host": "dleay", "delay_ps": 5})"}, "t.jsonl:2: host: unknown host command 'dleay'; did you mean 'delay'?");
  // The sum is checked at the line that passes it, on the rank it passes on.
  check_error({v5, R"({"host": "delay", "rank": 1, "delay_ps": 600000000000000})",
               R"({"host": "delay", "delay_ps": 600000000000000})"},
              "t.jsonl:3: delay_ps: rank 1's host delays add up to 1200000000000000 ps, more than 1000000000000000 ps");
}

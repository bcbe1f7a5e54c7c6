// The binary form: exact round trips, and every truncation or corruption is a TraceError
// with the byte offset (never a crash, a huge allocation or another exception).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "tests/workloads/trace/trace_test_support.h"
#include "workloads/trace/trace_binary.h"
#include "workloads/trace/trace_text.h"

using namespace tessera::workloads::trace;

namespace {

std::string bytes_of(const Trace& t) {
  std::ostringstream out(std::ios::binary);
  write_trace_binary(out, t);
  return out.str();
}

Trace read_bytes(const std::string& bytes) {
  std::istringstream in(bytes, std::ios::binary);
  return read_trace_binary(in, "t.tsrt");
}

std::string error_of(const std::string& bytes) {
  try {
    read_bytes(bytes);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

void put_u32(std::string& bytes, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

void put_u64(std::string& bytes, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) bytes[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

std::uint64_t get_u64(const std::string& bytes, std::size_t at) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return v;
}

// One rank, one kernel launched, then a delay: the file ends with the delay's 13 bytes (op,
// kernel index, delay_ps).
Trace one_delay(std::uint64_t delay_ps) {
  TraceBuilder b(1);
  ProgramBuilder p("p");
  p.compute(1);
  const auto prog = b.program(std::move(p));
  b.launch({"k", 0, 0, 1, prog, {}, 0, 0});
  b.host_delay(0, delay_ps);
  return std::move(b).build();
}

}  // namespace

TEST_CASE("binary round trip is exact, and writing is deterministic") {
  const Trace original = test::sample_trace();
  const std::string bytes = bytes_of(original);
  CHECK(bytes.rfind("TSRTRACE", 0) == 0);
  const Trace back = read_bytes(bytes);
  test::check_same(original, back);
  CHECK(bytes_of(back) == bytes);
}

TEST_CASE("binary keeps fields the text form leaves out") {
  Trace t = test::sample_trace();
  Instr* store = nullptr;  // a store does not use d, nor a compare
  for (Instr& in : t.programs[0].instrs) {
    if (in.kind == OpKind::kStore && store == nullptr) store = &in;
  }
  REQUIRE(store != nullptr);
  store->d = wg() * 3;
  store->compare = tessera::models::sync::Compare::kNe;
  const std::size_t at = static_cast<std::size_t>(store - t.programs[0].instrs.data());
  const Trace back = read_bytes(bytes_of(t));
  CHECK(back.programs[0].instrs[at].d == wg() * 3);
  CHECK(back.programs[0].instrs[at].compare == tessera::models::sync::Compare::kNe);
}

TEST_CASE("a fine-grained buffer makes the trace version 6, and both forms keep its coherence") {
  TraceBuilder b(2);
  b.buffer("coarse", 4096);
  b.buffer("fine", 4096, Coherence::kFine);
  ProgramBuilder p("p");
  p.load(1, 1, 0, 4096);
  b.launch({"k", 0, 0, 1, b.program(std::move(p)), {}});
  const Trace t = std::move(b).build();
  CHECK(t.version == kBufferCoherenceVersion);
  const Trace back = read_bytes(bytes_of(t));
  test::check_same(t, back);
  CHECK(back.buffers[1].coherence == Coherence::kFine);
  std::ostringstream text;
  write_trace_text(text, t);
  CHECK(text.str().find(R"("coherence":"fine")") != std::string::npos);
  CHECK(text.str().find(R"("buffer":"coarse","bytes":4096})") != std::string::npos);  // the default is not written
  std::istringstream in(text.str());
  test::check_same(t, read_trace_text(in, "t.jsonl"));
  // A byte other than 0 or 1 is corrupt, named with its offset.
  std::string bad = bytes_of(t);
  const std::size_t at = bad.find("coarse") + 6 + 8;  // the name, then the size
  bad[at] = 7;
  CHECK(error_of(bad) == fmt::format("t.tsrt: byte {}: buffer 0 coherence: 7 (0 coarse or 1 fine)", at));
}

TEST_CASE("the header: magic and version") {
  const std::string good = bytes_of(test::sample_trace());
  CHECK(error_of("") == R"(t.tsrt: byte 0: not a binary trace (the magic bytes "TSRTRACE" are missing))");
  CHECK(error_of("{\"tessera_trace\": 1}") == R"(t.tsrt: byte 0: not a binary trace (the magic bytes "TSRTRACE" are missing))");
  std::string v9 = good;
  put_u32(v9, 8, 9);
  CHECK(error_of(v9) == "t.tsrt: byte 8: format version 9 (this Tessera reads versions 1 to 8)");
  std::string v0 = good;
  put_u32(v0, 8, 0);
  CHECK(error_of(v0) == "t.tsrt: byte 8: format version 0 (this Tessera reads versions 1 to 8)");
  // The sample uses load_async, which version 2 does not have.
  std::string v2 = good;
  put_u32(v2, 8, 2);
  CHECK(error_of(v2) == "t.tsrt: program 'everything' instruction 27 (load_async): needs format version 3 "
                        "(the trace is version 2)");
  // The sample uses atomic_add_range, which version 1 does not have.
  std::string v1 = good;
  put_u32(v1, 8, 1);
  CHECK(error_of(v1) == "t.tsrt: program 'everything' instruction 14 (atomic_add_range): needs format version 2 "
                        "(the trace is version 1)");
  std::string no_ranks = good;
  put_u32(no_ranks, 12, 0);
  CHECK(error_of(no_ranks) == "t.tsrt: byte 12: ranks must be at least 1");
}

TEST_CASE("every truncation is a TraceError with a byte offset") {
  const std::string good = bytes_of(test::sample_trace());
  for (std::size_t n = 0; n < good.size(); ++n) {
    const std::string message = error_of(good.substr(0, n));
    CHECK_MESSAGE(message.rfind("t.tsrt: byte ", 0) == 0, "length ", n, ": ", message);
  }
  CHECK(error_of(good.substr(0, 20)).find("truncated") != std::string::npos);
  CHECK(error_of(good + "x") == "t.tsrt: byte " + std::to_string(good.size()) + ": 1 trailing bytes after the trace (corrupt)");
}

TEST_CASE("absurd counts are refused before anything is allocated") {
  const std::string good = bytes_of(test::sample_trace());
  std::string ranks = good;
  put_u32(ranks, 12, 0xffffffff);
  CHECK(error_of(ranks).rfind("t.tsrt: byte 12: ranks 4294967295: their host lists cannot fit", 0) == 0);
  std::string buffers = good;
  put_u32(buffers, 16, 0xffffffff);
  CHECK(error_of(buffers).rfind("t.tsrt: byte 16: buffer count: 4294967295 cannot fit in the", 0) == 0);
  std::string name = good;
  put_u32(name, 20, 0x7fffffff);  // the first buffer's name length
  CHECK(error_of(name).rfind("t.tsrt: byte 20: buffer 0 name: length 2147483647 but only", 0) == 0);
}

TEST_CASE("corrupt enums and expressions name the byte and the field") {
  const Trace t = test::sample_trace();
  const std::string good = bytes_of(t);
  // The first instruction follows the header (16 bytes), the buffers, the program count and
  // the first program's name and instruction count.
  std::size_t at = 16 + 4;
  for (const Buffer& b : t.buffers) at += 4 + b.name.size() + 8;
  at += 4 + 4 + t.programs[0].name.size() + 4;
  std::string kind = good;
  kind[at] = 99;
  CHECK(error_of(kind) == "t.tsrt: byte " + std::to_string(at) + ": program 0 instruction 0 op: 99 is out of range (corrupt)");
  std::string mask = good;
  mask[at + 5] = static_cast<char>(0x40);
  CHECK(error_of(mask) == "t.tsrt: byte " + std::to_string(at + 5) +
                              ": program 0 instruction 0 expression mask: 0x40 is out of range (corrupt)");
  // The first instruction is `set r2 = 3*(wg/4) + 1`: expression a follows the 10 fixed bytes.
  std::string terms = good;
  terms[at + 10 + 8] = 4;
  CHECK(error_of(terms) == "t.tsrt: byte " + std::to_string(at + 18) +
                               ": program 0 instruction 0 expression a: 4 terms (at most 3; corrupt)");
  std::string var = good;
  var[at + 10 + 8 + 1 + 8] = 16;
  CHECK(error_of(var) == "t.tsrt: byte " + std::to_string(at + 27) +
                             ": program 0 instruction 0 expression a: variable 16 is out of range (corrupt)");
  std::string div = good;
  put_u32(div, at + 28, 0);
  CHECK(error_of(div) == "t.tsrt: byte " + std::to_string(at + 28) +
                             ": program 0 instruction 0 expression a: division by zero (corrupt)");
}

TEST_CASE("any single corrupted byte gives a trace or a TraceError, nothing else") {
  const std::string good = bytes_of(test::sample_trace());
  for (std::size_t i = 0; i < good.size(); ++i) {
    for (const unsigned char flip : {0x01, 0x80, 0xff}) {
      std::string bad = good;
      bad[i] = static_cast<char>(static_cast<unsigned char>(bad[i]) ^ flip);
      try {
        read_bytes(bad);
      } catch (const TraceError&) {
      } catch (const std::exception& e) {
        FAIL("byte ", i, " ^ ", int(flip), ": ", e.what());
      }
    }
  }
}

// Found by fuzz_trace_binary: a name that is not UTF-8 read fine, and then `trace convert` to
// text failed inside the JSON writer ("run failed", exit 1) instead of naming the bad byte.
TEST_CASE("a name that is not valid UTF-8 is corrupt: the text form could not hold it") {
  Trace t = test::sample_trace();
  t.buffers[0].name = "A\xff";
  // The first buffer's name follows the magic, version, ranks and buffer count.
  CHECK(error_of(bytes_of(t)) == "t.tsrt: byte 20: buffer 0 name: not valid UTF-8 (corrupt)");
  for (const std::string bad : {"\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"}) {
    t.buffers[0].name = bad;  // overlong '/', a surrogate, past U+10FFFF, cut short
    CHECK(error_of(bytes_of(t)).find("not valid UTF-8") != std::string::npos);
  }
  t.buffers[0].name = "tile \xc2\xb5 \xe2\x82\xac \xf0\x9f\x98\x80";  // µ, €, an emoji
  CHECK(read_bytes(bytes_of(t)).buffers[0].name == t.buffers[0].name);
}

// Found by fuzz_trace_binary: these read, but `trace convert` to text gave a different trace
// (the text reader drops a zero term and merges repeated ones) or one its reader refuses (a
// name defined twice).
TEST_CASE("what the text form cannot hold is corrupt: zero or repeated terms, buffer or program names twice") {
  Trace t = test::sample_trace();
  Expr raw(7);  // built by hand: Expr::add would drop or merge these terms
  raw.num_terms = 2;
  raw.terms[0] = Term{0, static_cast<std::uint8_t>(Var::kRank), 1, 0};
  raw.terms[1] = Term{2, static_cast<std::uint8_t>(Var::kWg), 1, 0};
  t.programs[0].instrs[0].a = raw;
  CHECK(error_of(bytes_of(t)).find("program 0 instruction 0 expression a: a term with coefficient 0 (corrupt)") !=
        std::string::npos);
  raw.terms[0] = Term{3, static_cast<std::uint8_t>(Var::kWg), 1, 0};
  t.programs[0].instrs[0].a = raw;
  CHECK(error_of(bytes_of(t)).find("expression a: term 1 repeats the variable, divisor and modulus of term 0 (corrupt)") !=
        std::string::npos);

  t = test::sample_trace();
  t.buffers[1].name = t.buffers[0].name;
  CHECK(error_of(bytes_of(t)).find("buffer 1 name: buffer 'A' is defined twice (corrupt)") != std::string::npos);
  t = test::sample_trace();
  REQUIRE(t.programs.size() >= 2);
  t.programs[1].name = t.programs[0].name;
  CHECK(error_of(bytes_of(t)).find("program 1 name: program '" + t.programs[0].name + "' is defined twice (corrupt)") !=
        std::string::npos);
  t = test::sample_trace();
  t.programs[0].name = t.buffers[0].name;  // a buffer and a program may share a name, as in the text form
  CHECK(error_of(bytes_of(t)) == "");
}

TEST_CASE("a binary trace that breaks a rule is reported with validate's words") {
  Trace t = test::sample_trace();
  t.kernels[0].grid = 0;
  CHECK(error_of(bytes_of(t)) == "t.tsrt: kernel 'main': grid must be at least 1");
}

TEST_CASE("a version-1 trace (no atomic_add_range) keeps its version through a binary round trip") {
  TraceBuilder b(1);
  const auto buf = b.buffer("x", 4096);
  ProgramBuilder p("p");
  p.store(buf, rank(), 0, 4096);
  const auto prog = b.program(std::move(p));
  b.launch({"k", 0, 0, 1, prog, {}, 0, 0});
  const Trace t = std::move(b).build();
  CHECK(t.version == 1);
  const std::string bytes = bytes_of(t);
  CHECK(static_cast<unsigned char>(bytes[8]) == 1);
  const Trace back = read_bytes(bytes);
  test::check_same(t, back);
  CHECK(test::sample_trace().version == 3);
}

TEST_CASE("a collective kernel: version 4, kept by the round trip, its flag byte 0 or 1") {
  TraceBuilder b(1);
  ProgramBuilder p("p");
  p.compute(1);
  const auto prog = b.program(std::move(p));
  Kernel k{"all_gather", 0, 0, 1, prog, {}};
  k.collective = true;
  b.launch(std::move(k));
  const Trace t = std::move(b).build();
  CHECK(t.version == 4u);
  const std::string bytes = bytes_of(t);
  CHECK(read_bytes(bytes).kernels.at(0).collective);
  // The flag is the byte after the kernel's cu_count, 11 bytes from the end: the argument count
  // (1 byte) and the host list (u32 count, u8 op, u32 kernel index) follow it.
  std::string corrupt = bytes;
  corrupt[corrupt.size() - 11] = 2;
  CHECK(error_of(corrupt).find("collective: 2 (0 or 1)") != std::string::npos);
}

TEST_CASE("host delays: version 5, op 3 followed by the u64 delay, an exact round trip") {
  const Trace t = test::delay_trace();
  const std::string bytes = bytes_of(t);
  CHECK(static_cast<unsigned char>(bytes[8]) == 5);
  const Trace back = read_bytes(bytes);
  test::check_same(t, back);
  CHECK(bytes_of(back) == bytes);

  const std::string one = bytes_of(one_delay(10'000'000));
  // The last rank's host list: u32 count 2, the launch (u8 0, u32 0), the delay (u8 3, u32 0, u64).
  const std::size_t list = one.size() - (4 + 5 + 13);
  CHECK(static_cast<unsigned char>(one[list]) == 2);
  CHECK(static_cast<unsigned char>(one[list + 4]) == 0);
  CHECK(static_cast<unsigned char>(one[list + 9]) == 3);
  CHECK(get_u64(one, one.size() - 8) == 10'000'000u);
  for (std::size_t n = 0; n < one.size(); ++n) {
    const std::string message = error_of(one.substr(0, n));
    CHECK_MESSAGE(message.rfind("t.tsrt: byte ", 0) == 0, "length ", n, ": ", message);
  }
}

TEST_CASE("a delay in a version-4 file, a delay beyond the limit, delays adding up beyond it: errors") {
  const std::string good = bytes_of(one_delay(5));
  const std::size_t op_at = good.size() - 13;
  std::string v4 = good;
  put_u32(v4, 8, 4);
  CHECK(error_of(v4) == "t.tsrt: byte " + std::to_string(op_at) +
                            ": rank 0 host command 1 op: 3 (delay) needs format version 5 (the file is version 4; corrupt)");
  std::string op4 = good;
  op4[op_at] = 4;
  CHECK(error_of(op4) == "t.tsrt: byte " + std::to_string(op_at) + ": rank 0 host command 1 op: 4 is out of range (corrupt)");
  std::string large = good;
  put_u64(large, good.size() - 8, kMaxHostDelayPs + 1);
  CHECK(error_of(large) == "t.tsrt: byte " + std::to_string(good.size() - 8) +
                               ": rank 0 host command 1 delay_ps: 1000000000000001 is too large (at most 1000000000000000; corrupt)");
  Trace sum = one_delay(kMaxHostDelayPs);
  sum.host[0].push_back({HostOp::kDelay, 0, 1});
  CHECK(error_of(bytes_of(sum)) == "t.tsrt: rank 0: host delays add up to more than 1000000000000000 ps");
  CHECK(validate(one_delay(kMaxHostDelayPs)) == std::nullopt);
  // Only a delay has the field, so only a delay may set it: the binary form stores nothing else.
  Trace stray = one_delay(5);
  stray.host[0][0].delay_ps = 9;
  CHECK(validate(stray) == "rank 0: a host command other than delay with delay_ps 9");
  Trace old = one_delay(5);
  old.version = 4;
  CHECK(validate(old) == "rank 0: a host delay needs format version 5 (the trace is version 4)");
  Trace huge = one_delay(5);
  huge.host[0][1].delay_ps = kMaxHostDelayPs + 1;
  CHECK(validate(huge) == "rank 0: a host delay of 1000000000000001 ps (at most 1000000000000000 ps)");
}

// Traces without a delay are written as before version 5, to the byte. The committed seeds of
// the binary fuzz target were written by the writers of versions 1 to 4.
TEST_CASE("traces without a delay keep their version and their bytes") {
  const std::filesystem::path seeds = std::filesystem::path(TESSERA_TRACE_DATA_DIR) / "../../../fuzz/corpus/trace_binary";
  int checked = 0;
  for (const char* name : {"flags_one_rank.tsrt", "two_rank_push.tsrt", "v2_loops_registers.tsrt", "v3_async_loads.tsrt",
                           "v4_collective.tsrt"}) {
    CAPTURE(name);
    std::ifstream in(seeds / name, std::ios::binary);
    REQUIRE(in);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const Trace t = read_bytes(bytes);
    CHECK(t.version == required_version(t));
    CHECK(t.version <= 4u);
    CHECK(bytes_of(t) == bytes);
    ++checked;
  }
  CHECK(checked == 5);
}

TEST_CASE("a stream index beyond the limit is corrupt, named with its byte") {
  TraceBuilder b(1);
  ProgramBuilder p("p");
  p.compute(1);
  const auto prog = b.program(std::move(p));
  b.launch({"k", 0, 7, 1, prog, {}, 0, 0});
  Trace t = std::move(b).build();
  CHECK(error_of(bytes_of(t)).empty());
  t.kernels[0].stream = kMaxStreams;
  CHECK_MESSAGE(error_of(bytes_of(t)).find("stream: 1024 (0..1023; corrupt)") != std::string::npos, error_of(bytes_of(t)));
  CHECK(validate(t).value_or("") == "kernel 'k': stream 1024 (0..1023)");
}

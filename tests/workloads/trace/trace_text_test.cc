// The text form: what the writer writes reads back equal, and what a script is likely to
// write (integral floats, sizes with units, launches by name, rank-less commands) reads too.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "tests/workloads/trace/trace_test_support.h"
#include "workloads/trace/builder.h"
#include "workloads/trace/trace_text.h"

using namespace tessera::workloads::trace;

namespace {

std::string text_of(const Trace& t) {
  std::ostringstream out;
  write_trace_text(out, t);
  return out.str();
}

Trace read_text(const std::string& text) {
  std::istringstream in(text);
  return read_trace_text(in, "t.jsonl");
}

constexpr const char* kHeader = R"({"tessera_trace": 1, "ranks": 2})"
                                "\n";

}  // namespace

TEST_CASE("text round trip: the sample trace reads back equal, and writes the same text again") {
  const Trace original = test::sample_trace();
  const std::string text = text_of(original);
  const Trace back = read_text(text);
  test::check_same(original, back);
  CHECK(text_of(back) == text);
}

TEST_CASE("text round trip keeps per-rank barrier lines, and uneven barrier counts are refused") {
  TraceBuilder b(2);
  ProgramBuilder p("p");
  p.compute(1);
  const auto prog = b.program(std::move(p));
  b.launch({"k", 0, 0, 1, prog, {}, 0, 0});
  b.rank_barrier();
  b.sync(1);
  b.launch({"k", 1, 0, 1, prog, {}, 0, 0});
  Trace t = std::move(b).build();
  CHECK(t.version == 1);  // no atomic_add_range: the builder keeps the oldest version
  t.host[0].push_back({HostOp::kRankBarrier, 0});  // rank 0: a second barrier of its own
  t.host[1].insert(t.host[1].begin(), {HostOp::kRankBarrier, 0});  // rank 1: its second, before the shared one
  const std::string text = text_of(t);
  CHECK(text.rfind(R"({"tessera_trace":1,"ranks":2})", 0) == 0);
  test::check_same(t, read_text(text));
  // Rank 0 with a third barrier would wait at it forever: the trace is refused when read.
  const std::string uneven = text + R"({"host":"rank_barrier","rank":0})" + "\n";
  CHECK_THROWS_WITH_AS(read_text(uneven), doctest::Contains("rank 1 has 2 rank_barrier commands and rank 0 has 3"),
                       TraceError);
}

TEST_CASE("the writer writes one record per line: header, buffers, programs, kernels, host") {
  const std::string text = text_of(test::sample_trace());
  CHECK(text.rfind(R"({"tessera_trace":3,"ranks":3})" "\n", 0) == 0);  // it uses load_async
  CHECK(text.find(R"({"op":"load_async","buffer":"A","rank":"rank","offset":"64*wg","bytes":256,"slot":3})") !=
        std::string::npos);
  CHECK(text.find(R"({"op":"wait_load","slot":3})") != std::string::npos);
  CHECK(text.find(R"({"op":"atomic_add_range","buffer":"A","rank":"r1%3","offset":"64*wg + 128","bytes":64,"dtype":"bf16"})") !=
        std::string::npos);
  CHECK(text.find(R"({"buffer":"A","bytes":1048576})") != std::string::npos);
  CHECK(text.find(R"("offset":"4096*i0 - nwg + 7")") != std::string::npos);
  CHECK(text.find(R"({"op":"wait","flag_rank":0,"flag_id":3,"compare":"lt","value":9,"acquire_buffer":"flags area",)") !=
        std::string::npos);
  CHECK(text.find(R"({"op":"set","register":"r7","value":-5})") != std::string::npos);
  CHECK(text.find(R"("cu_first":8,"cu_count":16)") != std::string::npos);
  CHECK(text.find(R"({"host":"rank_barrier"})") != std::string::npos);
}

TEST_CASE("what a script writes reads: floats with whole values, units, names, defaults") {
  const Trace t = read_text(std::string(kHeader) +
                            "\n"  // blank lines are skipped
                            R"({"buffer": "A", "bytes": "64 KiB"})" "\r\n"
                            R"({"buffer": "B", "bytes": 4096.0})" "\n"
                            R"({"program": "p", "ops": [{"op": "compute", "flops": 8.0e9}, {"op": "set", "register": 3, "value": "wg"},)"
                            R"( {"op": "barrier", "scope": "device"}, {"op": "wait", "flag_rank": 0, "flag_id": 1, "value": 1}]})" "\n"
                            R"({"kernel": "k", "rank": 1, "grid": 8.0, "program": "p", "args": [7, "wg/2"]})" "\n"
                            R"({"kernel": "k", "rank": 0, "grid": 8, "program": "p"})" "\n"
                            R"({"host": "launch", "kernel": "k", "rank": 1})" "\n"
                            R"({"host": "launch", "kernel": 1})" "\n"
                            R"({"host": "sync"})" "\n"
                            R"({"host": "sync", "rank": 1})" "\n");
  CHECK(t.buffers[0].bytes == 65536);
  CHECK(t.buffers[1].bytes == 4096);
  const Program& p = t.programs[0];
  CHECK(p.instrs[0].a == Expr(8'000'000'000LL));
  CHECK(p.instrs[0].dtype == tessera::models::compute::Dtype::kFp16);  // the default dtype
  CHECK(p.instrs[1].target == 3);
  CHECK(p.instrs[2].a == Expr(0));  // the default barrier id
  CHECK(p.instrs[3].compare == tessera::models::sync::Compare::kGe);  // the default compare
  CHECK(p.instrs[3].buffer == kNoBuffer);
  CHECK(t.kernels[0].stream == 0);
  CHECK(t.kernels[0].args.size() == 2);
  CHECK(t.kernels[0].args[1] == div(wg(), 2));
  REQUIRE(t.host[0].size() == 2);
  REQUIRE(t.host[1].size() == 3);
  CHECK(t.host[1][0].kernel == 0);
  CHECK(t.host[0][0].kernel == 1);
  CHECK(t.host[0][1].op == HostOp::kSync);
  CHECK(t.host[1][2].op == HostOp::kSync);
}

TEST_CASE("the committed example reads and validates") {
  std::ifstream in(std::string(TESSERA_TRACE_DATA_DIR) + "/two_rank_push.jsonl");
  REQUIRE(in);
  const Trace t = read_trace_text(in, "two_rank_push.jsonl");
  CHECK(!validate(t).has_value());
  CHECK(t.ranks == 2);
  REQUIRE(t.kernels.size() == 2);
  CHECK(t.kernels[0].rank == 0);
  CHECK(t.kernels[1].rank == 1);
  // Rank 0 stores into rank 1's copy and releases a flag there; rank 1 waits on it, then loads.
  const Program& push = t.programs[t.kernels[0].program];
  const Program& pull = t.programs[t.kernels[1].program];
  CHECK(push.instrs[1].kind == OpKind::kStore);
  CHECK(push.instrs[1].a == rank() + 1);
  CHECK(push.instrs[2].kind == OpKind::kRelease);
  CHECK(pull.instrs[0].kind == OpKind::kWait);
  CHECK(pull.instrs[0].buffer == 0);
  CHECK(pull.instrs[1].kind == OpKind::kLoad);
}

TEST_CASE("host delays: version 5, written with their rank and delay_ps, read back equal") {
  const Trace original = test::delay_trace();
  CHECK(original.version == 5u);
  CHECK(required_version(original) == kHostDelayVersion);
  const std::string text = text_of(original);
  CHECK(text.rfind(R"({"tessera_trace":5,"ranks":2})" "\n", 0) == 0);
  CHECK(text.find(R"({"host":"launch","rank":0,"kernel":0})" "\n"
                  R"({"host":"delay","rank":0,"delay_ps":10000000})" "\n"
                  R"({"host":"launch","rank":0,"kernel":1})" "\n"
                  R"({"host":"delay","rank":0,"delay_ps":0})" "\n") != std::string::npos);
  CHECK(text.find(R"({"host":"delay","rank":1,"delay_ps":1000000000000000})") != std::string::npos);
  const Trace back = read_text(text);
  test::check_same(original, back);
  CHECK(text_of(back) == text);
}

TEST_CASE("a delay without a rank is on every rank, and delay_ps may be a float with a whole value") {
  const Trace t = read_text(R"({"tessera_trace": 5, "ranks": 2})" "\n"
                            R"({"host": "delay", "delay_ps": 2.5e6})" "\n"
                            R"({"host": "delay", "rank": 1, "delay_ps": 7})" "\n");
  REQUIRE(t.host[0].size() == 1);
  REQUIRE(t.host[1].size() == 2);
  CHECK(t.host[0][0].op == HostOp::kDelay);
  CHECK(t.host[0][0].delay_ps == 2'500'000u);
  CHECK(t.host[1][0].delay_ps == 2'500'000u);
  CHECK(t.host[1][1].delay_ps == 7u);
}

// Traces without a delay are written as before version 5, to the byte: the header keeps the
// lowest version that holds them and a host command has no delay field.
TEST_CASE("a trace without a delay keeps its version and its text") {
  TraceBuilder b(2);
  const auto x = b.buffer("x", 4096);
  ProgramBuilder p("p");
  p.store(x, rank(), 0, 4096);
  const auto prog = b.program(std::move(p));
  b.launch({"k", 0, 0, 1, prog, {}, 0, 0});
  b.launch({"k", 1, 0, 1, prog, {}, 0, 0});
  b.sync_all();
  b.rank_barrier();
  const Trace t = std::move(b).build();
  CHECK(t.version == 1u);
  CHECK(text_of(t) == R"({"tessera_trace":1,"ranks":2})" "\n"
                      R"({"buffer":"x","bytes":4096})" "\n"
                      R"({"program":"p","ops":[{"op":"store","buffer":"x","rank":"rank","offset":0,"bytes":4096}]})" "\n"
                      R"({"kernel":"k","rank":0,"stream":0,"grid":1,"program":"p"})" "\n"
                      R"({"kernel":"k","rank":1,"stream":0,"grid":1,"program":"p"})" "\n"
                      R"({"host":"launch","rank":0,"kernel":0})" "\n"
                      R"({"host":"sync","rank":0})" "\n"
                      R"({"host":"launch","rank":1,"kernel":1})" "\n"
                      R"({"host":"sync","rank":1})" "\n"
                      R"({"host":"rank_barrier"})" "\n");
  CHECK(test::sample_trace().version == 3u);
}

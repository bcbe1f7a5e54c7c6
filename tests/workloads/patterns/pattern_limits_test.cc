// The generators against the replay's size limits (workloads/replay/replay_limits.h): an absurd
// size of any family makes a compact trace in milliseconds (its programs loop; nothing is sized
// by the workload), and the limits refuse it before any machine exists. The defaults and the
// target sizes of docs/performance.md pass.
#include <doctest/doctest.h>

#include <chrono>
#include <optional>
#include <string>

#include "tests/workloads/patterns/test_systems.h"
#include "workloads/patterns/attention.h"
#include "workloads/patterns/flash_decode.h"
#include "workloads/patterns/gemm.h"
#include "workloads/patterns/gemm_all_reduce.h"
#include "workloads/replay/replay_limits.h"

namespace tessera::workloads::patterns {
namespace {

models::SystemSpec node(std::uint32_t gpus) {
  models::SystemSpec s = test::mi300x_node(gpus);
  s.gpu.memory.hbm_capacity_bytes = 192'000'000'000;
  return s;
}

// Generates the trace (timed) and returns the limit it exceeds, if any.
template <class Params>
std::optional<std::string> problem_of(trace::Trace (*make)(const Params&, const models::SystemSpec&), const Params& p,
                                      const models::SystemSpec& system) {
  const auto t0 = std::chrono::steady_clock::now();
  const trace::Trace t = make(p, system);
  auto problem = replay::limits_problem(t, system);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(200));
  return problem;
}

}  // namespace

TEST_CASE("absurd sizes of every generator family are refused by the limits, in milliseconds") {
  GemmParams matmul;
  matmul.gemm.m = matmul.gemm.k = 1 << 20;  // A: 2 TiB
  auto problem = problem_of(&make_gemm, matmul, node(1));
  REQUIRE(problem);
  CHECK(problem->find("A 2 TiB") != std::string::npos);

  AttentionParams attention;
  attention.seq_len = 1 << 22;  // Q, K, V: 128 GiB x 32 each
  problem = problem_of(&make_attention, attention, node(1));
  REQUIRE(problem);
  CHECK(problem->find("of HBM") != std::string::npos);

  FlashDecodeParams decode;
  decode.kv_len_per_rank = 1 << 24;
  decode.batch = 1024;
  problem = problem_of(&make_flash_decode, decode, node(8));
  REQUIRE(problem);
  CHECK(problem->find("K ") != std::string::npos);

  GemmAllReduceParams reduce;
  reduce.gemm.m = 65536;
  reduce.gemm.k = 1 << 24;
  CHECK(problem_of(&make_gemm_all_reduce, reduce, node(8)));
}

TEST_CASE("the defaults and the largest target sizes are within the limits") {
  CHECK_FALSE(problem_of(&make_gemm, GemmParams{}, node(1)));
  CHECK_FALSE(problem_of(&make_attention, AttentionParams{}, node(1)));  // 128 heads x 131072: the attention target
  FlashDecodeParams decode;
  decode.batch = 16;
  decode.kv_len_per_rank = 262144;  // the flash_decode target
  CHECK_FALSE(problem_of(&make_flash_decode, decode, node(8)));
  CHECK_FALSE(problem_of(&make_gemm_all_reduce, GemmAllReduceParams{}, node(8)));
}

}  // namespace tessera::workloads::patterns

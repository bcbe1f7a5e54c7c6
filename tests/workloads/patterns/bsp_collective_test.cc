// The bulk-synchronous variants' `collective` and `host` keys (bsp_collective.h): a library's
// collective replaces Tessera's kernel with the library's own kernels and FIFO; host: pytorch puts
// the system's framework costs before each launch, and the replay pays them where the host is
// behind the GPU.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "tests/support/test_systems.h"
#include "workloads/patterns/ag_gemm.h"
#include "workloads/patterns/flash_decode.h"
#include "workloads/patterns/gemm_all_reduce.h"
#include "workloads/patterns/gemm_all_scatter.h"
#include "workloads/patterns/nccl_kernels.h"
#include "workloads/patterns/nccl_tuning.h"
#include "workloads/replay/replay.h"

namespace p = tessera::workloads::patterns;
namespace trace = tessera::workloads::trace;
using tessera::models::SystemSpec;
using tessera::workloads::replay::replay_trace;

namespace {

p::AgGemmParams small_ag_gemm(std::uint32_t ranks) {
  p::AgGemmParams params;
  params.gemm.m = 256;
  params.gemm.n = 512;
  params.gemm.k = 1024 * ranks;
  params.ranks = ranks;
  params.workgroups = 16;
  params.variant = p::AgGemmVariant::kBsp;
  return params;
}

SystemSpec with_framework_costs(SystemSpec s) {
  s.host.framework_op_ps = 17'000'000;          // 17 us
  s.host.framework_collective_ps = 27'000'000;  // 27 us
  return s;
}

std::uint64_t host_delays_ps(const trace::Trace& t, std::uint32_t rank) {
  std::uint64_t sum = 0;
  for (const auto& cmd : t.host[rank]) {
    if (cmd.op == trace::HostOp::kDelay) sum += cmd.delay_ps;
  }
  return sum;
}

bool has_buffer(const trace::Trace& t, const std::string& name) {
  for (const auto& b : t.buffers) {
    if (b.name == name) return true;
  }
  return false;
}

std::uint64_t makespan_ps(const trace::Trace& t, const SystemSpec& s) { return replay_trace(t, s).makespan_ps; }

}  // namespace

TEST_CASE("bsp collective nccl runs NCCL's kernels with their FIFO, Tessera's ring runs none") {
  const SystemSpec node = tessera::test::hopper(2, "direct");
  p::AgGemmParams params = small_ag_gemm(2);
  const trace::Trace ring = p::make_ag_gemm(params, node);
  CHECK_FALSE(has_buffer(ring, "all_gather_fifo"));
  params.collective = p::BspCollective::kNccl;
  const trace::Trace nccl = p::make_ag_gemm(params, node);
  REQUIRE(has_buffer(nccl, "all_gather_fifo"));
  // The FIFO is the one NCCL's plan for this all-gather needs: the trace is the library's.
  const auto plan = p::nccl_plan(p::CollectiveOp::kAllGather, 2 * (params.gemm.m * params.gemm.k / 2) * 2,
                                 p::nccl_topology_of(node, 2));
  for (const auto& b : nccl.buffers) {
    if (b.name == "all_gather_fifo") CHECK(b.bytes == p::nccl_fifo_bytes(plan));
  }
  // Both replay to completion; the library's call is not free.
  CHECK(makespan_ps(nccl, node) > 0);
  CHECK(makespan_ps(ring, node) > 0);
}

TEST_CASE("bsp host pytorch delays each launch by the framework's cost and the replay pays at least the first") {
  const SystemSpec node = with_framework_costs(tessera::test::hopper(2, "direct"));
  p::AgGemmParams params = small_ag_gemm(2);
  const trace::Trace none = p::make_ag_gemm(params, node);
  params.host = p::BspHost::kPytorch;
  const trace::Trace pytorch = p::make_ag_gemm(params, node);
  for (std::uint32_t r = 0; r < 2; ++r) {
    CHECK(host_delays_ps(none, r) == 0);
    // all_gather, concat, GEMM: one collective and two ops.
    CHECK(host_delays_ps(pytorch, r) == node.host.framework_collective_ps + 2 * node.host.framework_op_ps);
  }
  const std::uint64_t gpu_only = makespan_ps(none, node);
  const std::uint64_t eager = makespan_ps(pytorch, node);
  // The first delay comes before any GPU work; the later ones overlap the GPU's work at most.
  CHECK(eager >= gpu_only + node.host.framework_collective_ps);
  CHECK(eager <= gpu_only + node.host.framework_collective_ps + 2 * node.host.framework_op_ps);
}

TEST_CASE("bsp host pytorch on a system without framework costs is refused at the key host") {
  const SystemSpec node = tessera::test::hopper(2, "direct");
  p::AgGemmParams params = small_ag_gemm(2);
  params.host = p::BspHost::kPytorch;
  const auto problem = p::check_against_system(params, node);
  REQUIRE(problem.has_value());
  CHECK(problem->key == "host");
  CHECK_THROWS_AS(p::make_ag_gemm(params, node), std::invalid_argument);
}

TEST_CASE("every bsp kind runs nccl and rccl collectives to completion") {
  const SystemSpec node = with_framework_costs(tessera::test::mi300x(2));
  for (const auto library : {p::BspCollective::kNccl, p::BspCollective::kRccl}) {
    CAPTURE(static_cast<int>(library));
    p::AgGemmParams ag = small_ag_gemm(2);
    ag.collective = library;
    ag.host = p::BspHost::kPytorch;
    CHECK(makespan_ps(p::make_ag_gemm(ag, node), node) > 0);

    p::GemmAllReduceParams ar;
    ar.gemm.m = 256;
    ar.gemm.n = 256;
    ar.gemm.k = 1024;
    ar.ranks = 2;
    ar.workgroups = 16;
    ar.variant = p::GemmAllReduceVariant::kBsp;
    ar.collective = library;
    const trace::Trace ar_trace = p::make_gemm_all_reduce(ar, node);
    CHECK(has_buffer(ar_trace, "all_reduce_fifo"));
    CHECK(makespan_ps(ar_trace, node) > 0);

    p::GemmAllScatterParams as;
    as.gemm.m = 256;
    as.gemm.n = 512;
    as.gemm.k = 512;
    as.ranks = 2;
    as.gemm_wgs = 16;
    as.variant = p::GemmAllScatterVariant::kBsp;
    as.collective = library;
    CHECK(makespan_ps(p::make_gemm_all_scatter(as, node), node) > 0);

    p::FlashDecodeParams fd;
    fd.ranks = 2;
    fd.batch = 1;
    fd.kv_len_per_rank = 4096;
    fd.kv_splits = 4;
    fd.variant = p::FlashDecodeVariant::kBsp;
    fd.collective = library;
    fd.host = p::BspHost::kPytorch;
    const trace::Trace fd_trace = p::make_flash_decode(fd, node);
    // split_kv, combine, global_reduce and the collective.
    CHECK(host_delays_ps(fd_trace, 0) == 3 * node.host.framework_op_ps + node.host.framework_collective_ps);
    CHECK(makespan_ps(fd_trace, node) > 0);
  }
}

TEST_CASE("an in-place NCCL all_gather sends each rank's block from the output and skips its own copy") {
  const SystemSpec node = tessera::test::hopper(2, "direct");
  constexpr std::uint64_t kSize = 2 << 20;
  std::uint64_t makespans[2] = {0, 0};
  std::size_t output_stores[2] = {0, 0};
  for (const bool in_place : {false, true}) {
    trace::TraceBuilder tb(2);
    p::NcclKernelSpec spec;
    spec.op = p::CollectiveOp::kAllGather;
    spec.size_bytes = kSize;
    spec.plan = p::nccl_plan(spec.op, kSize, p::nccl_topology_of(node, 2));
    spec.output_buffer = tb.buffer("out", kSize);
    spec.input_buffer = in_place ? spec.output_buffer : tb.buffer("in", kSize / 2);
    spec.fifo_buffer = tb.buffer("fifo", p::nccl_fifo_bytes(spec.plan));
    spec.in_place = in_place;
    p::append_nccl_collective(tb, 2, spec);
    const trace::Trace t = std::move(tb).build();
    for (const trace::Program& prog : t.programs) {
      for (const trace::Instr& in : prog.instrs) {
        output_stores[in_place] += in.kind == trace::OpKind::kStore && in.buffer == spec.output_buffer ? 1 : 0;
      }
    }
    makespans[in_place] = makespan_ps(t, node);
  }
  // Two ranks: out of place, each rank stores its own block and the peer's; in place, only the peer's.
  CHECK(output_stores[0] == 2 * output_stores[1]);
  CHECK(makespans[1] > 0);
  CHECK(makespans[1] <= makespans[0]);
}

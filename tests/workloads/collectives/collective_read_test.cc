// Reading kind `collective` (workloads/collectives/collective_schema.h): defaults, units, and each
// bad input refused before anything runs, as a ConfigError at the key to change.
#include <doctest/doctest.h>

#include <string>

#include "sim/config/config_error.h"
#include "tests/support/run_config.h"
#include "workloads/collectives/collective_params.h"
#include "workloads/collectives/collective_plan.h"
#include "workloads/workload_kinds.h"

namespace c = tessera::workloads::collectives;
namespace wl = tessera::workloads;
using tessera::sim::config::ConfigError;

namespace {

wl::Workload read(const std::string& system, const std::string& workload) {
  const auto parts = tessera::test::read_run_config_text("system: " + system + "\nworkload: " + workload + "\n");
  const wl::WorkloadKind* kind = wl::find_workload_kind("collective");
  REQUIRE(kind != nullptr);
  return kind->read(parts.workload, parts.system);
}

tessera::models::SystemSpec read_system(const std::string& system) {
  return tessera::test::read_run_config_text("system: " + system + "\nworkload: {kind: phold}\n").system;
}

}  // namespace

TEST_CASE("collective: the defaults are an fp16 all_reduce of 256 MiB on every GPU, once, on Tessera's kernels") {
  const c::CollectiveParams p = read("mi300x-8", "{kind: collective}").params<c::CollectiveParams>();
  CHECK(p.op == c::CollectiveOp::kAllReduce);
  CHECK(p.size_bytes == 256ULL << 20);
  CHECK(p.dtype == tessera::models::compute::Dtype::kFp16);
  CHECK(p.ranks == 0);
  CHECK(p.library == c::CollectiveLibrary::kTessera);
  CHECK(p.algorithm == c::CollectiveAlgorithm::kAuto);
  CHECK(p.protocol == c::CollectiveProtocol::kAuto);
  CHECK(p.channels == 0);
  CHECK(p.chunk_bytes == 0);
  CHECK(p.iterations == 1);
  CHECK(p.host == c::CollectiveHost::kNone);
  // What `auto` and 0 become: Tessera's ring, 16 channels, 512 KiB pieces.
  const c::CollectivePlan plan = c::plan_of(p, read_system("mi300x-8"), 8);
  CHECK(plan.algorithm == c::CollectiveAlgorithm::kRing);
  CHECK(plan.channels == 16);
  CHECK(plan.chunk_bytes == 512ULL << 10);
  CHECK_FALSE(plan.nccl.has_value());
}

TEST_CASE("collective: keys read with their units, and describe themselves back") {
  const wl::Workload w = read("h200-2", "{kind: collective, op: reduce_scatter, size: 3 MB, dtype: fp32, ranks: 2, "
                                        "channels: 4, chunk: 64 KiB, iterations: 5}");
  const c::CollectiveParams& p = w.params<c::CollectiveParams>();
  CHECK(p.op == c::CollectiveOp::kReduceScatter);
  CHECK(p.size_bytes == 3'000'000);
  CHECK(p.dtype == tessera::models::compute::Dtype::kFp32);
  CHECK(p.chunk_bytes == 64ULL << 10);
  CHECK(p.iterations == 5);
  CHECK(w.to_json().at("size") == "3 MB");
  CHECK(w.to_json().at("op") == "reduce_scatter");
}

TEST_CASE("collective: an unknown op is refused at `op`, naming the six") {
  CHECK_THROWS_WITH_AS(read("mi300x-8", "{kind: collective, op: allreduce}"),
                       doctest::Contains("workload.op: expected one of all_gather, all_reduce, reduce_scatter, "
                                         "broadcast, reduce, all_to_all"),
                       ConfigError);
  for (const char* op : {"broadcast", "reduce", "all_to_all"}) {
    CAPTURE(op);
    CHECK_NOTHROW(read("mi300x-8", std::string("{kind: collective, size: 1 MiB, op: ") + op + "}"));
    CHECK_NOTHROW(read("mi300x-8", std::string("{kind: collective, size: 1 MiB, library: nccl, op: ") + op + "}"));
  }
}

TEST_CASE("collective: a size the op cannot split is refused at `size`, naming the nearest valid sizes") {
  // Ring all_reduce on 8 ranks of fp16: multiples of 16 B.
  CHECK_THROWS_WITH_AS(read("mi300x-8", "{kind: collective, size: 1000 B}"),
                       doctest::Contains("workload.size: 1000 B is not a multiple of 16 B"), ConfigError);
  CHECK_THROWS_WITH_AS(read("mi300x-8", "{kind: collective, size: 1000 B}"), doctest::Contains("test.yaml:2:"),
                       ConfigError);  // the file and line of the key
  CHECK_THROWS_WITH_AS(read("mi300x-8", "{kind: collective, size: 1000 B}"),
                       doctest::Contains("nearest valid sizes: 992 B and 1008 B"), ConfigError);
  // All-gather: the gathered buffer is 8 equal shares; below one share there is only the size above.
  CHECK_THROWS_WITH_AS(read("mi300x-8", "{kind: collective, op: all_gather, size: 12 B}"),
                       doctest::Contains("nearest valid size: 16 B"), ConfigError);
  // Reduce-scatter of fp32 on 2 ranks: multiples of 8 B.
  CHECK_THROWS_WITH_AS(read("h200-2", "{kind: collective, op: reduce_scatter, dtype: fp32, size: 1000004 B}"),
                       doctest::Contains("workload.size: 1000004 B is not a multiple of 8 B"), ConfigError);
  // One-shot all_reduce: every rank holds the whole buffer, whole elements suffice.
  CHECK_THROWS_WITH_AS(read("mi300x-8", "{kind: collective, algorithm: one_shot, size: 1001 B}"),
                       doctest::Contains("nearest valid sizes: 1 KB (1000 B) and 1002 B"), ConfigError);
  CHECK_NOTHROW(read("mi300x-8", "{kind: collective, algorithm: one_shot, size: 1002 B}"));
  CHECK_NOTHROW(read("mi300x-8", "{kind: collective, size: 1 MB}"));  // 10^6 = 16 x 62500
}

TEST_CASE("collective: more ranks than GPUs, an algorithm the op lacks, another library: refused at the key") {
  CHECK_THROWS_WITH_AS(read("h200-2", "{kind: collective, ranks: 4}"),
                       doctest::Contains("workload.ranks: 4 ranks but the system 'h200-2' has 2 GPU(s)"), ConfigError);
  CHECK_THROWS_WITH_AS(read("mi300x-8", "{kind: collective, op: reduce_scatter, algorithm: one_shot}"),
                       doctest::Contains("workload.algorithm: library tessera has no one_shot reduce_scatter; choices "
                                         "for reduce_scatter: auto, ring"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(read("mi300x-8", "{kind: collective, library: mscclpp}"),
                       doctest::Contains("workload.library: expected one of tessera, nccl, rccl"), ConfigError);
  // RCCL: its chunks follow the protocol too; LL128 is off on 8 x MI300X, an error at `protocol`.
  CHECK_THROWS_WITH_AS(read("mi300x-8", "{kind: collective, library: rccl, chunk: 1 MiB}"),
                       doctest::Contains("workload.chunk: library rccl sizes its chunks by protocol (RCCL's buffers)"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(read("mi300x-8", "{kind: collective, library: rccl, protocol: ll128}"),
                       doctest::Contains("workload.protocol: RCCL has no LL128 for all_reduce on 8 ranks"), ConfigError);
  CHECK_THROWS_WITH_AS(read("mi300x-8", "{kind: collective, library: rccl, op: all_gather, algorithm: tree}"),
                       doctest::Contains("workload.algorithm: library rccl has no tree all_gather"), ConfigError);
  // NCCL's tree runs all_reduce only; its protocols are NCCL's; its chunks follow the protocol.
  CHECK_THROWS_WITH_AS(read("h200-2", "{kind: collective, library: nccl, op: all_gather, algorithm: tree}"),
                       doctest::Contains("workload.algorithm: library nccl has no tree all_gather; choices for "
                                         "all_gather: auto, ring"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(read("h200-2", "{kind: collective, protocol: ll}"),
                       doctest::Contains("workload.protocol: protocol ll is NCCL's"), ConfigError);
  CHECK_THROWS_WITH_AS(read("h200-2", "{kind: collective, library: nccl, chunk: 1 MiB}"),
                       doctest::Contains("workload.chunk: library nccl sizes its chunks by protocol"), ConfigError);
  CHECK_THROWS_WITH_AS(read("h200-2", "{kind: collective, chunk: 64 B}"),
                       doctest::Contains("workload.chunk: 64 B is below the 128 B of a cache line"), ConfigError);
  CHECK_THROWS_WITH_AS(read("h200-2", "{kind: collective, host: mpi}"),
                       doctest::Contains("workload.host: expected one of none, one_thread, per_rank"), ConfigError);
  CHECK_THROWS_WITH_AS(read("mi300x-8", "{kind: collective, iterations: 0}"), doctest::Contains("workload.iterations"),
                       ConfigError);
  // Buffers beyond one GPU's HBM: the replay's limits, at `workload:` before anything runs.
  CHECK_THROWS_WITH_AS(read("mi300x-8", "{kind: collective, size: 64 GiB}"),
                       doctest::Contains("workload: collective is too large: the buffers need"), ConfigError);
}

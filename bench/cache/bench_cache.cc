// Speed of the cache model alone on the access pattern of a ring all-reduce on 8 x MI300X:
// every GPU's workgroups stream their inputs and a scratch buffer through their XCD's L2 and
// the MALL in large accesses, store to a peer's MALL, and acquire and release around each step
// (the calls MemorySystem makes for `bench/collectives/all_reduce_1GiB_mi300x8_tessera.yaml`,
// without the rest of the simulator).
//
//   bench_cache [--size B] [--op-bytes B] [--repeats R]
// Prints one JSON object: chunk lookups (L2 and MALL), CPU and wall time of the run with the least
// CPU time of R, CPU ns per lookup,
// and a digest of every result, which must not change when only the model's speed does.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/cache/cache_hierarchy.h"

namespace {

using namespace tessera::models::cache;

struct Params {
  std::uint64_t size = std::uint64_t{1} << 30;     // bytes reduced per GPU
  std::uint64_t op_bytes = std::uint64_t{512} << 10;  // bytes per load or store
};

struct Outcome {
  double wall_s = 0;
  double cpu_s = 0;  // this process's CPU time: what a shared machine's other load does not inflate
  std::uint64_t lookups = 0;
  std::uint64_t digest = 0;
};

// The MI300X caches as the mi300x-8 system file resolves them.
CacheHierarchySpec mi300x() {
  CacheHierarchySpec s;
  s.num_l2 = 8;
  s.organization = L2Organization::kPrivatePerRequester;
  s.l2.capacity_bytes = std::uint64_t{4} << 20;
  s.l2.ways = 16;
  s.l2.line_bytes = 128;
  s.l2.access_chunk_bytes = 4096;
  s.mall.capacity_bytes = std::uint64_t{256} << 20;
  s.mall.ways = 16;
  s.mall.line_bytes = 64;
  s.mall.access_chunk_bytes = 4096;
  s.mall.write_policy = WritePolicy::kWriteThroughAllocate;
  return s;
}

void fold(std::uint64_t& digest, const HierarchyResult& r) {
  for (std::uint64_t v : {r.l2_hit_bytes, r.mall_hit_bytes, r.hbm_read_bytes, r.hbm_write_bytes,
                          r.l2_writeback_bytes, r.invalidated_bytes}) {
    digest = (digest ^ v) * 0x100000001b3ull;
  }
}

Outcome run(const Params& p) {
  constexpr std::uint32_t kGpus = 8;
  constexpr std::uint32_t kXcds = 8;
  std::vector<CacheHierarchy> gpus;
  for (std::uint32_t g = 0; g < kGpus; ++g) gpus.emplace_back(mi300x());
  // Three buffers per GPU (input, scratch, output), as the ring kernels use them.
  const std::uint64_t input = 0;
  const std::uint64_t scratch = p.size;
  const std::uint64_t output = 2 * p.size;
  const std::uint64_t slice = p.size / kGpus;
  const std::uint64_t ops_per_slice = std::max<std::uint64_t>(1, slice / p.op_bytes);
  Outcome o;
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  // 2 (n - 1) ring steps: reduce-scatter, then all-gather; each GPU handles one slice per step.
  for (std::uint32_t step = 0; step < 2 * (kGpus - 1); ++step) {
    for (std::uint64_t op = 0; op < ops_per_slice; ++op) {
      for (std::uint32_t g = 0; g < kGpus; ++g) {
        const std::uint32_t xcd = static_cast<std::uint32_t>(op % kXcds);
        const std::uint64_t at = ((g + kGpus - step % kGpus) % kGpus) * slice + op * p.op_bytes;
        CacheHierarchy& mine = gpus[g];
        fold(o.digest, mine.acquire(xcd, scratch + at, p.op_bytes));
        fold(o.digest, mine.read(xcd, scratch + at, p.op_bytes));
        fold(o.digest, mine.read(xcd, input + at, p.op_bytes));
        if (step >= kGpus - 1) fold(o.digest, mine.write(xcd, output + at, p.op_bytes));
        fold(o.digest, gpus[(g + 1) % kGpus].remote_write_arrives(scratch + at, p.op_bytes));
        fold(o.digest, mine.release(xcd));
        // Two L2 reads (whose misses go on to the MALL), the peer's MALL store, and the store to
        // the output in the all-gather half.
        o.lookups += (4 + (step >= kGpus - 1 ? 1 : 0)) * (p.op_bytes / 4096);
      }
    }
  }
  o.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  o.cpu_s = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Params p;
  int repeats = 3;
  for (int i = 1; i < argc; ++i) {
    auto value = [&]() -> unsigned long long {
      if (i + 1 >= argc) throw std::invalid_argument(std::string(argv[i]) + " needs a value");
      return std::strtoull(argv[++i], nullptr, 0);
    };
    try {
      if (std::strcmp(argv[i], "--size") == 0) p.size = value();
      else if (std::strcmp(argv[i], "--op-bytes") == 0) p.op_bytes = value();
      else if (std::strcmp(argv[i], "--repeats") == 0) repeats = std::max(1, static_cast<int>(value()));
      else throw std::invalid_argument(std::string("unknown option ") + argv[i]);
    } catch (const std::exception& e) {
      fmt::print(stderr, "{}\nusage: bench_cache [--size B] [--op-bytes B] [--repeats R]\n", e.what());
      return 2;
    }
  }
  Outcome best;
  for (int i = 0; i < repeats; ++i) {
    const Outcome o = run(p);
    if (i == 0 || o.cpu_s < best.cpu_s) best = o;
  }
  const nlohmann::json out{
      {"scenario", "ring_all_reduce_cache_calls"},
      {"size_bytes", p.size},
      {"op_bytes", p.op_bytes},
      {"chunk_lookups", best.lookups},
      {"wall_s", best.wall_s},
      {"cpu_s", best.cpu_s},
      {"cpu_ns_per_lookup", best.cpu_s * 1e9 / static_cast<double>(best.lookups)},
      {"digest", fmt::format("{:016x}", best.digest)},
  };
  fmt::print("{}\n", out.dump(2));
  return 0;
}

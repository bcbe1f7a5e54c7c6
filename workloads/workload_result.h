#pragma once
// What a run of any workload kind produced, typed. Every kind fills the completion fields and
// the sections that apply to it: a kind that replays a tile-level trace fills `breakdown` and
// `traffic` (a collective also `collective`); a microbenchmark `measurement` and `traffic`; PHOLD
// only `final_time_ps`. The program renders and serialises this one type (sim/app/run/run_result.h
// holds the JSON form) and never reads a result by string key.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/machine/resource_usage.h"
#include "sim/core/run_result.h"
#include "sim/core/tick.h"
#include "sim/stats/stat_snapshot.h"
#include "workloads/replay/activity_log.h"

namespace tessera::workloads {

// One kernel of a replayed trace: where it ran, when, and where its span went.
struct KernelTiming {
  std::string name;
  std::uint32_t rank = 0;
  std::uint32_t stream = 0;
  std::uint64_t grid = 0;
  sim::Tick launch_ps = 0;  // its launch latency starts (stream order honoured)
  sim::Tick start_ps = 0;   // first workgroup starts
  sim::Tick end_ps = 0;     // completion (after the end-of-kernel release and teardown)
  bool completed = false;
  replay::CategoryTimes times{};  // where [launch_ps, end_ps] went (docs/taxes.md)
};

// Where the time went (docs/taxes.md): per kernel, per GPU over [0, makespan], and for the run
// along its critical GPU (the one whose last kernel ends last). Each adds up to its span.
struct Breakdown {
  std::vector<KernelTiming> kernels;  // in trace order
  std::vector<replay::CategoryTimes> gpu_times;  // indexed by rank
  std::uint32_t critical_rank = 0;
  replay::CategoryTimes times{};
};

// Bytes moved by memory level (microbenchmarks, which account DMA copies separately).
struct MemoryBytes {
  std::uint64_t l2_hit_bytes = 0;
  std::uint64_t mall_hit_bytes = 0;
  std::uint64_t hbm_read_bytes = 0;
  std::uint64_t hbm_write_bytes = 0;
  std::uint64_t remote_load_bytes = 0;
  std::uint64_t remote_store_bytes = 0;
  std::uint64_t dma_bytes = 0;
};

// The mean utilisation of one class's links over equal stretches of the run: (stretch start in
// ns, 0..1). `link` names the series ("xgmi links (mean of 56)").
struct LinkUtilisation {
  std::string link;
  std::string link_class;
  std::vector<std::pair<double, double>> samples;
};

// Caches and links: hit rates of the loaded bytes, and bytes per link class.
struct Traffic {
  std::optional<double> l2_hit_rate;    // the L2's share of the loaded bytes; nullopt when nothing was loaded
  std::optional<double> mall_hit_rate;  // the MALL's share of what reached the memory side
  // [rank][die], for runs that replay a trace; nullopt where that die loaded nothing.
  std::optional<std::vector<std::vector<std::optional<double>>>> l2_hit_rate_per_xcd;
  std::map<std::string, std::uint64_t> link_class_bytes;
  // Per resource class (links, HBM, L2, MALL, switches): how busy it was over the run, and its
  // busiest resource.
  std::map<std::string, models::machine::ResourceClassUsage> resource_usage;
  std::optional<MemoryBytes> memory_bytes;
  std::vector<LinkUtilisation> link_utilisation;  // when the run recorded its activity
};

// What a microbenchmark measured, as the kernel suite reports it (docs/config-reference.md).
struct Measurement {
  std::string op;
  std::uint32_t workgroups_per_gpu = 0;
  sim::Tick timed_ps = 0;  // the span the bandwidth or latency is computed from
  std::optional<std::uint64_t> counted_bytes_per_gpu;  // bandwidth ops
  std::optional<double> bandwidth_GBps;                // decimal GB/s per GPU
  std::optional<double> latency_ns;                    // per operation
};

// What a collective (kind `collective`) measured, in nccl-tests' terms and units
// (workloads/collectives/collective_figures.h gives the formulas).
struct CollectiveFigures {
  std::string op;     // all_gather, all_reduce, reduce_scatter, broadcast, reduce, all_to_all
  std::string dtype;  // fp16, bf16, fp32
  std::string library;    // tessera, nccl, rccl
  std::string algorithm;  // what ran: ring, one_shot, tree, direct
  std::string protocol;   // nccl: LL, LL128, Simple; empty for tessera
  std::uint32_t channels = 0;
  double library_model_time_us = 0.0;  // nccl, rccl: the library's own prediction for its choice; 0 for tessera
  std::uint64_t size_bytes = 0;  // nccl-tests' size (workloads/collectives/collective_sizes.h)
  std::uint64_t count = 0;       // size / element size, nccl-tests' count column
  std::uint32_t ranks = 0;
  std::uint32_t iterations = 1;
  double time_us = 0.0;     // mean per iteration: makespan / iterations, the first launch included
  double algbw_GBps = 0.0;  // size / time, decimal GB/s
  double busbw_GBps = 0.0;  // algbw x the op's bus factor

  bool operator==(const CollectiveFigures&) const = default;
};

struct WorkloadResult {
  sim::Tick makespan_ps = 0;
  bool complete = true;  // false when a limit (events, wall clock, interrupt) stopped the run
  sim::StopReason stop_reason = sim::StopReason::kDrained;
  std::uint64_t events = 0;
  double wall_s = 0.0;

  std::optional<Breakdown> breakdown;
  std::optional<Traffic> traffic;
  std::optional<Measurement> measurement;
  std::optional<CollectiveFigures> collective;
  std::optional<sim::Tick> final_time_ps;  // PHOLD: the engine's clock when it stopped
  // Every statistic the machine's models registered (caches, links, flags, compute), at the
  // end of the run: `run --out` writes them to stats.json. Empty for kinds without a machine.
  sim::stats::StatSnapshot statistics;
};

}  // namespace tessera::workloads

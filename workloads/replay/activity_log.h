#pragma once
// What a replay records when asked (ReplayOptions::record_activity): the intervals each
// workgroup spent, classified by the category a tax report uses, the flag release->acquire
// pairs, and the utilisation of every link over time. Timelines (timeline.json) and reports
// are drawn from it; the tax totals themselves are kept without it (see tax_ledger.h), so
// that attribution costs no memory on long runs.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/tick.h"

namespace tessera::workloads::replay {

// Where a stretch of time goes (docs/taxes.md): three kinds of useful work, idle, and the
// three taxes. Every picosecond of a GPU's span falls in exactly one.
enum class TimeCategory : std::uint8_t {
  kCompute,              // matrix/vector work at the compute model's rate
  kMemory,               // local loads and stores (caches, HBM) not caused by inter-kernel intermediates
  kCommunication,        // remote loads, stores and atomics over the links
  kIdle,                 // nothing resident and nothing pending (before the first launch, after the last)
  kBulkSynchronous,      // waiting at barriers, flags, kernel boundaries and collectives for the slowest
  kInterKernelLocality,  // memory time spent re-reading intermediates another kernel wrote to memory
  kLaunchOverhead,       // launch latency, dispatch, kernel ramp-up and tail
};
inline constexpr std::size_t kNumTimeCategories = 7;
using CategoryTimes = std::array<sim::Tick, kNumTimeCategories>;  // ps per TimeCategory

inline std::string_view to_string(TimeCategory c) {
  switch (c) {
    case TimeCategory::kCompute: return "compute";
    case TimeCategory::kMemory: return "memory";
    case TimeCategory::kCommunication: return "communication";
    case TimeCategory::kIdle: return "idle";
    case TimeCategory::kBulkSynchronous: return "bulk_synchronous";
    case TimeCategory::kInterKernelLocality: return "inter_kernel_locality";
    case TimeCategory::kLaunchOverhead: return "launch_overhead";
  }
  return "?";
}
inline bool is_tax(TimeCategory c) {
  return c == TimeCategory::kBulkSynchronous || c == TimeCategory::kInterKernelLocality ||
         c == TimeCategory::kLaunchOverhead;
}

// One workgroup's stretch of one activity on one CU. Slices of one CU slot never overlap.
struct WorkgroupSlice {
  std::uint32_t kernel = 0;     // index into ReplayResult::kernels
  std::uint64_t workgroup = 0;  // id within its kernel's grid
  std::uint32_t rank = 0;
  std::uint32_t die = 0;        // XCD
  std::uint32_t cu = 0;         // CU index within the GPU
  std::uint32_t slot = 0;       // workgroup slot on that CU (several workgroups may share a CU)
  TimeCategory category = TimeCategory::kCompute;
  sim::Tick start_ps = 0;
  sim::Tick end_ps = 0;
};

// A flag release and the acquire it satisfied (drawn as a flow arrow).
struct FlagEdge {
  std::uint32_t release_rank = 0;
  std::uint32_t release_cu = 0;
  sim::Tick release_ps = 0;
  std::uint32_t acquire_rank = 0;
  std::uint32_t acquire_cu = 0;
  sim::Tick acquire_ps = 0;
};

struct LinkInfo {
  std::string name;        // e.g. "gpu0->gpu3 xgmi"
  std::string link_class;  // the topology's resource class name ("xgmi", "nvlink", "if", "hbm", ...)
  double capacity_bytes_per_s = 0.0;
};

// From time_ps on, link `link` carries this fraction of its capacity (a step function).
struct LinkSample {
  std::uint32_t link = 0;  // index into ActivityLog::links
  sim::Tick time_ps = 0;
  double utilisation = 0.0;  // 0..1
};

// A stretch of one GPU's time in one category: the breakdown as a function of time (the
// category the GPU's instants were attributed to; a stretch split between memory and
// inter_kernel_locality shows the larger part).
struct GpuStretch {
  std::uint32_t rank = 0;
  TimeCategory category = TimeCategory::kIdle;
  sim::Tick start_ps = 0;
  sim::Tick end_ps = 0;
};

// How much a replay records: nothing; each GPU's breakdown over time and the links'
// utilisation (small: what a kernel-level timeline and the report need); or also every
// workgroup's slices and the flag edges (large: a per-CU timeline).
enum class ActivityDetail : std::uint8_t { kNone, kKernels, kWorkgroups };

struct ActivityLog {
  std::vector<GpuStretch> gpu_stretches;  // per rank, in time order; merged when contiguous and alike
  std::vector<WorkgroupSlice> slices;
  std::vector<FlagEdge> flags;
  std::vector<LinkInfo> links;
  std::vector<LinkSample> link_samples;
  // True when the limit on recorded items (ReplayOptions::max_recorded) cut the log short; the
  // summary and taxes are still complete.
  bool truncated = false;
};

}  // namespace tessera::workloads::replay

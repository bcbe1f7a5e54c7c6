#pragma once
// Where the time goes (docs/taxes.md): while a trace replays, every workgroup is in one state
// (computing, accessing memory, accessing a peer, waiting) and every GPU and kernel is
// classified, instant by instant, into exactly one TimeCategory from the states of its
// workgroups and of its host. The ledger accumulates those stretches as they close, so that
// the parts of a GPU's span (and of a kernel's) add up to it exactly, in integer ps, at O(1)
// cost per state change and no memory per event. When an ActivityLog is given, each
// workgroup stretch is also recorded as a slice (for timelines), with flag edges.
//
// Priority of a GPU's instant: any workgroup computing -> compute; else any accessing a peer
// -> communication (bulk_synchronous when only data-movement kernels, i.e. programs without
// compute, are moving it: communication serialised with compute); else local accesses ->
// memory, split with inter_kernel_locality in proportion to the accesses that touch
// intermediates (buffers another kernel writes or reads); else an end-of-kernel release in
// progress -> inter_kernel_locality (memory when the kernel writes no intermediate); else workgroups waiting on flags or barriers ->
// bulk_synchronous; else a kernel enqueued and not complete (launch latency, dispatch,
// teardown) -> launch_overhead; else the host busy in a delay (host-side work before its next
// launch) -> launch_overhead; else the host blocked at a rank barrier or sync ->
// bulk_synchronous; else idle.
#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/core/engine.h"
#include "sim/core/tick.h"
#include "workloads/replay/activity_log.h"
#include "workloads/trace/trace.h"

namespace tessera::workloads::replay {

enum class WorkgroupState : std::uint8_t { kNone, kCompute, kMemory, kIntermediate, kRemote, kWait };
inline constexpr std::size_t kNumWorkgroupStates = 6;


// Which accesses of which kernel touch intermediates, and which kernels only move data: those
// whose program has no compute op, and collectives (trace::Kernel::collective), whose reduction
// arithmetic is part of their data movement.
class IntermediateMap {
 public:
  explicit IntermediateMap(const trace::Trace& trace);
  // A load (or store) by `kernel` of `buffer` that another kernel stores (or loads).
  bool is_intermediate(std::uint32_t kernel, std::uint32_t buffer, bool store) const;
  bool data_movement_only(std::uint32_t kernel) const { return data_movement_[kernel] != 0; }
  // The kernel stores something another kernel loads (its end-of-kernel write-back is then a
  // locality cost; otherwise it writes back final results, which is memory work).
  bool writes_intermediates(std::uint32_t kernel) const { return writes_intermediates_[kernel] != 0; }

 private:
  std::uint32_t num_buffers_;
  std::vector<std::uint8_t> bits_;          // [kernel * buffers + buffer]: 1 load is, 2 store is
  std::vector<std::uint8_t> data_movement_;  // per kernel
  std::vector<std::uint8_t> writes_intermediates_;  // per kernel
};

class TaxLedger {
 public:
  struct Where {  // a workgroup's placement, for slices
    std::uint32_t kernel = 0;
    std::uint32_t rank = 0;
    std::uint32_t die = 0;
    std::uint32_t cu = 0;
    std::uint32_t handle = 0;  // the GPU's context handle (unique among live workgroups)
    std::uint64_t workgroup = 0;
  };

  // `log` may be null (no slices). The engine's clock dates every change.
  // `log` may be null (nothing recorded); with a log, each GPU's breakdown over time is recorded,
  // and with `record_workgroups` also every workgroup's slices and the flag edges.
  TaxLedger(const trace::Trace& trace, const IntermediateMap& intermediates, const sim::Engine& engine, ActivityLog* log,
            bool record_workgroups,
            std::uint64_t max_recorded);

  sim::Tick now() const { return engine_.now(); }
  // A workgroup moves from `from` (entered at `since_ps`) to `to`.
  void workgroup(const Where& where, WorkgroupState from, sim::Tick since_ps, WorkgroupState to);
  void kernel_enqueued(std::uint32_t rank) { gpu_change(rank, [](Gpu& g) { ++g.kernels_in_flight; }); }
  void kernel_completed(std::uint32_t rank) { gpu_change(rank, [](Gpu& g) { --g.kernels_in_flight; }); }
  void release_started(std::uint32_t kernel);
  void release_finished(std::uint32_t kernel);
  void host_blocked(std::uint32_t rank, bool blocked) {
    gpu_change(rank, [blocked](Gpu& g) { g.host_blocked = blocked; });
  }
  // The host is busy in a delay (trace::HostOp::kDelay): a GPU with nothing else to do waits
  // for its host to launch, which is launch overhead rather than idle time.
  void host_delaying(std::uint32_t rank, bool delaying) {
    gpu_change(rank, [delaying](Gpu& g) { g.host_delaying = delaying; });
  }
  // A flag store by a workgroup, and a wait it satisfied (for flow arrows).
  void flag_released(std::uint32_t home, std::uint64_t flag, std::uint32_t rank, std::uint32_t cu);
  void flag_acquired(std::uint32_t home, std::uint64_t flag, std::uint32_t rank, std::uint32_t cu);

  // Closes every GPU's account at now() (the end of the run): each GPU's parts then add up to
  // the makespan; after its last kernel a GPU is idle, or waits at its host's rank barrier.
  void close();
  const CategoryTimes& gpu_times(std::uint32_t rank) const { return gpus_[rank].times; }
  // A kernel's times over [launch, completion]: what the ledger saw, and the rest (launch,
  // dispatch, waiting for CUs, teardown) as launch_overhead.
  CategoryTimes kernel_times(std::uint32_t kernel, sim::Tick span_ps) const;

 private:
  using Counts = std::array<std::uint32_t, kNumWorkgroupStates>;
  struct Gpu {
    std::uint32_t rank = 0;
    std::size_t last_stretch = ~std::size_t{0};  // its last entry in the log's gpu_stretches
    Counts fused{};          // workgroups per state, of kernels that compute
    Counts data_movement{};  // of kernels that only move data
    std::uint32_t kernels_in_flight = 0;
    std::uint32_t releasing_intermediates = 0;  // end-of-kernel releases of kernels that write intermediates
    std::uint32_t releasing_results = 0;        // of the others
    bool host_blocked = false;
    bool host_delaying = false;
    sim::Tick since_ps = 0;
    CategoryTimes times{};
  };
  struct Kernel {
    Counts counts{};
    bool releasing = false;
    sim::Tick since_ps = 0;
    CategoryTimes times{};
  };

  template <class Change>
  void gpu_change(std::uint32_t rank, Change change) {
    close_gpu(gpus_[rank]);
    change(gpus_[rank]);
  }
  void close_gpu(Gpu& g);
  void record_stretch(Gpu& g, TimeCategory category, sim::Tick start_ps, sim::Tick end_ps);
  void close_kernel(std::uint32_t kernel, bool data_movement);
  std::uint32_t slot_for(const Where& where);
  void free_slot(const Where& where);
  bool room();  // false (and the log marked truncated) when max_recorded_ is reached

  const IntermediateMap& intermediates_;
  const trace::Trace& trace_;
  const sim::Engine& engine_;
  ActivityLog* log_;
  ActivityLog* workgroup_log_;  // log_ when workgroups are recorded, else null
  std::uint64_t max_recorded_;
  std::vector<Gpu> gpus_;
  std::vector<Kernel> kernels_;
  // Slices only: per rank, per context handle, its slot on its CU; per rank and CU, slots in use.
  std::vector<std::vector<std::uint32_t>> slot_of_handle_;
  std::vector<std::vector<std::uint64_t>> slots_in_use_;
  struct Release {
    std::uint32_t rank;
    std::uint32_t cu;
    sim::Tick time_ps;
  };
  std::vector<std::unordered_map<std::uint64_t, Release>> last_release_;  // per home rank, by flag id
};

// Adds `from` into `into`.
void add_times(CategoryTimes& into, const CategoryTimes& from);

}  // namespace tessera::workloads::replay

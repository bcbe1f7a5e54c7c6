#pragma once
// One kernel of a trace as the GPU runs it: each workgroup steps through the kernel's program
// with a Cursor and performs each operation against the machine, continuing when the
// operation completes. Control instructions cost nothing; a workgroup barrier costs nothing.
// Loads, stores and ranged atomic adds (atomic_add_range) are memory accesses
// (MemorySystem::access: an atomic add is performed at the owner's memory side); flag atomics,
// releases and waits go to the FlagStore. A load_async is the same access without the wait: the
// workgroup goes on at once and counts it in its slot until it arrives; wait_load blocks while
// its slot counts any, and the end of the program waits for every slot (a workgroup does not
// retire with loads in flight).
// A store to another rank's memory is posted, as the hardware's are (a store instruction does not
// wait for the write's acknowledgement: AMD's vscnt / NVIDIA's memory-barrier semantics): the
// workgroup goes on at once, and the operations that publish its writes (a release, a flag atomic,
// a device or all-ranks barrier, the end of the program) first wait until every posted store has
// been performed at its owner. A workgroup's posted stores in flight are bounded by the GPU's
// max_store_bytes_in_flight_per_workgroup (a wave's count of outstanding memory instructions):
// a store that would exceed it waits for room (a store alone may exceed it). Local stores stay
// blocking: they complete in the die's L2.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/compute/kernel.h"
#include "models/compute/workgroup_context.h"
#include "models/machine/machine.h"
#include "workloads/replay/address_map.h"
#include "workloads/replay/barrier_table.h"
#include "workloads/replay/dataflow.h"
#include "workloads/replay/tax_ledger.h"
#include "workloads/trace/cursor.h"

namespace tessera::workloads::replay {

// What every kernel of one replay shares.
struct ReplayContext {
  models::machine::Machine& machine;
  const trace::Trace& trace;
  const AddressMap& addresses;
  BarrierTable& barriers;
  const IntermediateMap& intermediates;
  TaxLedger& ledger;
  bool ideal_locality;  // ReplayOptions::ideal_locality
  std::vector<std::uint64_t> all_rank_group_size;  // per kernel: workgroups of its name over all ranks
  std::vector<std::uint64_t> name_group;           // per kernel: index of its name
  // The dataflow oracle (dataflow.h): the run as traced records its data dependencies; the
  // oracle's run replays them through the gate, and its flags, releases and barriers do nothing.
  DataflowRecorder* recorder = nullptr;
  DataflowGate* gate = nullptr;
};

class TraceKernel : public models::compute::WorkgroupBody {
 public:
  TraceKernel(ReplayContext& context, std::uint32_t kernel_index, const trace::CompiledProgram& program);

  void start(models::compute::WorkgroupContext& wg) override;

  std::uint32_t kernel_index() const { return kernel_index_; }
  // Workgroups that started and have not finished (for the deadlock report).
  std::uint64_t live_workgroups() const { return live_; }

 private:
  static constexpr std::size_t kNumLoadKinds = 3;  // kMemory, kIntermediate, kRemote
  static constexpr std::size_t kPostedSlot = trace::kNumLoadSlots;
  // A posted store as the dataflow oracle needs it when it completes.
  struct PostedStore {
    std::uint64_t ordinal = 0;  // AccessInstance::ordinal
    std::uint32_t owner = 0;
    std::uint64_t address = 0;
    std::uint64_t bytes = 0;
  };
  struct Live {
    trace::Cursor cursor;
    trace::Op op;  // the operation in progress
    WorkgroupState state = WorkgroupState::kNone;  // what the ledger knows it is doing
    sim::Tick since_ps = 0;
    // Non-blocking loads in flight, per slot and per kind of access (local, intermediate,
    // remote): a wait for a slot is charged, instant by instant, to the kind still in flight
    // that ranks highest (remote, then intermediate, then local), so that a wait for a local
    // and a remote load together is communication until the remote one arrives.
    // Slot kPostedSlot counts the posted remote stores.
    std::array<std::array<std::uint32_t, kNumLoadKinds>, kPostedSlot + 1> in_flight{};
    std::uint32_t in_flight_total = 0;
    std::int8_t waiting_slot = kNotWaiting;  // a slot, kWaitingAll (program end) or kNotWaiting
    // The operation in progress waits for the posted stores (waiting_slot kPostedSlot) and runs
    // when they are performed, or (a store waiting for room) when posted_bytes leaves room.
    bool resumes_op = false;
    bool waits_for_room = false;
    std::uint64_t posted_bytes = 0;
    std::uint64_t accesses = 0;  // memory accesses started so far (AccessInstance::ordinal)
    // Bytes loaded since the last compute op: they pass through the CU's shared-memory pipe during
    // the next one where the GPU's loads do (pipes.loads_through_lds).
    std::uint64_t loaded_since_compute = 0;
    std::uint64_t address = 0;   // of the access in progress
    std::vector<PostedStore> posted;  // in flight, in issue order
  };
  static constexpr std::int8_t kNotWaiting = -1;
  static constexpr std::int8_t kWaitingAll = -2;
  // Tells the ledger the workgroup now does `to` (consecutive operations of one kind are one stretch).
  void enter(std::uint32_t handle, const models::compute::WorkgroupContext& wg, WorkgroupState to);
  WorkgroupState access_state(const trace::Op& op, std::uint32_t owner) const;
  // What a workgroup waiting on `slot` (or on every slot: kWaitingAll) is charged to now.
  static WorkgroupState waiting_state(const Live& state, std::int8_t slot);
  void advance(std::uint32_t handle);
  // Performs the operation in progress; false when the workgroup now waits for it.
  bool perform(std::uint32_t handle);
  // Starts the non-blocking access in progress (a load_async, or a posted store).
  void start_async_access(std::uint32_t handle, std::size_t slot, WorkgroupState doing);
  // True when no posted store is in flight; otherwise the operation in progress waits for them.
  bool posted_stores_drained(std::uint32_t handle);
  // True when a posted store of `bytes` fits the workgroup's window; otherwise it waits for room.
  bool room_for_posted_store(std::uint32_t handle, std::uint64_t bytes);
  // The operation in progress waits on the posted stores: until one completes (for_room), or all.
  void wait_for_posted_stores(std::uint32_t handle, bool for_room);
  // The memory access of the operation in progress (a load, store or ranged atomic add).
  models::machine::MemoryAccess memory_access(std::uint32_t handle) const;
  // Starts the blocking access in progress; the workgroup goes on when it completes.
  void start_blocking_access(std::uint32_t handle);
  // The access in progress as the dataflow oracle knows it (the one started last).
  AccessInstance access_instance(std::uint32_t handle) const;
  // The program has ended and no load is in flight: the workgroup retires.
  void retire(std::uint32_t handle);
  void on_done(const sim::Payload& payload);
  void on_write_done(const sim::Payload& payload);      // a store or ranged atomic add
  void on_producers_done(const sim::Payload& payload);  // the oracle: a blocking load may go
  void on_store_visible(const sim::Payload& payload);   // the oracle: payload workgroup id, access ordinal
  // payload: handle; (ordinal << 8) | slot * kNumLoadKinds + kind
  void on_async_access_done(const sim::Payload& payload);
  void posted_store_done(std::uint32_t handle, std::uint64_t ordinal);
  void on_flushed(const sim::Payload& payload);
  void on_wait_satisfied(const sim::Payload& payload);
  [[noreturn]] void fail(std::uint32_t handle, const std::string& what) const;
  std::uint32_t checked_rank(std::uint32_t handle, std::int64_t rank) const;

  ReplayContext& context_;
  std::uint32_t kernel_index_;
  const trace::Kernel& kernel_;
  const trace::CompiledProgram& program_;
  models::compute::GpuCompute& gpu_;
  std::vector<Live> live_state_;  // by workgroup handle
  std::uint64_t live_ = 0;
};

}  // namespace tessera::workloads::replay

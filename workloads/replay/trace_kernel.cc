#include "workloads/replay/trace_kernel.h"

#include <fmt/format.h>

#include "models/compute/gpu_compute.h"
#include "workloads/replay/replay_error.h"

namespace tessera::workloads::replay {

using models::machine::AccessKind;
using models::machine::MemoryAccess;
using trace::OpKind;

namespace {

// The index of a load's kind in TraceKernel::Live::in_flight.
std::size_t load_kind_of(WorkgroupState state) {
  switch (state) {
    case WorkgroupState::kIntermediate: return 1;
    case WorkgroupState::kRemote: return 2;
    default: return 0;  // kMemory
  }
}

}  // namespace

TraceKernel::TraceKernel(ReplayContext& context, std::uint32_t kernel_index, const trace::CompiledProgram& program)
    : context_(context),
      kernel_index_(kernel_index),
      kernel_(context.trace.kernels.at(kernel_index)),
      program_(program),
      gpu_(context.machine.gpu(kernel_.rank)) {}

void TraceKernel::start(models::compute::WorkgroupContext& wg) {
  if (wg.handle() >= live_state_.size()) live_state_.resize(wg.handle() + 1);
  Live& state = live_state_[wg.handle()];
  try {
    state.cursor = trace::Cursor(program_, kernel_, wg.workgroup_id(), context_.trace.ranks);
  } catch (const std::out_of_range& e) {
    throw ReplayError(fmt::format("kernel '{}' (rank {}) workgroup {}: {}", kernel_.name, kernel_.rank,
                                  wg.workgroup_id(), e.what()));
  }
  state.state = WorkgroupState::kNone;
  state.in_flight = {};
  state.in_flight_total = 0;
  state.accesses = 0;
  state.waiting_slot = kNotWaiting;
  state.resumes_op = false;
  state.waits_for_room = false;
  state.posted_bytes = 0;
  state.posted.clear();
  ++live_;
  advance(wg.handle());
}

void TraceKernel::fail(std::uint32_t handle, const std::string& what) const {
  const auto& wg = gpu_.workgroup(handle);
  const trace::Op& op = live_state_[handle].op;
  throw ReplayError(fmt::format("kernel '{}' (rank {}) workgroup {}: program '{}' instruction {} ({}): {}", kernel_.name,
                                kernel_.rank, wg.workgroup_id(), program_.program->name, op.instr, trace::op_name(op.kind),
                                what));
}

std::uint32_t TraceKernel::checked_rank(std::uint32_t handle, std::int64_t rank) const {
  if (rank < 0 || rank >= static_cast<std::int64_t>(context_.trace.ranks)) {
    fail(handle, fmt::format("rank {} outside 0..{}", rank, context_.trace.ranks - 1));
  }
  return static_cast<std::uint32_t>(rank);
}

void TraceKernel::enter(std::uint32_t handle, const models::compute::WorkgroupContext& wg, WorkgroupState to) {
  Live& s = live_state_[handle];
  if (s.state == to) return;
  context_.ledger.workgroup({kernel_index_, kernel_.rank, wg.die(), wg.cu(), handle, wg.workgroup_id()}, s.state,
                            s.since_ps, to);
  s.state = to;
  s.since_ps = context_.ledger.now();
}

WorkgroupState TraceKernel::access_state(const trace::Op& op, std::uint32_t owner) const {
  if (owner != kernel_.rank) return WorkgroupState::kRemote;
  const bool store = op.kind != OpKind::kLoad;
  return context_.intermediates.is_intermediate(kernel_index_, op.buffer, store) ? WorkgroupState::kIntermediate
                                                                                   : WorkgroupState::kMemory;
}

// Runs operations until one has to wait for the machine; the continuation calls it again.
void TraceKernel::advance(std::uint32_t handle) {
  Live& state = live_state_[handle];
  models::compute::WorkgroupContext& wg = gpu_.workgroup(handle);
  for (;;) {
    try {
      if (!state.cursor.next(state.op)) {
        if (state.in_flight_total == 0) {
          retire(handle);
        } else {
          state.waiting_slot = kWaitingAll;
          enter(handle, wg, waiting_state(state, kWaitingAll));
        }
        return;
      }
    } catch (const std::out_of_range& e) {
      throw ReplayError(fmt::format("kernel '{}' (rank {}) workgroup {}: {}", kernel_.name, kernel_.rank,
                                    wg.workgroup_id(), e.what()));
    }
    if (!perform(handle)) return;
  }
}

bool TraceKernel::perform(std::uint32_t handle) {
  auto& machine = context_.machine;
  Live& state = live_state_[handle];
  const trace::Op& op = state.op;
  models::compute::WorkgroupContext& wg = gpu_.workgroup(handle);
  const sim::Payload me{handle, 0};
  switch (op.kind) {
    case OpKind::kCompute: {
      if (op.flops() < 0) fail(handle, fmt::format("negative flops {}", op.flops()));
      if (op.lds_bytes() < 0 || op.sfu_ops() < 0 || op.vector_ops() < 0 || op.phases() < 0) {
        fail(handle, fmt::format("negative pipe demand (lds_bytes {}, sfu_ops {}, vector_ops {}, phases {})",
                                 op.lds_bytes(), op.sfu_ops(), op.vector_ops(), op.phases()));
      }
      models::compute::PipeDemand demand{static_cast<double>(op.lds_bytes()), static_cast<double>(op.sfu_ops()),
                                         static_cast<double>(op.vector_ops()), static_cast<double>(op.phases())};
      if (demand.any() && gpu_.spec().compute.pipes.loads_through_lds) {
        demand.lds_bytes += static_cast<double>(state.loaded_since_compute);
      }
      state.loaded_since_compute = 0;
      if (op.flops() == 0 && !demand.any()) return true;
      enter(handle, wg, WorkgroupState::kCompute);
      wg.compute(static_cast<double>(op.flops()), op.dtype, sim::bind<&TraceKernel::on_done>(this), me, demand);
      return false;
    }
    case OpKind::kLoad:
    case OpKind::kLoadAsync:
    case OpKind::kStore:
    case OpKind::kAtomicAddRange: {
      const std::uint32_t owner = checked_rank(handle, op.rank());
      const bool posted = op.kind == OpKind::kStore && owner != kernel_.rank;
      if (posted && op.bytes() > 0 && !room_for_posted_store(handle, static_cast<std::uint64_t>(op.bytes()))) return false;
      ++state.accesses;
      std::uint64_t& address = state.address;
      if (!context_.addresses.resolve(op.buffer, op.offset(), op.bytes(), address)) {
        fail(handle, fmt::format("bytes [{}, {}+{}) outside buffer '{}' ({} B)", op.offset(), op.offset(), op.bytes(),
                                 context_.trace.buffers.at(op.buffer).name, context_.trace.buffers.at(op.buffer).bytes));
      }
      if (op.bytes() == 0) return true;
      const WorkgroupState doing = access_state(op, owner);
      if (doing == WorkgroupState::kIntermediate && context_.ideal_locality) return true;
      const bool read = op.kind == OpKind::kLoad || op.kind == OpKind::kLoadAsync;
      if (read) state.loaded_since_compute += static_cast<std::uint64_t>(op.bytes());
      if (read && context_.recorder != nullptr) {
        context_.recorder->read_issued(access_instance(handle), owner, address, static_cast<std::uint64_t>(op.bytes()));
      }
      if (op.kind == OpKind::kLoadAsync) {
        start_async_access(handle, op.slot, doing);
        return true;
      }
      if (posted) {
        start_async_access(handle, kPostedSlot, doing);
        return true;
      }
      if (read && context_.gate != nullptr &&
          !context_.gate->ready_or_wait(access_instance(handle), sim::bind<&TraceKernel::on_producers_done>(this), me)) {
        enter(handle, wg, WorkgroupState::kWait);  // its producers have not written yet
        return false;
      }
      start_blocking_access(handle);
      return false;
    }
    case OpKind::kAtomicAdd:
    case OpKind::kAtomicXchg: {
      if (context_.gate != nullptr) return true;  // the oracle: synchronisation does nothing
      if (!posted_stores_drained(handle)) return false;
      const std::uint32_t home = checked_rank(handle, op.flag_rank());
      const models::sync::FlagRef flag{home, static_cast<std::uint64_t>(op.flag_id())};
      const auto access = machine.flag_access(kernel_.rank, wg.die(), home);
      const auto operand = static_cast<std::uint64_t>(op.value());
      enter(handle, wg, home != kernel_.rank ? WorkgroupState::kRemote : WorkgroupState::kMemory);
      if (op.kind == OpKind::kAtomicAdd) {
        machine.flags().atomic_add(flag, operand, access, sim::bind<&TraceKernel::on_done>(this), handle);
      } else {
        machine.flags().atomic_exchange(flag, operand, access, sim::bind<&TraceKernel::on_done>(this), handle);
      }
      return false;
    }
    case OpKind::kRelease:
      checked_rank(handle, op.flag_rank());
      if (context_.gate == nullptr && !posted_stores_drained(handle)) return false;
      enter(handle, wg, WorkgroupState::kMemory);
      // Make this workgroup's writes visible first (its die's dirty L2 data, where the L2 is
      // private), then store the flag.
      machine.memory().release_die(kernel_.rank, wg.die(), sim::bind<&TraceKernel::on_flushed>(this), me);
      return false;
    case OpKind::kWait: {
      const std::uint32_t home = checked_rank(handle, op.flag_rank());
      if (op.buffer != trace::kNoBuffer) {
        std::uint64_t address = 0;
        if (!context_.addresses.resolve(op.buffer, op.acquire_offset(), op.acquire_bytes(), address)) fail(handle, "acquire range outside its buffer");
      }
      if (context_.gate != nullptr) return true;
      enter(handle, wg, WorkgroupState::kWait);
      machine.flags().wait_until({home, static_cast<std::uint64_t>(op.flag_id())}, op.compare, static_cast<std::uint64_t>(op.value()),
                                 machine.flag_access(kernel_.rank, wg.die(), home),
                                 sim::bind<&TraceKernel::on_wait_satisfied>(this), handle);
      return false;
    }
    case OpKind::kDelay:
      // Time the workgroup spends without a unit of the machine: waiting, as a spin on a flag would be.
      if (op.delay_ps() < 0) fail(handle, fmt::format("negative delay {} ps", op.delay_ps()));
      if (op.delay_ps() == 0) return true;
      enter(handle, wg, WorkgroupState::kWait);
      wg.delay(static_cast<sim::Tick>(op.delay_ps()), sim::bind<&TraceKernel::on_done>(this), me);
      return false;
    case OpKind::kWaitLoad: {
      const WorkgroupState waiting = waiting_state(state, static_cast<std::int8_t>(op.slot));
      if (waiting == WorkgroupState::kNone) return true;  // nothing in flight in the slot
      state.waiting_slot = static_cast<std::int8_t>(op.slot);
      enter(handle, wg, waiting);
      return false;
    }
    case OpKind::kBarrier: {
      if (op.scope == trace::BarrierScope::kWorkgroup || context_.gate != nullptr) return true;
      if (!posted_stores_drained(handle)) return false;
      BarrierTable::Key key{static_cast<std::uint8_t>(op.scope), 0, op.barrier_id()};
      std::uint64_t expected = kernel_.grid;
      if (op.scope == trace::BarrierScope::kDevice) {
        key.group = kernel_index_;
      } else {
        key.group = context_.name_group[kernel_index_];
        expected = context_.all_rank_group_size[kernel_index_];
      }
      enter(handle, wg, WorkgroupState::kWait);
      context_.barriers.arrive(key, expected, sim::bind<&TraceKernel::on_done>(this), me);
      return false;
    }
    default:
      fail(handle, "unexpected control instruction");
  }
}

void TraceKernel::start_async_access(std::uint32_t handle, std::size_t slot, WorkgroupState doing) {
  Live& state = live_state_[handle];
  const std::size_t load_kind = load_kind_of(doing);
  ++state.in_flight[slot][load_kind];
  ++state.in_flight_total;
  const sim::Handler arrived = sim::bind<&TraceKernel::on_async_access_done>(this);
  const sim::Payload which{handle, (state.accesses - 1) << 8 | (slot * kNumLoadKinds + load_kind)};
  if (slot == kPostedSlot) {
    const MemoryAccess access = memory_access(handle);
    state.posted.push_back({state.accesses - 1, access.owner, access.address, access.bytes});
    state.posted_bytes += access.bytes;
    context_.machine.memory().access(access, arrived, which);
  } else if (context_.gate != nullptr) {
    context_.gate->access(access_instance(handle), memory_access(handle), arrived, which);
  } else {
    context_.machine.memory().access(memory_access(handle), arrived, which);
  }
}

bool TraceKernel::room_for_posted_store(std::uint32_t handle, std::uint64_t bytes) {
  Live& state = live_state_[handle];
  const std::uint64_t window = context_.machine.spec().gpu.fabric.max_store_bytes_in_flight_per_workgroup;
  if (state.posted_bytes == 0 || state.posted_bytes + bytes <= window) return true;
  wait_for_posted_stores(handle, true);
  return false;
}

bool TraceKernel::posted_stores_drained(std::uint32_t handle) {
  if (live_state_[handle].posted.empty()) return true;
  wait_for_posted_stores(handle, false);
  return false;
}

void TraceKernel::wait_for_posted_stores(std::uint32_t handle, bool for_room) {
  Live& state = live_state_[handle];
  state.waiting_slot = static_cast<std::int8_t>(kPostedSlot);
  state.resumes_op = true;
  state.waits_for_room = for_room;
  enter(handle, gpu_.workgroup(handle), WorkgroupState::kRemote);  // posted stores all go to peers
}

models::machine::MemoryAccess TraceKernel::memory_access(std::uint32_t handle) const {
  const Live& state = live_state_[handle];
  const trace::Op& op = state.op;
  const auto& wg = gpu_.workgroup(handle);
  const AccessKind kind = op.kind == OpKind::kStore            ? AccessKind::kStore
                          : op.kind == OpKind::kAtomicAddRange ? AccessKind::kAtomicAdd
                                                               : AccessKind::kLoad;
  const auto owner = static_cast<std::uint32_t>(op.rank());
  const bool peer_cacheable = kind == AccessKind::kLoad && owner != kernel_.rank &&
                              context_.trace.buffers[op.buffer].coherence == trace::Coherence::kCoarse;
  return {kind, kernel_.rank, wg.die(), owner, state.address, static_cast<std::uint64_t>(op.bytes()), peer_cacheable};
}

AccessInstance TraceKernel::access_instance(std::uint32_t handle) const {
  return {kernel_index_, gpu_.workgroup(handle).workgroup_id(), live_state_[handle].accesses - 1};
}

void TraceKernel::start_blocking_access(std::uint32_t handle) {
  const Live& state = live_state_[handle];
  const trace::Op& op = state.op;
  enter(handle, gpu_.workgroup(handle), access_state(op, static_cast<std::uint32_t>(op.rank())));
  const bool write = op.kind == OpKind::kStore || op.kind == OpKind::kAtomicAddRange;
  const bool tracked = context_.recorder != nullptr || context_.gate != nullptr;
  context_.machine.memory().access(
      memory_access(handle),
      write && tracked ? sim::bind<&TraceKernel::on_write_done>(this) : sim::bind<&TraceKernel::on_done>(this),
      {handle, 0});
}

void TraceKernel::on_producers_done(const sim::Payload& payload) {
  start_blocking_access(static_cast<std::uint32_t>(payload.a));
}

void TraceKernel::on_write_done(const sim::Payload& payload) {
  const auto handle = static_cast<std::uint32_t>(payload.a);
  if (context_.gate != nullptr) {
    const models::machine::MemoryAccess access = memory_access(handle);
    const AccessInstance store = access_instance(handle);
    if (access.kind == AccessKind::kStore && access.owner == kernel_.rank) {
      // A local store sits in the die's L2 until a release writes it back (the run as traced
      // reads it after its release): the oracle posts that release at once and its readers wait
      // for it; the workgroup goes on.
      context_.machine.memory().release_die(kernel_.rank, access.die, sim::bind<&TraceKernel::on_store_visible>(this),
                                            {store.workgroup, store.ordinal});
    } else {
      context_.gate->write_completed(store);  // an atomic add is performed at the owner's memory side
    }
  } else {
    const models::machine::MemoryAccess access = memory_access(handle);
    context_.recorder->write_completed(access_instance(handle), access.owner, access.address, access.bytes,
                                       access.kind == AccessKind::kAtomicAdd);
  }
  advance(handle);
}

void TraceKernel::on_store_visible(const sim::Payload& payload) {
  context_.gate->write_completed({kernel_index_, static_cast<std::uint32_t>(payload.a), payload.b});
}

void TraceKernel::retire(std::uint32_t handle) {
  --live_;
  models::compute::WorkgroupContext& wg = gpu_.workgroup(handle);
  enter(handle, wg, WorkgroupState::kNone);
  wg.done();
}

void TraceKernel::on_done(const sim::Payload& payload) { advance(static_cast<std::uint32_t>(payload.a)); }

void TraceKernel::on_async_access_done(const sim::Payload& payload) {
  const auto handle = static_cast<std::uint32_t>(payload.a);
  const std::uint64_t code = payload.b & 0xff;
  const auto slot = static_cast<std::size_t>(code / kNumLoadKinds);
  Live& state = live_state_[handle];
  --state.in_flight[slot][code % kNumLoadKinds];
  --state.in_flight_total;
  if (slot == kPostedSlot) posted_store_done(handle, payload.b >> 8);
  const bool waits_here = state.waiting_slot == kWaitingAll || state.waiting_slot == static_cast<std::int8_t>(slot);
  if (!waits_here) return;
  if (state.waits_for_room) {  // a store waiting for room: it is tried again, and waits again if it must
    state.waits_for_room = false;
    state.resumes_op = false;
    state.waiting_slot = kNotWaiting;
    if (perform(handle)) advance(handle);
    return;
  }
  const WorkgroupState waiting = waiting_state(state, state.waiting_slot);
  if (waiting != WorkgroupState::kNone) {
    enter(handle, gpu_.workgroup(handle), waiting);  // e.g. the remote part arrived, a local one has not
    return;
  }
  const bool all = state.waiting_slot == kWaitingAll;
  state.waiting_slot = kNotWaiting;
  if (all) {
    retire(handle);
  } else if (state.resumes_op) {
    state.resumes_op = false;
    if (perform(handle)) advance(handle);
  } else {
    advance(handle);
  }
}

// A posted store has been performed at its owner: it leaves the window, and the dataflow
// oracle learns of it.
void TraceKernel::posted_store_done(std::uint32_t handle, std::uint64_t ordinal) {
  Live& state = live_state_[handle];
  auto it = state.posted.begin();
  while (it->ordinal != ordinal) ++it;
  state.posted_bytes -= it->bytes;
  const std::uint32_t workgroup = gpu_.workgroup(handle).workgroup_id();
  if (context_.gate != nullptr) {
    context_.gate->write_completed({kernel_index_, workgroup, ordinal});
  } else if (context_.recorder != nullptr) {
    context_.recorder->write_completed({kernel_index_, workgroup, ordinal}, it->owner, it->address, it->bytes, false);
  }
  state.posted.erase(it);
}

WorkgroupState TraceKernel::waiting_state(const Live& state, std::int8_t slot) {
  std::array<std::uint32_t, kNumLoadKinds> counts{};
  for (std::size_t s = 0; s < state.in_flight.size(); ++s) {
    if (slot != kWaitingAll && s != static_cast<std::size_t>(slot)) continue;
    for (std::size_t k = 0; k < kNumLoadKinds; ++k) counts[k] += state.in_flight[s][k];
  }
  for (const WorkgroupState kind : {WorkgroupState::kRemote, WorkgroupState::kIntermediate, WorkgroupState::kMemory}) {
    if (counts[load_kind_of(kind)] > 0) return kind;
  }
  return WorkgroupState::kNone;
}

void TraceKernel::on_flushed(const sim::Payload& payload) {
  const auto handle = static_cast<std::uint32_t>(payload.a);
  const trace::Op& op = live_state_[handle].op;
  const auto home = static_cast<std::uint32_t>(op.flag_rank());
  const auto& wg = gpu_.workgroup(handle);
  if (context_.gate != nullptr) {  // the oracle: the write-back made the data visible; no flag is stored
    advance(handle);
    return;
  }
  context_.machine.flags().release_store({home, static_cast<std::uint64_t>(op.flag_id())}, static_cast<std::uint64_t>(op.value()),
                                         context_.machine.flag_access(kernel_.rank, wg.die(), home));
  context_.ledger.flag_released(home, static_cast<std::uint64_t>(op.flag_id()), kernel_.rank, wg.cu());
  advance(handle);
}

void TraceKernel::on_wait_satisfied(const sim::Payload& payload) {
  const auto handle = static_cast<std::uint32_t>(payload.a);
  const trace::Op& op = live_state_[handle].op;
  context_.ledger.flag_acquired(static_cast<std::uint32_t>(op.flag_rank()), static_cast<std::uint64_t>(op.flag_id()), kernel_.rank,
                                gpu_.workgroup(handle).cu());
  if (op.buffer != trace::kNoBuffer) {
    std::uint64_t address = 0;
    context_.addresses.resolve(op.buffer, op.acquire_offset(), op.acquire_bytes(), address);
    const auto& wg = gpu_.workgroup(handle);
    context_.machine.memory().acquire(kernel_.rank, wg.die(), address, static_cast<std::uint64_t>(op.acquire_bytes()));
  }
  advance(handle);
}

}  // namespace tessera::workloads::replay

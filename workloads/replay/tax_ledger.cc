#include "workloads/replay/tax_ledger.h"

#include <algorithm>
#include <bit>
#include <set>
#include <string>

namespace tessera::workloads::replay {
namespace {

constexpr std::size_t idx(WorkgroupState s) { return static_cast<std::size_t>(s); }
constexpr std::size_t idx(TimeCategory c) { return static_cast<std::size_t>(c); }

bool is_access(trace::OpKind k) {
  return trace::is_load(k) || k == trace::OpKind::kStore || k == trace::OpKind::kAtomicAddRange;
}

// Memory time split between plain memory work and the locality tax, in proportion to the
// workgroups whose accesses touch intermediates; integer ps so that the parts stay exact.
void add_memory(CategoryTimes& t, sim::Tick dt, std::uint64_t plain, std::uint64_t intermediate) {
  // floor(dt * intermediate / n) without overflow: (dt / n) * i + (dt % n) * i / n.
  const std::uint64_t n = plain + intermediate;
  const sim::Tick tax = dt / n * intermediate + dt % n * intermediate / n;
  t[idx(TimeCategory::kInterKernelLocality)] += tax;
  t[idx(TimeCategory::kMemory)] += dt - tax;
}

TimeCategory slice_category(WorkgroupState s, bool data_movement) {
  switch (s) {
    case WorkgroupState::kCompute: return data_movement ? TimeCategory::kBulkSynchronous : TimeCategory::kCompute;
    case WorkgroupState::kMemory: return TimeCategory::kMemory;
    case WorkgroupState::kIntermediate: return TimeCategory::kInterKernelLocality;
    case WorkgroupState::kRemote:
      return data_movement ? TimeCategory::kBulkSynchronous : TimeCategory::kCommunication;
    case WorkgroupState::kWait: return TimeCategory::kBulkSynchronous;
    case WorkgroupState::kNone: break;
  }
  return TimeCategory::kIdle;
}

}  // namespace

IntermediateMap::IntermediateMap(const trace::Trace& trace)
    : num_buffers_(static_cast<std::uint32_t>(trace.buffers.size())),
      bits_(trace.kernels.size() * trace.buffers.size(), 0),
      data_movement_(trace.kernels.size(), 1),
      writes_intermediates_(trace.kernels.size(), 0) {
  // Kernels are told apart by name: the same kernel on every rank is one producer.
  std::vector<std::set<std::string>> storers(num_buffers_), loaders(num_buffers_);
  std::vector<bool> program_computes(trace.programs.size(), false);
  for (std::size_t p = 0; p < trace.programs.size(); ++p) {
    for (const trace::Instr& in : trace.programs[p].instrs) {
      if (in.kind == trace::OpKind::kCompute) program_computes[p] = true;
    }
  }
  for (const trace::Kernel& k : trace.kernels) {
    for (const trace::Instr& in : trace.programs[k.program].instrs) {
      if (!is_access(in.kind) || in.buffer == trace::kNoBuffer) continue;
      (trace::is_load(in.kind) ? loaders : storers)[in.buffer].insert(k.name);
    }
  }
  const auto other_than = [](const std::set<std::string>& names, const std::string& name) {
    return names.size() > 1 || (names.size() == 1 && *names.begin() != name);
  };
  for (std::size_t k = 0; k < trace.kernels.size(); ++k) {
    const trace::Kernel& kernel = trace.kernels[k];
    data_movement_[k] = kernel.collective || !program_computes[kernel.program] ? 1 : 0;
    for (std::uint32_t b = 0; b < num_buffers_; ++b) {
      std::uint8_t bits = 0;
      if (other_than(storers[b], kernel.name)) bits |= 1;
      if (other_than(loaders[b], kernel.name)) bits |= 2;
      if ((bits & 2) != 0 && storers[b].count(kernel.name) != 0) writes_intermediates_[k] = 1;
      bits_[k * num_buffers_ + b] = bits;
    }
  }
}

bool IntermediateMap::is_intermediate(std::uint32_t kernel, std::uint32_t buffer, bool store) const {
  if (buffer >= num_buffers_) return false;
  return (bits_[std::size_t{kernel} * num_buffers_ + buffer] & (store ? 2 : 1)) != 0;
}

void add_times(CategoryTimes& into, const CategoryTimes& from) {
  for (std::size_t i = 0; i < into.size(); ++i) into[i] += from[i];
}

TaxLedger::TaxLedger(const trace::Trace& trace, const IntermediateMap& intermediates, const sim::Engine& engine,
                     ActivityLog* log, bool record_workgroups, std::uint64_t max_recorded)
    : intermediates_(intermediates),
      trace_(trace),
      engine_(engine),
      log_(log),
      workgroup_log_(record_workgroups ? log : nullptr),
      max_recorded_(max_recorded),
      gpus_(trace.ranks),
      kernels_(trace.kernels.size()) {
  for (std::uint32_t r = 0; r < trace.ranks; ++r) gpus_[r].rank = r;
  if (workgroup_log_ != nullptr) {
    slot_of_handle_.resize(trace.ranks);
    slots_in_use_.resize(trace.ranks);
    last_release_.resize(trace.ranks);
  }
}

void TaxLedger::close_gpu(Gpu& g) {
  const sim::Tick now = engine_.now();
  const sim::Tick start = g.since_ps;
  const sim::Tick dt = now - start;
  g.since_ps = now;
  if (dt == 0) return;
  const auto total = [&g](WorkgroupState s) { return g.fused[idx(s)] + g.data_movement[idx(s)]; };
  CategoryTimes& t = g.times;
  const std::uint64_t plain = total(WorkgroupState::kMemory);
  const std::uint64_t intermediate = total(WorkgroupState::kIntermediate);
  TimeCategory category = TimeCategory::kIdle;
  if (g.fused[idx(WorkgroupState::kCompute)] > 0) {
    category = TimeCategory::kCompute;
  } else if (total(WorkgroupState::kRemote) > 0 || g.data_movement[idx(WorkgroupState::kCompute)] > 0) {
    // A collective's reduction arithmetic is part of its data movement (docs/taxes.md).
    category = g.fused[idx(WorkgroupState::kRemote)] > 0 ? TimeCategory::kCommunication : TimeCategory::kBulkSynchronous;
  } else if (plain + intermediate > 0) {
    add_memory(t, dt, plain, intermediate);
    record_stretch(g, intermediate > plain ? TimeCategory::kInterKernelLocality : TimeCategory::kMemory, start, now);
    return;
  } else if (g.releasing_intermediates > 0) {
    category = TimeCategory::kInterKernelLocality;
  } else if (g.releasing_results > 0) {
    category = TimeCategory::kMemory;
  } else if (total(WorkgroupState::kWait) > 0) {
    category = TimeCategory::kBulkSynchronous;
  } else if (g.kernels_in_flight > 0 || g.host_delaying) {
    category = TimeCategory::kLaunchOverhead;
  } else if (g.host_blocked) {
    category = TimeCategory::kBulkSynchronous;
  }
  t[idx(category)] += dt;
  record_stretch(g, category, start, now);
}

void TaxLedger::record_stretch(Gpu& g, TimeCategory category, sim::Tick start_ps, sim::Tick end_ps) {
  if (log_ == nullptr) return;
  auto& stretches = log_->gpu_stretches;
  if (g.last_stretch < stretches.size()) {
    GpuStretch& last = stretches[g.last_stretch];
    if (last.category == category && last.end_ps == start_ps) {  // it continues: extend it
      last.end_ps = end_ps;
      return;
    }
  }
  if (!room()) return;
  g.last_stretch = stretches.size();
  stretches.push_back({g.rank, category, start_ps, end_ps});
}

void TaxLedger::close_kernel(std::uint32_t kernel, bool data_movement) {
  Kernel& k = kernels_[kernel];
  const sim::Tick now = engine_.now();
  const sim::Tick dt = now - k.since_ps;
  k.since_ps = now;
  if (dt == 0) return;
  const Counts& c = k.counts;
  CategoryTimes& t = k.times;
  const std::uint64_t plain = c[idx(WorkgroupState::kMemory)];
  const std::uint64_t intermediate = c[idx(WorkgroupState::kIntermediate)];
  if (c[idx(WorkgroupState::kCompute)] > 0 && !data_movement) {
    t[idx(TimeCategory::kCompute)] += dt;
  } else if (c[idx(WorkgroupState::kRemote)] > 0 || c[idx(WorkgroupState::kCompute)] > 0) {
    t[idx(data_movement ? TimeCategory::kBulkSynchronous : TimeCategory::kCommunication)] += dt;
  } else if (plain + intermediate > 0) {
    add_memory(t, dt, plain, intermediate);
  } else if (k.releasing) {
    t[idx(intermediates_.writes_intermediates(kernel) ? TimeCategory::kInterKernelLocality : TimeCategory::kMemory)] += dt;
  } else if (c[idx(WorkgroupState::kWait)] > 0) {
    t[idx(TimeCategory::kBulkSynchronous)] += dt;
  }
  // Otherwise the kernel is launching, dispatching or tearing down: the remainder of its span
  // (kernel_times) is its launch overhead.
}

bool TaxLedger::room() {
  if (log_->slices.size() + log_->flags.size() + log_->gpu_stretches.size() < max_recorded_) return true;
  log_->truncated = true;
  return false;
}

std::uint32_t TaxLedger::slot_for(const Where& w) {
  auto& by_handle = slot_of_handle_[w.rank];
  if (w.handle >= by_handle.size()) by_handle.resize(w.handle + 1, 0);
  auto& in_use = slots_in_use_[w.rank];
  if (w.cu >= in_use.size()) in_use.resize(w.cu + 1, 0);
  // The lowest free slot of the CU (a CU holds at most 64 workgroups at once here).
  const auto slot = static_cast<std::uint32_t>(std::countr_one(in_use[w.cu]));
  if (slot < 64) in_use[w.cu] |= std::uint64_t{1} << slot;
  by_handle[w.handle] = slot;
  return slot;
}

void TaxLedger::free_slot(const Where& w) {
  const std::uint32_t slot = slot_of_handle_[w.rank][w.handle];
  if (slot < 64) slots_in_use_[w.rank][w.cu] &= ~(std::uint64_t{1} << slot);
}

void TaxLedger::workgroup(const Where& w, WorkgroupState from, sim::Tick since_ps, WorkgroupState to) {
  const bool data_movement = intermediates_.data_movement_only(w.kernel);
  Gpu& g = gpus_[w.rank];
  close_gpu(g);
  close_kernel(w.kernel, data_movement);
  Counts& gpu_counts = data_movement ? g.data_movement : g.fused;
  Counts& kernel_counts = kernels_[w.kernel].counts;
  if (from != WorkgroupState::kNone) {
    --gpu_counts[idx(from)];
    --kernel_counts[idx(from)];
  }
  if (to != WorkgroupState::kNone) {
    ++gpu_counts[idx(to)];
    ++kernel_counts[idx(to)];
  }
  if (workgroup_log_ == nullptr) return;
  if (from == WorkgroupState::kNone) {
    slot_for(w);
    return;
  }
  const sim::Tick now = engine_.now();
  if (now > since_ps && room()) {
    log_->slices.push_back({w.kernel, w.workgroup, w.rank, w.die, w.cu, slot_of_handle_[w.rank][w.handle],
                            slice_category(from, data_movement), since_ps, now});
  }
  if (to == WorkgroupState::kNone) free_slot(w);
}

void TaxLedger::release_started(std::uint32_t kernel) {
  const std::uint32_t rank = trace_.kernels[kernel].rank;
  const bool intermediates = intermediates_.writes_intermediates(kernel);
  gpu_change(rank, [intermediates](Gpu& g) { ++(intermediates ? g.releasing_intermediates : g.releasing_results); });
  close_kernel(kernel, intermediates_.data_movement_only(kernel));
  kernels_[kernel].releasing = true;
}

void TaxLedger::release_finished(std::uint32_t kernel) {
  const std::uint32_t rank = trace_.kernels[kernel].rank;
  const bool intermediates = intermediates_.writes_intermediates(kernel);
  gpu_change(rank, [intermediates](Gpu& g) { --(intermediates ? g.releasing_intermediates : g.releasing_results); });
  close_kernel(kernel, intermediates_.data_movement_only(kernel));
  kernels_[kernel].releasing = false;
}

void TaxLedger::flag_released(std::uint32_t home, std::uint64_t flag, std::uint32_t rank, std::uint32_t cu) {
  if (workgroup_log_ == nullptr) return;
  last_release_[home][flag] = Release{rank, cu, engine_.now()};
}

void TaxLedger::flag_acquired(std::uint32_t home, std::uint64_t flag, std::uint32_t rank, std::uint32_t cu) {
  if (workgroup_log_ == nullptr) return;
  const auto it = last_release_[home].find(flag);
  if (it == last_release_[home].end() || !room()) return;  // satisfied by its initial value or an atomic
  const Release& r = it->second;
  log_->flags.push_back({r.rank, r.cu, r.time_ps, rank, cu, engine_.now()});
}

void TaxLedger::close() {
  for (Gpu& g : gpus_) close_gpu(g);
}

CategoryTimes TaxLedger::kernel_times(std::uint32_t kernel, sim::Tick span_ps) const {
  CategoryTimes t = kernels_[kernel].times;
  sim::Tick seen = 0;
  for (sim::Tick v : t) seen += v;
  t[idx(TimeCategory::kLaunchOverhead)] += span_ps > seen ? span_ps - seen : 0;
  return t;
}

}  // namespace tessera::workloads::replay

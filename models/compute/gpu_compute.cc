#include "models/compute/gpu_compute.h"

#include <algorithm>

#include <fmt/format.h>
#include <stdexcept>
#include <utility>

namespace tessera::models::compute {

GpuCompute::GpuCompute(sim::Context context, std::string name, std::uint32_t gpu, const GpuSpec& spec)
    : Component(context, std::move(name)),
      spec_(spec),
      gpu_(gpu),
      cus_(spec.compute),
      matrix_(cus_.num_cus()),
      matrix_event_(cus_.num_cus()),
      matrix_event_ps_(cus_.num_cus(), sim::kMaxTick),
      dies_(spec.compute.num_dies),
      workgroups_dispatched_(&add_counter("workgroups_dispatched", sim::stats::Unit::kCount,
                                          "workgroups that started on a CU")),
      kernels_completed_(&add_counter("kernels_completed", sim::stats::Unit::kCount, "kernels completed")),
      matrix_flops_(&add_counter("matrix_flops", sim::stats::Unit::kCount, "FLOPs of matrix work requested")),
      cu_occupied_ps_(&add_counter("cu_occupied_ps", sim::stats::Unit::kPs,
                                   "CU-time with at least one resident workgroup (finished periods)")),
      matrix_busy_ps_(&add_counter("matrix_busy_ps", sim::stats::Unit::kPs,
                                   "CU-time with the matrix unit busy (finished periods)")),
      kernel_time_ps_(&add_accumulator("kernel_time_ps", sim::stats::Unit::kPs, "kernel launch to completion")) {
  if (spec.dispatch.policy != "round_robin") {
    throw std::invalid_argument("dispatch policy '" + spec.dispatch.policy + "' is not supported (round_robin)");
  }
  if (spec.dispatch.chunk == 0) throw std::invalid_argument("dispatch chunk must be at least 1");
}

KernelId GpuCompute::launch(KernelLaunch launch) {
  if (launch.num_workgroups > 0 && launch.body == nullptr) {
    throw std::invalid_argument("kernel '" + launch.name + "' has workgroups but no body");
  }
  const auto id = static_cast<KernelId>(records_.size());
  KernelRecord record;
  record.name = launch.name;
  record.gpu = gpu_;
  record.stream = launch.stream;
  record.num_workgroups = launch.num_workgroups;
  record.enqueue_ps = now();
  records_.push_back(std::move(record));
  const Occupancy occupancy = occupancy_of(spec_.compute, launch.footprint);
  if (occupancy.workgroups == 0) {
    throw std::invalid_argument(fmt::format(
        "kernel '{}': one workgroup ({} waves, {} registers per lane, {} bytes of shared memory) does not fit a CU's {}",
        launch.name, launch.footprint.waves, launch.footprint.registers, launch.footprint.lds_bytes, occupancy.limit));
  }
  CuPartition partition = launch.partition ? *launch.partition : CuPartition::all(spec_.compute);
  states_.push_back(KernelState{std::move(launch), std::move(partition), {}, 0, false, {}});
  for (std::size_t d = 0; d < kNumDtypes; ++d) {
    states_.back().efficiency[d] = kernel_efficiency_of(spec_.compute, states_.back().launch.name, static_cast<Dtype>(d));
  }
  states_.back().max_resident_per_cu = occupancy.workgroups;
  const std::uint32_t stream = states_.back().launch.stream;
  if (stream >= streams_.size()) streams_.resize(stream + 1);
  streams_[stream].queue.push_back(id);
  ++running_kernels_;
  if (!streams_[stream].busy) start_next(stream);
  return id;
}

void GpuCompute::start_next(std::uint32_t stream) {
  Stream& s = streams_[stream];
  if (s.busy || s.queue.empty()) return;
  const KernelId id = s.queue.front();
  s.queue.pop_front();
  s.busy = true;
  records_[id].launch_ps = now();
  schedule_self<&GpuCompute::on_launched>(this, spec_.dispatch.kernel_launch_latency_ps, sim::Payload{id, 0});
}

void GpuCompute::on_launched(const sim::Payload& payload) {
  const auto id = static_cast<KernelId>(payload.a);
  KernelState& k = states_[id];
  KernelRecord& r = records_[id];
  k.started = true;
  r.first_workgroup_start_ps = now();
  r.last_workgroup_end_ps = now();
  if (k.launch.num_workgroups == 0) {
    schedule_self<&GpuCompute::on_kernel_done>(this, spec_.dispatch.kernel_teardown_ps, sim::Payload{id, 0});
    return;
  }
  const auto dies = k.partition.dies();
  k.next_k.assign(dies.size(), 0);
  const auto num_positions = static_cast<std::uint32_t>(dies.size());
  for (std::uint32_t p = 0; p < num_positions; ++p) {
    if (kth_workgroup_of_die(0, p, spec_.dispatch.chunk, num_positions) < k.launch.num_workgroups) {
      std::vector<KernelId>& queued = dies_[dies[p]].kernels;
      queued.insert(oldest_first_ ? std::lower_bound(queued.begin(), queued.end(), id) : queued.end(), id);
    }
  }
  for (const std::uint32_t die : dies) try_dispatch(die);
}

void GpuCompute::try_dispatch(std::uint32_t die) {
  DieDispatcher& d = dies_[die];
  if (d.busy || d.kernels.empty()) return;
  const std::size_t n = d.kernels.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t at = oldest_first_ ? i : (d.next + i) % n;
    const KernelId id = d.kernels[at];
    KernelState& k = states_[id];
    const auto cu = cus_.pick(k.partition.cus_on_die(die), k.max_resident_per_cu);
    if (!cu) continue;  // this kernel's head workgroup on the die waits for a slot; others may go

    const auto dies = k.partition.dies();
    const auto num_positions = static_cast<std::uint32_t>(dies.size());
    const auto position = static_cast<std::uint32_t>(std::find(dies.begin(), dies.end(), die) - dies.begin());
    const std::uint32_t chunk = spec_.dispatch.chunk;
    const std::uint64_t workgroup = kth_workgroup_of_die(k.next_k[position]++, position, chunk, num_positions);
    const bool more =
        kth_workgroup_of_die(k.next_k[position], position, chunk, num_positions) < k.launch.num_workgroups;
    if (more) {
      d.next = (at + 1) % n;
    } else {
      d.kernels.erase(d.kernels.begin() + static_cast<std::ptrdiff_t>(at));
      d.next = d.kernels.empty() ? 0 : at % d.kernels.size();
    }

    cus_.occupy(*cu, now());
    const std::uint32_t handle = take_context();
    WorkgroupContext& wg = contexts_[handle];
    wg.owner_ = this;
    wg.kernel_ = id;
    wg.workgroup_ = static_cast<std::uint32_t>(workgroup);
    wg.num_workgroups_ = k.launch.num_workgroups;
    wg.gpu_ = gpu_;
    wg.die_ = die;
    wg.cu_ = *cu;
    wg.live_ = true;
    d.busy = true;
    schedule_self<&GpuCompute::on_dispatched>(this, spec_.dispatch.workgroup_dispatch_ps, sim::Payload{handle, die});
    return;
  }
}

void GpuCompute::on_dispatched(const sim::Payload& payload) {
  const auto handle = static_cast<std::uint32_t>(payload.a);
  const auto die = static_cast<std::uint32_t>(payload.b);
  dies_[die].busy = false;
  WorkgroupContext& wg = contexts_[handle];
  wg.start_ps_ = now();
  workgroups_dispatched_->add();
  WorkgroupBody* body = states_[wg.kernel_].launch.body;
  // The next dispatch on this die starts before the body runs, so a body that ends at once
  // (done() inside start()) sees the same dispatcher state as one that ends later.
  try_dispatch(die);
  body->start(wg);  // may call done(): wg must not be used after this
}

void WorkgroupContext::compute(double flops, Dtype dtype, sim::Handler when_done, sim::Payload payload,
                               const PipeDemand& demand) {
  owner_->compute_for(kernel_, cu_, flops, dtype, demand, when_done, payload);
}

void WorkgroupContext::delay(sim::Tick ps, sim::Handler when_done, sim::Payload payload) {
  owner_->delay(ps, when_done, payload);
}

void GpuCompute::delay(sim::Tick ps, sim::Handler when_done, sim::Payload payload) {
  engine().schedule(ps, when_done, payload);
}

void WorkgroupContext::done() {
  if (!live_) throw std::logic_error("WorkgroupContext::done called twice");
  owner_->finish_workgroup(*this);
}

void GpuCompute::finish_workgroup(WorkgroupContext& wg) {
  const sim::Tick closed_before = cus_.closed_occupied_cu_ps();
  cus_.release(wg.cu_, now());
  cu_occupied_ps_->add(cus_.closed_occupied_cu_ps() - closed_before);
  wg.live_ = false;
  const KernelId id = wg.kernel_;
  const std::uint32_t die = wg.die_;
  free_contexts_.push_back(wg.handle_);
  KernelState& k = states_[id];
  records_[id].last_workgroup_end_ps = now();
  if (++k.finished == k.launch.num_workgroups) {
    if (k.launch.end_of_kernel) {
      k.launch.end_of_kernel(sim::Payload{k.launch.tag, id});
    } else {
      schedule_self<&GpuCompute::on_kernel_done>(this, spec_.dispatch.kernel_teardown_ps, sim::Payload{id, 0});
    }
  }
  try_dispatch(die);
}

void GpuCompute::end_of_kernel_done(KernelId id) {
  KernelState& k = states_.at(id);
  if (k.finished != k.launch.num_workgroups || records_[id].completed) {
    throw std::logic_error(fmt::format("{}: end_of_kernel_done for kernel {} which is not draining", name(), id));
  }
  schedule_self<&GpuCompute::on_kernel_done>(this, spec_.dispatch.kernel_teardown_ps, sim::Payload{id, 0});
}

void GpuCompute::on_kernel_done(const sim::Payload& payload) {
  const auto id = static_cast<KernelId>(payload.a);
  KernelRecord& r = records_[id];
  KernelState& k = states_[id];
  r.completion_ps = now();
  r.completed = true;
  kernels_completed_->add();
  kernel_time_ps_->sample(static_cast<double>(r.completion_ps - r.launch_ps));
  --running_kernels_;
  const sim::Handler on_complete = k.launch.on_complete;
  const std::uint64_t tag = k.launch.tag;
  k.next_k = {};  // the kernel's dispatch state is no longer needed
  streams_[r.stream].busy = false;
  start_next(r.stream);
  if (on_complete) on_complete(sim::Payload{tag, id});
}

std::uint32_t GpuCompute::take_context() {
  if (!free_contexts_.empty()) {
    const std::uint32_t handle = free_contexts_.back();
    free_contexts_.pop_back();
    return handle;
  }
  const auto handle = static_cast<std::uint32_t>(contexts_.size());
  contexts_.emplace_back();
  contexts_.back().handle_ = handle;
  return handle;
}

WorkgroupContext& GpuCompute::workgroup(std::uint32_t handle) {
  WorkgroupContext& wg = contexts_.at(handle);
  if (!wg.live_) throw std::logic_error("workgroup handle refers to a finished workgroup");
  return wg;
}

void GpuCompute::compute(std::uint32_t cu, double flops, Dtype dtype, sim::Handler when_done, sim::Payload payload) {
  check_compute(cu, when_done);
  add_matrix_work(cu, flops, compute_exact_ps(flops, dtype, spec_.compute), when_done, payload);
}

void GpuCompute::compute_for(KernelId kernel, std::uint32_t cu, double flops, Dtype dtype, const PipeDemand& demand,
                             sim::Handler when_done, sim::Payload payload) {
  const KernelEfficiency* curve = states_.at(kernel).efficiency[static_cast<std::size_t>(dtype)];
  check_compute(cu, when_done);
  // A fitted curve is the measured inner loop of this very kernel: it wins over the structural
  // bound, which wins over the plain matrix rate.
  double exact_ps;
  if (curve != nullptr) {
    exact_ps = compute_exact_ps(flops, dtype, spec_.compute, efficiency_at(spec_.compute, dtype, curve, cus_.resident(cu)));
  } else if (demand.any() && has_pipes(spec_.compute)) {
    exact_ps = pipe_bound_exact_ps(flops, dtype, demand, spec_.compute, cus_.resident(cu));
  } else {
    exact_ps = compute_exact_ps(flops, dtype, spec_.compute);
  }
  add_matrix_work(cu, flops, exact_ps, when_done, payload);
}

void GpuCompute::check_compute(std::uint32_t cu, const sim::Handler& when_done) const {
  if (cu >= matrix_.size()) throw std::out_of_range("CU index out of range");
  if (!when_done) throw std::invalid_argument("compute needs a completion handler");
}

void GpuCompute::add_matrix_work(std::uint32_t cu, double flops, double exact_ps, sim::Handler when_done,
                                 sim::Payload payload) {
  matrix_[cu].add(now(), exact_ps, when_done, payload);
  matrix_flops_->add(static_cast<std::uint64_t>(flops));
  reschedule_matrix(cu);
}

void GpuCompute::reschedule_matrix(std::uint32_t cu) {
  const sim::Tick next = matrix_[cu].next_completion_ps();
  if (next == matrix_event_ps_[cu]) return;
  if (matrix_event_ps_[cu] != sim::kMaxTick) cancel(matrix_event_[cu]);
  matrix_event_ps_[cu] = next;
  if (next != sim::kMaxTick) {
    matrix_event_[cu] = engine().schedule_at(next, sim::bind<&GpuCompute::on_matrix>(this), sim::Payload{cu, 0});
  }
}

void GpuCompute::on_matrix(const sim::Payload& payload) {
  const auto cu = static_cast<std::uint32_t>(payload.a);
  matrix_event_ps_[cu] = sim::kMaxTick;  // this event has run
  completions_.clear();
  const sim::Tick closed_before = matrix_[cu].closed_busy_ps();
  matrix_[cu].complete_due(now(), completions_);
  matrix_busy_ps_->add(matrix_[cu].closed_busy_ps() - closed_before);
  reschedule_matrix(cu);
  // Handlers run after the unit is consistent; they may add work to any CU (not re-enter this
  // event, which only the engine calls), so iterating the scratch list is safe.
  for (const MatrixUnit::Completion& c : completions_) c.handler(c.payload);
}

sim::Tick GpuCompute::matrix_busy_ps() const {
  sim::Tick total = 0;
  for (const MatrixUnit& unit : matrix_) total += unit.busy_ps(now());
  return total;
}

}  // namespace tessera::models::compute

#include "workloads/microbench/sync_kernels.h"

#include "models/compute/gpu_compute.h"

namespace tessera::workloads::microbench {

using models::sync::Compare;
using models::sync::FlagRef;

AtomicChainKernel::AtomicChainKernel(models::machine::Machine& machine, std::uint32_t gpu, std::uint32_t home,
                                     AtomicKind kind, std::uint32_t iterations)
    : machine_(machine), gpu_(gpu), home_(home), kind_(kind), iterations_(iterations) {}

void AtomicChainKernel::start(models::compute::WorkgroupContext& wg) {
  if (wg.handle() >= remaining_.size()) remaining_.resize(wg.handle() + 1);
  remaining_[wg.handle()] = iterations_;
  issue(wg.handle());
}

void AtomicChainKernel::issue(std::uint32_t handle) {
  const auto& wg = machine_.gpu(gpu_).workgroup(handle);
  const FlagRef flag{home_, wg.workgroup_id()};
  const auto access = machine_.flag_access(gpu_, wg.die(), home_);
  const auto on_done = sim::bind<&AtomicChainKernel::on_returned>(this);
  if (kind_ == AtomicKind::kAdd) {
    machine_.flags().atomic_add(flag, 1, access, on_done, handle);
  } else {
    machine_.flags().atomic_exchange(flag, remaining_[handle], access, on_done, handle);
  }
}

void AtomicChainKernel::on_returned(const sim::Payload& payload) {
  const auto handle = static_cast<std::uint32_t>(payload.a);
  ++atomics_done_;
  if (--remaining_[handle] == 0) {
    machine_.gpu(gpu_).workgroup(handle).done();
    return;
  }
  issue(handle);
}

PingPongKernel::PingPongKernel(models::machine::Machine& machine, std::uint32_t self, std::uint32_t other,
                               bool initiator, std::uint32_t iterations)
    : machine_(machine), self_(self), other_(other), initiator_(initiator), iterations_(iterations) {}

void PingPongKernel::start(models::compute::WorkgroupContext& wg) {
  die_ = wg.die();
  handle_ = wg.handle();
  round_ = 1;
  step();
}

// The initiator stores then waits; the responder waits then stores (in on_seen).
void PingPongKernel::step() {
  auto& flags = machine_.flags();
  const auto on_seen = sim::bind<&PingPongKernel::on_seen>(this);
  if (initiator_) {
    flags.release_store(ping_flag(other_), round_, machine_.flag_access(self_, die_, other_));
    flags.wait_until(pong_flag(self_), Compare::kGe, round_, machine_.flag_access(self_, die_, self_), on_seen);
  } else {
    flags.wait_until(ping_flag(self_), Compare::kGe, round_, machine_.flag_access(self_, die_, self_), on_seen);
  }
}

void PingPongKernel::on_seen(const sim::Payload&) {
  if (!initiator_) {
    machine_.flags().release_store(pong_flag(other_), round_, machine_.flag_access(self_, die_, other_));
  }
  if (round_ == iterations_) {
    machine_.gpu(self_).workgroup(handle_).done();
    return;
  }
  ++round_;
  step();
}

void EmptyKernel::start(models::compute::WorkgroupContext& wg) { wg.done(); }

}  // namespace tessera::workloads::microbench

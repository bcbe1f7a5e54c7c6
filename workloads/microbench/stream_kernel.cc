#include "workloads/microbench/stream_kernel.h"

#include <stdexcept>

#include "models/compute/gpu_compute.h"

namespace tessera::workloads::microbench {

using models::machine::AccessKind;
using models::machine::MemoryAccess;

std::uint64_t StreamPlan::chunks_per_pass() const {
  return segments.size() * ((segment_bytes + chunk_bytes - 1) / chunk_bytes);
}

StreamKernel::StreamKernel(models::machine::Machine& machine, std::uint32_t gpu, StreamPlan plan)
    : machine_(machine), gpu_(gpu), plan_(std::move(plan)) {
  if (plan_.segments.empty() || plan_.segment_bytes == 0 || plan_.chunk_bytes == 0 || plan_.passes == 0) {
    throw std::invalid_argument("StreamKernel: empty plan");
  }
}

StreamKernel::Chunk StreamKernel::chunk(std::uint64_t index) const {
  const std::uint64_t in_pass = index % plan_.chunks_per_pass();
  const std::uint64_t segment = in_pass % plan_.segments.size();
  const std::uint64_t offset = (in_pass / plan_.segments.size()) * plan_.chunk_bytes;
  return {&plan_.segments[segment], offset, std::min(plan_.chunk_bytes, plan_.segment_bytes - offset)};
}

void StreamKernel::start(models::compute::WorkgroupContext& wg) {
  if (wg.handle() >= next_chunk_.size()) next_chunk_.resize(wg.handle() + 1);
  next_chunk_[wg.handle()] = wg.workgroup_id();
  if (wg.workgroup_id() >= plan_.total_chunks()) {
    wg.done();  // more workgroups than chunks
    return;
  }
  issue(wg.handle());
}

void StreamKernel::issue(std::uint32_t handle) {
  const auto& wg = machine_.gpu(gpu_).workgroup(handle);
  const Chunk c = chunk(next_chunk_[handle]);
  if (c.segment->load) {
    const MemoryAccess a{AccessKind::kLoad, gpu_, wg.die(), c.segment->load->owner, c.segment->load->address + c.offset,
                         c.bytes};
    machine_.memory().access(a, sim::bind<&StreamKernel::on_load_done>(this), {handle, 0});
  } else {
    on_load_done({handle, 0});
  }
}

void StreamKernel::on_load_done(const sim::Payload& payload) {
  const auto handle = static_cast<std::uint32_t>(payload.a);
  const Chunk c = chunk(next_chunk_[handle]);
  if (!c.segment->store) {
    next(handle);
    return;
  }
  const auto& wg = machine_.gpu(gpu_).workgroup(handle);
  const MemoryAccess a{AccessKind::kStore, gpu_, wg.die(), c.segment->store->owner, c.segment->store->address + c.offset,
                       c.bytes};
  machine_.memory().access(a, sim::bind<&StreamKernel::on_store_done>(this), {handle, 0});
}

void StreamKernel::on_store_done(const sim::Payload& payload) { next(static_cast<std::uint32_t>(payload.a)); }

void StreamKernel::next(std::uint32_t handle) {
  auto& wg = machine_.gpu(gpu_).workgroup(handle);
  next_chunk_[handle] += wg.num_workgroups();
  if (next_chunk_[handle] >= plan_.total_chunks()) {
    wg.done();
    return;
  }
  issue(handle);
}

}  // namespace tessera::workloads::microbench

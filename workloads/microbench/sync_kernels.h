#pragma once
// The bodies of the latency microbenchmarks: dependent atomics, a flag ping-pong between two
// GPUs, and an empty kernel (launch latency).
#include <cstdint>
#include <vector>

#include "models/compute/kernel.h"
#include "models/compute/workgroup_context.h"
#include "models/machine/machine.h"

namespace tessera::workloads::microbench {

enum class AtomicKind : std::uint8_t { kAdd, kExchange };

// Each workgroup issues `iterations` atomics on flag `home`:workgroup id, each after the
// previous one returned (a dependent chain, so the time per atomic is its latency).
class AtomicChainKernel : public models::compute::WorkgroupBody {
 public:
  AtomicChainKernel(models::machine::Machine& machine, std::uint32_t gpu, std::uint32_t home, AtomicKind kind,
                    std::uint32_t iterations);
  void start(models::compute::WorkgroupContext& wg) override;
  std::uint64_t atomics_done() const { return atomics_done_; }

 private:
  void issue(std::uint32_t handle);
  void on_returned(const sim::Payload& payload);

  models::machine::Machine& machine_;
  std::uint32_t gpu_;
  std::uint32_t home_;
  AtomicKind kind_;
  std::uint32_t iterations_;
  std::vector<std::uint32_t> remaining_;  // per workgroup handle
  std::uint64_t atomics_done_ = 0;
};

// One side of a ping-pong between two GPUs, one workgroup each. Flags: `ping` homed on the
// responder, `pong` homed on the initiator (each side spins on its own memory, as the suite
// does). The initiator, for i = 1..N: release-store ping = i, wait until pong >= i. The
// responder: wait until ping >= i, release-store pong = i.
class PingPongKernel : public models::compute::WorkgroupBody {
 public:
  PingPongKernel(models::machine::Machine& machine, std::uint32_t self, std::uint32_t other, bool initiator,
                 std::uint32_t iterations);
  void start(models::compute::WorkgroupContext& wg) override;

  static models::sync::FlagRef ping_flag(std::uint32_t responder) { return {responder, kPingId}; }
  static models::sync::FlagRef pong_flag(std::uint32_t initiator) { return {initiator, kPongId}; }

 private:
  static constexpr std::uint64_t kPingId = 1ULL << 40;
  static constexpr std::uint64_t kPongId = (1ULL << 40) + 1;
  void step();
  void on_seen(const sim::Payload& payload);

  models::machine::Machine& machine_;
  std::uint32_t self_;
  std::uint32_t other_;
  bool initiator_;
  std::uint32_t iterations_;
  std::uint32_t round_ = 0;
  std::uint32_t die_ = 0;
  std::uint32_t handle_ = 0;
};

// Ends at once: a kernel with this body measures launch, dispatch and teardown only.
class EmptyKernel : public models::compute::WorkgroupBody {
 public:
  void start(models::compute::WorkgroupContext& wg) override;
};

}  // namespace tessera::workloads::microbench

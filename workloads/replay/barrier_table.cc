#include "workloads/replay/barrier_table.h"

namespace tessera::workloads::replay {

void BarrierTable::arrive(const Key& key, std::uint64_t expected, sim::Handler resume, sim::Payload payload) {
  State& s = states_[key];
  s.expected = expected;
  s.waiters.push_back({resume, payload});
  if (s.waiters.size() < expected) return;
  for (const Waiter& w : s.waiters) engine_.schedule(0, w.resume, w.payload);
  states_.erase(key);
}

std::vector<BarrierTable::Pending> BarrierTable::pending() const {
  std::vector<Pending> out;
  for (const auto& [key, s] : states_) out.push_back({key, s.waiters.size(), s.expected});
  return out;
}

}  // namespace tessera::workloads::replay

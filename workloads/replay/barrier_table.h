#pragma once
// Device-wide and all-rank barriers of workgroups. A barrier instance is named by its scope,
// the kernel (device: that kernel; all ranks: every kernel of that name on every rank) and the
// id the program gives; it releases its waiters, by scheduled events in arrival order, when the
// expected number of workgroups has arrived, and is then ready for its next use.
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "sim/core/engine.h"

namespace tessera::workloads::replay {

class BarrierTable {
 public:
  explicit BarrierTable(sim::Engine& engine) : engine_(engine) {}

  struct Key {
    std::uint8_t scope = 0;
    std::uint64_t group = 0;  // device: the kernel index; all ranks: an index of the kernel name
    std::int64_t id = 0;
    auto operator<=>(const Key&) const = default;
  };

  // Arrives at a barrier that needs `expected` arrivals; `resume(payload)` runs (as an event
  // at the current time) once all have arrived, for every arriving workgroup including the last.
  void arrive(const Key& key, std::uint64_t expected, sim::Handler resume, sim::Payload payload);

  // Barriers still waiting (for the deadlock report): key, arrived, expected.
  struct Pending {
    Key key;
    std::uint64_t arrived = 0;
    std::uint64_t expected = 0;
  };
  std::vector<Pending> pending() const;

 private:
  struct Waiter {
    sim::Handler resume;
    sim::Payload payload;
  };
  struct State {
    std::uint64_t expected = 0;
    std::vector<Waiter> waiters;
  };
  sim::Engine& engine_;
  std::map<Key, State> states_;
};

}  // namespace tessera::workloads::replay

#pragma once
// A bidirectional connection between two ports with a fixed latency: latency lives on the
// link, not in the sender (ns-3's channel, SST's link).
#include <cstdint>

#include "sim/component/port.h"
#include "sim/core/engine.h"
#include "sim/core/tick.h"

namespace tessera::sim {

class Link {
 public:
  // Connects `a` and `b`; both must be unconnected.
  Link(Engine& engine, Port& a, Port& b, Tick latency_ps);
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  Tick latency_ps() const { return latency_ps_; }
  std::uint64_t messages() const { return messages_; }

  // Delivers `payload` from `from` to the other end.
  void deliver(const Port& from, const Payload& payload, Tick extra_delay);

 private:
  Engine& engine_;
  Port& a_;
  Port& b_;
  Tick latency_ps_;
  std::uint64_t messages_ = 0;
};

}  // namespace tessera::sim

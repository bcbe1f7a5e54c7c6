#pragma once
// A named end point of a component. A port is connected by exactly one Link; send() hands a
// payload to the link, which delivers it to the peer port's handler after the link latency.
// The sender does not know who is on the other side (SST-style).
#include <string>

#include "sim/core/handler.h"
#include "sim/core/tick.h"

namespace tessera::sim {

class Link;

class Port {
 public:
  Port(std::string name, Handler on_receive) : name_(std::move(name)), on_receive_(on_receive) {}
  Port(const Port&) = delete;
  Port& operator=(const Port&) = delete;

  const std::string& name() const { return name_; }
  bool connected() const { return link_ != nullptr; }
  const Link* link() const { return link_; }

  // Sends `payload` to the peer: it arrives after the link latency plus `extra_delay`
  // (e.g. serialisation time the sender computed). Throws if the port is not connected.
  void send(const Payload& payload, Tick extra_delay = 0) const;

 private:
  friend class Link;
  std::string name_;
  Handler on_receive_;
  Link* link_ = nullptr;
};

}  // namespace tessera::sim

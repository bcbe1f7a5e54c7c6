#include "sim/component/link.h"

#include <stdexcept>

#include <fmt/format.h>

namespace tessera::sim {

Link::Link(Engine& engine, Port& a, Port& b, Tick latency_ps) : engine_(engine), a_(a), b_(b), latency_ps_(latency_ps) {
  if (&a == &b) throw std::invalid_argument(fmt::format("port '{}' cannot be linked to itself", a.name()));
  for (const Port* p : {&a, &b}) {
    if (p->connected()) throw std::invalid_argument(fmt::format("port '{}' is already connected", p->name()));
  }
  a.link_ = this;
  b.link_ = this;
}

void Link::deliver(const Port& from, const Payload& payload, Tick extra_delay) {
  const Port& to = (&from == &a_) ? b_ : a_;
  ++messages_;
  engine_.schedule(latency_ps_ + extra_delay, to.on_receive_, payload);
}

void Port::send(const Payload& payload, Tick extra_delay) const {
  if (link_ == nullptr) throw std::logic_error(fmt::format("port '{}' sends but is not connected", name_));
  link_->deliver(*this, payload, extra_delay);
}

}  // namespace tessera::sim

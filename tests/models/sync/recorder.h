#pragma once
// Records every call of a handler: when it ran and what it got (Payload{tag, value}).
#include <vector>

#include "sim/core/engine.h"
#include "sim/core/handler.h"

namespace tessera::models::sync::testing {

struct Call {
  sim::Tick at_ps;
  std::uint64_t tag;
  std::uint64_t value;
};

struct Recorder {
  sim::Engine* engine;
  std::vector<Call> calls;
  void on(const sim::Payload& p) { calls.push_back({engine->now(), p.a, p.b}); }
  sim::Handler handler() { return sim::bind<&Recorder::on>(this); }
};

}  // namespace tessera::models::sync::testing

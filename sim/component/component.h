#pragma once
// Base of every simulated hardware block: a validated hierarchical name, self-scheduling with
// cancellation, and statistics registered under the component's name. It holds no model
// logic; models derive from it. Models call each other through typed interfaces (a cache's
// access(), the fabric's transfer()), not through message ports: the data a model passes on
// is a typed request, and the time it costs is the callee's to decide.
#include <string>
#include <string_view>

#include "sim/component/context.h"
#include "sim/core/engine.h"
#include "sim/core/handler.h"

namespace tessera::sim {

class Component {
 public:
  Component(Context context, std::string name);
  virtual ~Component() = default;
  Component(const Component&) = delete;
  Component& operator=(const Component&) = delete;

  const std::string& name() const { return name_; }
  Tick now() const { return context_.engine.now(); }

 protected:
  Engine& engine() { return context_.engine; }

  // Schedules `T::method(payload)` on `self` after `delay`.
  template <auto kMethod, class T>
  EventId schedule_self(T* self, Tick delay, Payload payload = {}, Priority priority = kDefaultPriority) {
    return context_.engine.schedule(delay, bind<kMethod>(self), payload, priority);
  }
  bool cancel(EventId id) { return context_.engine.cancel(id); }

  // Statistics named `<component name>.<stat name>`.
  stats::Counter& add_counter(std::string_view stat, stats::Unit unit, std::string_view doc);
  stats::Accumulator& add_accumulator(std::string_view stat, stats::Unit unit, std::string_view doc);
  stats::Histogram& add_histogram(std::string_view stat, stats::Unit unit, std::string_view doc, double lo,
                                  double width, std::size_t bins);

 private:
  std::string stat_name(std::string_view stat) const;

  Context context_;
  std::string name_;
};

}  // namespace tessera::sim

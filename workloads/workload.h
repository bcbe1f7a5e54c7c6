#pragma once
// A workload of any kind with its parameters, read and checked, type-erased and immutable: what a
// run config's `workload:` becomes. The program describes, runs and dumps every kind through this
// one interface and names none of them (workloads/workload_kinds.h lists the kinds).
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "models/system/system_spec.h"
#include "sim/core/run_result.h"
#include "workloads/replay/activity_log.h"
#include "workloads/trace/trace.h"
#include "workloads/workload_result.h"

namespace tessera::workloads {

// What a run asks of a workload besides the system.
struct RunContext {
  sim::RunLimits limits;         // event limit, wall-clock deadline, interrupt flag
  std::uint64_t seed = 1;        // of every random draw in the run
  replay::ActivityDetail activity = replay::ActivityDetail::kNone;  // the replay's activity log (timeline, reports)
  bool ideal_locality = false;   // `run --ablate locality` (replay::ReplayOptions)
  bool dataflow_oracle = false;  // `run --ablate sync` (replay::ReplayOptions)
  bool skip_host_delays = false;  // `run --ablate launch` (replay::ReplayOptions)
};

struct WorkloadOutcome {
  WorkloadResult result;
  replay::ActivityLog activity;  // empty unless asked for and the kind replays a trace
};

class Workload {
 public:
  // What a kind supplies for its parameter type: plain functions, so that a kind is a table.
  template <class Params>
  struct Behaviour {
    std::string (*to_yaml)(const Params&, int indent);  // every parameter, defaults filled in, with units
    nlohmann::json (*to_json)(const Params&);
    // The tile-level trace the kind runs, or nullopt for a kind that runs no trace.
    std::optional<trace::Trace> (*trace)(const Params&, const models::SystemSpec&);
    WorkloadOutcome (*run)(const Params&, const models::SystemSpec&, const RunContext&);
  };

  Workload() = default;  // no workload yet: every call but kind() throws
  template <class Params>
  Workload(std::string kind, Params params, const Behaviour<Params>& behaviour)
      : kind_(std::move(kind)), impl_(std::make_shared<const Impl<Params>>(std::move(params), behaviour)) {}

  const std::string& kind() const { return kind_; }
  std::string to_yaml(int indent) const { return impl().to_yaml(indent); }
  nlohmann::json to_json() const { return impl().to_json(); }
  std::optional<trace::Trace> trace(const models::SystemSpec& system) const { return impl().trace(system); }
  WorkloadOutcome run(const models::SystemSpec& system, const RunContext& context) const {
    return impl().run(system, context);
  }

  // The parameters, for callers that know the kind (calibration reads its microbenchmarks'):
  // nullptr when the workload's parameters are of another type.
  template <class Params>
  const Params* params_if() const {
    const auto* typed = dynamic_cast<const Impl<Params>*>(impl_.get());
    return typed != nullptr ? &typed->params : nullptr;
  }
  // The same where the kind is known already; another type is a programming error.
  template <class Params>
  const Params& params() const {
    if (const Params* p = params_if<Params>()) return *p;
    throw std::logic_error("workload '" + kind_ + "' does not have the parameters asked for");
  }

 private:
  struct Concept {
    virtual ~Concept() = default;
    virtual std::string to_yaml(int indent) const = 0;
    virtual nlohmann::json to_json() const = 0;
    virtual std::optional<trace::Trace> trace(const models::SystemSpec& system) const = 0;
    virtual WorkloadOutcome run(const models::SystemSpec& system, const RunContext& context) const = 0;
  };
  template <class Params>
  struct Impl final : Concept {
    Impl(Params p, const Behaviour<Params>& b) : params(std::move(p)), behaviour(b) {}
    std::string to_yaml(int indent) const override { return behaviour.to_yaml(params, indent); }
    nlohmann::json to_json() const override { return behaviour.to_json(params); }
    std::optional<trace::Trace> trace(const models::SystemSpec& system) const override {
      return behaviour.trace(params, system);
    }
    WorkloadOutcome run(const models::SystemSpec& system, const RunContext& context) const override {
      return behaviour.run(params, system, context);
    }
    Params params;
    const Behaviour<Params>& behaviour;  // the kind's static table
  };

  const Concept& impl() const {
    if (!impl_) throw std::logic_error("no workload was read into this run spec");
    return *impl_;
  }

  std::string kind_;
  std::shared_ptr<const Concept> impl_;  // immutable, so copies may share it
};

}  // namespace tessera::workloads

#pragma once
// A generated workload of any generator with its parameters, type-erased, so that the registry of
// workload kinds (workloads/workload_kinds.cc) wraps every generator the same way.
#include <memory>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "models/system/system_spec.h"
#include "sim/config/schema.h"
#include "workloads/trace/trace.h"

namespace tessera::workloads::patterns {

class PatternWorkload {
 public:
  template <class Params>
  using MakeTrace = trace::Trace (*)(const Params&, const models::SystemSpec&);

  template <class Params>
  PatternWorkload(std::string kind, const sim::config::Schema<Params>& schema, Params params, MakeTrace<Params> make)
      : kind_(std::move(kind)), impl_(std::make_shared<Impl<Params>>(schema, std::move(params), make)) {}

  const std::string& kind() const { return kind_; }
  // Every parameter, defaults filled in, with units: what `tessera describe` prints.
  std::string to_yaml(int indent) const { return impl_->to_yaml(indent); }
  nlohmann::json to_json() const { return impl_->to_json(); }
  trace::Trace make_trace(const models::SystemSpec& system) const { return impl_->make(system); }

 private:
  struct Concept {
    virtual ~Concept() = default;
    virtual std::string to_yaml(int indent) const = 0;
    virtual nlohmann::json to_json() const = 0;
    virtual trace::Trace make(const models::SystemSpec& system) const = 0;
  };
  template <class Params>
  struct Impl final : Concept {
    Impl(const sim::config::Schema<Params>& s, Params p, MakeTrace<Params> m) : schema(s), params(std::move(p)), make_fn(m) {}
    std::string to_yaml(int indent) const override { return schema.to_yaml(params, indent); }
    nlohmann::json to_json() const override { return schema.to_json(params); }
    trace::Trace make(const models::SystemSpec& system) const override { return make_fn(params, system); }
    const sim::config::Schema<Params>& schema;  // the generator's static schema
    Params params;
    MakeTrace<Params> make_fn;
  };

  std::string kind_;
  std::shared_ptr<const Concept> impl_;  // immutable, so copies may share it
};

}  // namespace tessera::workloads::patterns

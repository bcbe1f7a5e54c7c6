#pragma once
// The per-field objects behind Schema<Spec>: one small type-erased object per declared key,
// which knows how to read its member from a node (strictly), check its range, and describe
// it as YAML and JSON. Not a hot path: clarity over speed.
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/config/config_error.h"
#include "sim/config/config_node.h"
#include "sim/config/schema_codecs.h"
#include "sim/config/yaml_writer.h"

namespace tessera::sim::config::schema_detail {

template <class T>
struct OptionalTraits {
  static constexpr bool kIsOptional = false;
  using Value = T;
};
template <class T>
struct OptionalTraits<std::optional<T>> {
  static constexpr bool kIsOptional = true;
  using Value = T;
};

template <class Spec>
class Field {
 public:
  Field(std::string key, std::string doc) : key_(std::move(key)), doc_(std::move(doc)) {}
  virtual ~Field() = default;
  Field(const Field&) = delete;
  Field& operator=(const Field&) = delete;

  const std::string& key() const { return key_; }
  const std::string& doc() const { return doc_; }
  bool required() const { return required_; }
  void set_required() { required_ = true; }

  // Only numeric fields have ranges; asking others for one is a mistake in a schema.
  virtual void set_min(double) { throw std::logic_error(fmt::format("config field '{}' has no range", key_)); }
  virtual void set_max(double) { throw std::logic_error(fmt::format("config field '{}' has no range", key_)); }

  virtual void read(const ConfigNode& node, Spec& spec) const = 0;
  virtual void write_yaml(const Spec& spec, int indent, std::string& out) const = 0;
  virtual nlohmann::json value_json(const Spec& spec) const = 0;
  virtual nlohmann::json schema_json(const Spec& defaults) const = 0;

 protected:
  nlohmann::json schema_base(std::string_view kind, std::string_view unit) const {
    nlohmann::json j = {{"key", key_}, {"kind", kind}, {"doc", doc_}, {"required", required_}};
    if (!unit.empty()) j["unit"] = unit;
    return j;
  }

 private:
  std::string key_;
  std::string doc_;
  bool required_ = false;
};

struct Bounds {
  std::optional<double> min;
  std::optional<double> max;
};

// Reads one scalar value with `codec`, checking its bounds; errors at the node.
template <class Value, class Codec>
Value read_scalar(const ConfigNode& node, const Codec& codec, const Bounds& bounds) {
  if (!node.is_scalar()) {
    throw ConfigError(node, fmt::format("expected {}, got {}", codec.expected(), node.kind_name()));
  }
  Value value;
  try {
    value = codec.parse(node.scalar());
  } catch (const UnitError& e) {
    throw ConfigError(node, e.what());
  }
  if constexpr (std::is_arithmetic_v<Value> && !std::is_same_v<Value, bool>) {
    const auto x = static_cast<double>(value);
    const bool low = bounds.min && x < *bounds.min;
    const bool high = bounds.max && x > *bounds.max;
    if (low || high) {
      const auto bound = [&](double b) { return codec.format(static_cast<Value>(b)); };
      const std::string got = codec.format(value);
      if (bounds.min && bounds.max) {
        throw ConfigError(node, fmt::format("must be between {} and {}, got {}", bound(*bounds.min),
                                            bound(*bounds.max), got));
      }
      if (low) throw ConfigError(node, fmt::format("must be at least {}, got {}", bound(*bounds.min), got));
      throw ConfigError(node, fmt::format("must be at most {}, got {}", bound(*bounds.max), got));
    }
  }
  return value;
}

template <class Value, class Codec>
void add_bounds_json(nlohmann::json& j, const Codec& codec, const Bounds& bounds) {
  if constexpr (std::is_arithmetic_v<Value> && !std::is_same_v<Value, bool>) {
    if (bounds.min) j["min"] = codec.to_json(static_cast<Value>(*bounds.min));
    if (bounds.max) j["max"] = codec.to_json(static_cast<Value>(*bounds.max));
  }
  if (auto names = codec.choices(); !names.empty()) j["choices"] = names;
}

// A member holding one value (or std::optional of one, where null means "not set").
template <class Spec, class M, class Codec>
class ScalarField final : public Field<Spec> {
  using Traits = OptionalTraits<M>;
  using Value = typename Traits::Value;
  static constexpr bool kRanged = std::is_arithmetic_v<Value> && !std::is_same_v<Value, bool>;

 public:
  ScalarField(std::string key, M Spec::*member, Codec codec, std::string doc)
      : Field<Spec>(std::move(key), std::move(doc)), member_(member), codec_(std::move(codec)) {}

  void set_min(double v) override {
    if constexpr (kRanged) bounds_.min = v; else Field<Spec>::set_min(v);
  }
  void set_max(double v) override {
    if constexpr (kRanged) bounds_.max = v; else Field<Spec>::set_max(v);
  }

  void read(const ConfigNode& node, Spec& spec) const override {
    if constexpr (Traits::kIsOptional) {
      if (node.is_null()) {
        spec.*member_ = std::nullopt;
        return;
      }
    }
    spec.*member_ = read_scalar<Value>(node, codec_, bounds_);
  }

  void write_yaml(const Spec& spec, int indent, std::string& out) const override {
    append_yaml_line(out, indent, this->key(), text(spec), this->doc());
  }

  nlohmann::json value_json(const Spec& spec) const override {
    if constexpr (Traits::kIsOptional) {
      if (!(spec.*member_)) return nullptr;
      return codec_.to_json(*(spec.*member_));
    } else {
      return codec_.to_json(spec.*member_);
    }
  }

  nlohmann::json schema_json(const Spec& defaults) const override {
    nlohmann::json j = this->schema_base(codec_.kind(), codec_.unit());
    j["default"] = value_json(defaults);
    j["optional"] = Traits::kIsOptional;
    add_bounds_json<Value>(j, codec_, bounds_);
    return j;
  }

 private:
  std::string text(const Spec& spec) const {
    if constexpr (Traits::kIsOptional) {
      if (!(spec.*member_)) return "null";
      return yaml_scalar(codec_.format(*(spec.*member_)));
    } else {
      return yaml_scalar(codec_.format(spec.*member_));
    }
  }

  M Spec::*member_;
  Codec codec_;
  Bounds bounds_;
};

// A member holding a list of values, e.g. std::vector<std::uint64_t> of counts; bounds
// apply to every item.
template <class Spec, class Value, class Codec>
class ListField final : public Field<Spec> {
  static constexpr bool kRanged = std::is_arithmetic_v<Value> && !std::is_same_v<Value, bool>;

 public:
  ListField(std::string key, std::vector<Value> Spec::*member, Codec codec, std::string doc)
      : Field<Spec>(std::move(key), std::move(doc)), member_(member), codec_(std::move(codec)) {}

  void set_min(double v) override {
    if constexpr (kRanged) bounds_.min = v; else Field<Spec>::set_min(v);
  }
  void set_max(double v) override {
    if constexpr (kRanged) bounds_.max = v; else Field<Spec>::set_max(v);
  }

  void read(const ConfigNode& node, Spec& spec) const override {
    if (!node.is_sequence()) {
      throw ConfigError(node, fmt::format("expected a list of {} values, got {}", codec_.kind(), node.kind_name()));
    }
    std::vector<Value> values;
    values.reserve(node.size());
    for (const ConfigNode& item : node.children()) values.push_back(read_scalar<Value>(item, codec_, bounds_));
    spec.*member_ = std::move(values);
  }

  void write_yaml(const Spec& spec, int indent, std::string& out) const override {
    std::vector<std::string> items;
    for (const Value& v : spec.*member_) items.push_back(codec_.format(v));
    append_yaml_line(out, indent, this->key(), yaml_flow_list(items), this->doc());
  }

  nlohmann::json value_json(const Spec& spec) const override {
    nlohmann::json j = nlohmann::json::array();
    for (const Value& v : spec.*member_) j.push_back(codec_.to_json(v));
    return j;
  }

  nlohmann::json schema_json(const Spec& defaults) const override {
    nlohmann::json j = this->schema_base(fmt::format("list of {}", codec_.kind()), codec_.unit());
    j["default"] = value_json(defaults);
    add_bounds_json<Value>(j, codec_, bounds_);
    return j;
  }

 private:
  std::vector<Value> Spec::*member_;
  Codec codec_;
  Bounds bounds_;
};

// A field of a member struct flattened into its parent's map (Schema::embed): the sub-schema's
// field under its own key, doc, bounds and required-ness, reading and writing `spec.*member`.
template <class Spec, class Sub>
class EmbeddedField final : public Field<Spec> {
 public:
  EmbeddedField(Sub Spec::*member, std::shared_ptr<const Field<Sub>> field)
      : Field<Spec>(field->key(), field->doc()), member_(member), field_(std::move(field)) {
    if (field_->required()) this->set_required();
  }

  // The sub-schema owns the field's range, so that every embedding of it shares one.
  void set_min(double) override { throw_range_belongs_to_sub_schema(); }
  void set_max(double) override { throw_range_belongs_to_sub_schema(); }

  void read(const ConfigNode& node, Spec& spec) const override { field_->read(node, spec.*member_); }

  void write_yaml(const Spec& spec, int indent, std::string& out) const override {
    field_->write_yaml(spec.*member_, indent, out);
  }

  nlohmann::json value_json(const Spec& spec) const override { return field_->value_json(spec.*member_); }

  // The embedding Spec's defaults of the member, which may differ from Sub's own.
  nlohmann::json schema_json(const Spec& defaults) const override {
    nlohmann::json j = field_->schema_json(defaults.*member_);
    j["required"] = this->required();
    return j;
  }

 private:
  [[noreturn]] void throw_range_belongs_to_sub_schema() const {
    throw std::logic_error(
        fmt::format("config field '{}' is embedded: set its range in the schema that declares it", this->key()));
  }

  Sub Spec::*member_;
  std::shared_ptr<const Field<Sub>> field_;
};

}  // namespace tessera::sim::config::schema_detail

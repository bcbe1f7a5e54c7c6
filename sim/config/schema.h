#pragma once
// Typed, strict config schemas. A model declares its parameters beside its Spec struct, each
// with a kind, a unit, a meaning and (through the default-constructed Spec) a default:
//
//   const Schema<CacheSpec>& cache_schema() {
//     static const Schema<CacheSpec> s = Schema<CacheSpec>("cache", "A set-associative cache")
//         .bytes("capacity", &CacheSpec::capacity_bytes, "capacity per instance").min(1)
//         .count("ways", &CacheSpec::ways, "associativity").range(1, 64)
//         .time("hit_latency", &CacheSpec::hit_latency_ps, "latency of a hit")
//         .choice("replacement", &CacheSpec::replacement, {"lru", "fifo"}, "replacement policy");
//     return s;
//   }
//   CacheSpec spec = cache_schema().read(node);
//
// Reading starts from the default Spec and overrides what the map gives. It is strict: an
// undeclared key ("did you mean ...?"), a wrong type, a wrong or missing unit, a value out of
// range, a missing required key or a failed cross-field check is a ConfigError at the place
// in the file. describe (to_yaml / to_json / schema_json) prints every field with its unit.
#include <algorithm>
#include <functional>
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
#include "sim/config/schema_field.h"
#include "sim/config/suggest.h"
#include "sim/config/yaml_writer.h"

namespace tessera::sim::config {

struct ReadOptions {
  // Keys that the caller handles itself (e.g. "kind"), accepted in the top map unread.
  std::vector<std::string> extra_keys;
  // Ignore undeclared keys in the top map altogether (e.g. a map shared by several readers).
  bool allow_unknown_keys = false;
};

// What a cross-field rule found wrong, and where: `path` leads from the map the rule checks to
// the node at fault (map keys, or list positions as decimal digits), so the error points at its
// line; an empty path points at the map itself, and a path the file has only in part (a value
// inherited from a base file) at its last node in the file.
struct CheckProblem {
  CheckProblem(std::string what) : message(std::move(what)) {}  // NOLINT: a message alone converts
  CheckProblem(std::vector<std::string> where, std::string what) : path(std::move(where)), message(std::move(what)) {}
  std::vector<std::string> path;
  std::string message;
};

// The node `path` leads to from `node`; where the path leaves the file, the last node of it the file has.
const ConfigNode& node_at(const ConfigNode& node, const std::vector<std::string>& path);

// The message for a key that no schema declares: a suggestion when one is close, else the list.
std::string unknown_key_message(std::string_view key, const std::vector<std::string>& valid_keys);

template <class Spec>
class Schema {
 public:
  // A cross-field rule: returns what is wrong (a message, or a CheckProblem that says where), or nothing.
  using Check = std::function<std::optional<CheckProblem>(const Spec&)>;

  Schema(std::string name, std::string doc) : name_(std::move(name)), doc_(std::move(doc)) {}

  const std::string& name() const { return name_; }
  const std::string& doc() const { return doc_; }
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    for (const auto& f : fields_) out.push_back(f->key());
    return out;
  }

  // ---- Fields. M may be std::optional<X>, where null in the file means "not set". ----
  template <class M>
  Schema& count(std::string key, M Spec::*member, std::string doc) {
    return scalar<M>(std::move(key), member, codec::Count<Value<M>>{}, std::move(doc));
  }
  template <class M>
  Schema& real(std::string key, M Spec::*member, std::string doc) {
    return scalar<M>(std::move(key), member, codec::Real{}, std::move(doc));
  }
  // A double in [0, 1], written "0.85" or "85%".
  template <class M>
  Schema& fraction(std::string key, M Spec::*member, std::string doc) {
    return scalar<M>(std::move(key), member, codec::Fraction{}, std::move(doc));
  }
  template <class M>
  Schema& boolean(std::string key, M Spec::*member, std::string doc) {
    return scalar<M>(std::move(key), member, codec::Boolean{}, std::move(doc));
  }
  template <class M>
  Schema& string(std::string key, M Spec::*member, std::string doc) {
    return scalar<M>(std::move(key), member, codec::String{}, std::move(doc));
  }
  template <class M>
  Schema& bytes(std::string key, M Spec::*member, std::string doc) {
    return scalar<M>(std::move(key), member, codec::Bytes<Value<M>>{}, std::move(doc));
  }
  template <class M>
  Schema& time(std::string key, M Spec::*member, std::string doc) {
    return scalar<M>(std::move(key), member, codec::Time<Value<M>>{}, std::move(doc));
  }
  template <class M>
  Schema& frequency(std::string key, M Spec::*member, std::string doc) {
    return scalar<M>(std::move(key), member, codec::Frequency{}, std::move(doc));
  }
  template <class M>
  Schema& bandwidth(std::string key, M Spec::*member, std::string doc) {
    return scalar<M>(std::move(key), member, codec::Bandwidth{}, std::move(doc));
  }
  // A string member restricted to the given names.
  Schema& choice(std::string key, std::string Spec::*member, std::vector<std::string> names, std::string doc) {
    codec::Choice<std::string> c;
    for (std::string& n : names) c.table.emplace_back(n, n);
    return scalar<std::string>(std::move(key), member, std::move(c), std::move(doc));
  }
  // An enum member, with its names.
  template <class E>
    requires std::is_enum_v<E>
  Schema& choice(std::string key, E Spec::*member, std::vector<std::pair<std::string, E>> table, std::string doc) {
    return scalar<E>(std::move(key), member, codec::Choice<E>{{}, std::move(table)}, std::move(doc));
  }

  // Lists of scalars.
  template <class X>
  Schema& count_list(std::string key, std::vector<X> Spec::*member, std::string doc) {
    return list<X>(std::move(key), member, codec::Count<X>{}, std::move(doc));
  }
  template <class X>
  Schema& real_list(std::string key, std::vector<X> Spec::*member, std::string doc) {
    return list<X>(std::move(key), member, codec::Real{}, std::move(doc));
  }
  Schema& string_list(std::string key, std::vector<std::string> Spec::*member, std::string doc) {
    return list<std::string>(std::move(key), member, codec::String{}, std::move(doc));
  }
  template <class X>
  Schema& bytes_list(std::string key, std::vector<X> Spec::*member, std::string doc) {
    return list<X>(std::move(key), member, codec::Bytes<X>{}, std::move(doc));
  }
  template <class X>
  Schema& time_list(std::string key, std::vector<X> Spec::*member, std::string doc) {
    return list<X>(std::move(key), member, codec::Time<X>{}, std::move(doc));
  }

  // A nested map read with its own schema, starting from the member's current value.
  template <class Sub>
  Schema& nested(std::string key, Sub Spec::*member, const Schema<Sub>& schema, std::string doc = {});
  // A list of maps, each read with `schema` starting from a default-constructed Sub.
  template <class Sub>
  Schema& nested_list(std::string key, std::vector<Sub> Spec::*member, const Schema<Sub>& schema,
                      std::string doc = {});
  // The fields of a member struct flattened into this map, so that a block of parameters several
  // Specs share is declared once, by its own schema: every field of `fields`, in its order, under
  // its key, doc, unit, bounds and required-ness, reads and writes `spec.*member`, and `fields`'
  // checks run on the member with this schema's own. The member has no key of its own
  // (`{m: 64}`, where nested() reads `{gemm: {m: 64}}`); a key this schema already has is a
  // mistake in the schema.
  template <class Sub>
  Schema& embed(Sub Spec::*member, const Schema<Sub>& fields);

  // Parts of this schema, for a parent that embeds one struct's keys in two places of its map
  // with keys of its own between them: only() holds the named fields and no check, without() the
  // others and every check, so that embedding both runs each check once. Fields keep this
  // schema's order; naming a key it does not declare is a mistake in the schema.
  Schema only(const std::vector<std::string>& keys) const { return part(keys, /*keep_named=*/true); }
  Schema without(const std::vector<std::string>& keys) const { return part(keys, /*keep_named=*/false); }

  // ---- Modifiers of the last declared field. ----
  Schema& min(double v) {
    last().set_min(v);
    return *this;
  }
  Schema& max(double v) {
    last().set_max(v);
    return *this;
  }
  Schema& range(double lo, double hi) { return min(lo).max(hi); }
  // The key must be given; its default is never used.
  Schema& required() {
    last().set_required();
    return *this;
  }
  // A cross-field rule, checked after all fields are read, reported at the map.
  Schema& check(Check rule) {
    checks_.push_back(std::move(rule));
    return *this;
  }

  // ---- Reading. ----
  Spec read(const ConfigNode& node, const ReadOptions& options = {}) const {
    Spec spec{};
    read_into(node, spec, options);
    return spec;
  }

  // Reads over `spec`, so that a caller can preset defaults. A null node reads as an empty map.
  void read_into(const ConfigNode& node, Spec& spec, const ReadOptions& options = {}) const {
    if (!node.is_map() && !node.is_null()) {
      throw ConfigError(node, fmt::format("expected a map of {} settings, got {}", name_, node.kind_name()));
    }
    for (const ConfigNode& child : node.children()) {
      if (const schema_detail::Field<Spec>* field = find(child.key())) {
        field->read(child, spec);
        continue;
      }
      const auto& extra = options.extra_keys;
      if (options.allow_unknown_keys || std::find(extra.begin(), extra.end(), child.key()) != extra.end()) continue;
      throw ConfigError(child.key_location(), child.path(), unknown_key_message(child.key(), keys()));
    }
    for (const auto& field : fields_) {
      if (field->required() && !node.contains(field->key())) {
        throw ConfigError(node, fmt::format("missing required key '{}' ({})", field->key(), field->doc()));
      }
    }
    for (const Check& rule : checks_) {
      if (std::optional<CheckProblem> problem = rule(spec)) {
        throw ConfigError(node_at(node, problem->path), problem->message);
      }
    }
  }

  // ---- Describing. ----
  // Every field of `spec`, values with units, "  # doc" comments, nested maps indented.
  // The text reads back through this schema to an equal Spec.
  std::string to_yaml(const Spec& spec, int indent = 0) const {
    std::string out;
    for (const auto& field : fields_) field->write_yaml(spec, indent, out);
    return out;
  }
  // Values as JSON: dimensioned quantities as unit strings, counts and reals as numbers.
  nlohmann::json to_json(const Spec& spec) const {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& field : fields_) j[field->key()] = field->value_json(spec);
    return j;
  }
  // The schema itself: every field's key, kind, unit, default, range, choices and doc.
  nlohmann::json schema_json(const Spec& defaults = Spec{}) const {
    nlohmann::json fields = nlohmann::json::array();
    for (const auto& field : fields_) fields.push_back(field->schema_json(defaults));
    return {{"name", name_}, {"doc", doc_}, {"fields", std::move(fields)}};
  }

 private:
  template <class M>
  using Value = typename schema_detail::OptionalTraits<M>::Value;

  template <class M, class Codec>
  Schema& scalar(std::string key, M Spec::*member, Codec c, std::string doc) {
    return add(std::make_shared<schema_detail::ScalarField<Spec, M, Codec>>(std::move(key), member, std::move(c),
                                                                             std::move(doc)));
  }
  template <class X, class Codec>
  Schema& list(std::string key, std::vector<X> Spec::*member, Codec c, std::string doc) {
    return add(std::make_shared<schema_detail::ListField<Spec, X, Codec>>(std::move(key), member, std::move(c),
                                                                           std::move(doc)));
  }

  Schema& add(std::shared_ptr<schema_detail::Field<Spec>> field) {
    if (find(field->key()) != nullptr) {
      throw std::logic_error(fmt::format("schema '{}' declares key '{}' twice", name_, field->key()));
    }
    fields_.push_back(std::move(field));
    return *this;
  }

  // Fields named (or not named) by `keys`; the checks only with the unnamed ones.
  Schema part(const std::vector<std::string>& keys, bool keep_named) const {
    for (const std::string& key : keys) {
      if (find(key) == nullptr) {
        throw std::logic_error(fmt::format("schema '{}' has no key '{}' to select", name_, key));
      }
    }
    Schema out(name_, doc_);
    for (const auto& field : fields_) {
      const bool named = std::find(keys.begin(), keys.end(), field->key()) != keys.end();
      if (named == keep_named) out.fields_.push_back(field);
    }
    if (!keep_named) out.checks_ = checks_;
    return out;
  }

  schema_detail::Field<Spec>& last() {
    if (fields_.empty()) throw std::logic_error(fmt::format("schema '{}': a modifier before any field", name_));
    return *fields_.back();
  }

  const schema_detail::Field<Spec>* find(std::string_view key) const {
    for (const auto& field : fields_) {
      if (field->key() == key) return field.get();
    }
    return nullptr;
  }

  // embed() reads the fields and checks of a schema of another Spec.
  template <class>
  friend class Schema;

  std::string name_;
  std::string doc_;
  // Shared so that a finished schema copies cheaply (e.g. into a parent's nested field);
  // fields are never changed once the schema is built.
  std::vector<std::shared_ptr<schema_detail::Field<Spec>>> fields_;
  std::vector<Check> checks_;
};

namespace schema_detail {

template <class Spec, class Sub>
class NestedField final : public Field<Spec> {
 public:
  NestedField(std::string key, Sub Spec::*member, Schema<Sub> schema, std::string doc)
      : Field<Spec>(std::move(key), std::move(doc)), member_(member), schema_(std::move(schema)) {}

  void read(const ConfigNode& node, Spec& spec) const override { schema_.read_into(node, spec.*member_); }

  void write_yaml(const Spec& spec, int indent, std::string& out) const override {
    const std::string body = schema_.to_yaml(spec.*member_, indent + 2);
    append_yaml_line(out, indent, this->key(), body.empty() ? "{}" : "", this->doc());
    out += body;
  }

  nlohmann::json value_json(const Spec& spec) const override { return schema_.to_json(spec.*member_); }

  nlohmann::json schema_json(const Spec& defaults) const override {
    nlohmann::json j = this->schema_base("map", "");
    j["schema"] = schema_.schema_json(defaults.*member_);
    return j;
  }

 private:
  Sub Spec::*member_;
  Schema<Sub> schema_;
};

template <class Spec, class Sub>
class NestedListField final : public Field<Spec> {
 public:
  NestedListField(std::string key, std::vector<Sub> Spec::*member, Schema<Sub> schema, std::string doc)
      : Field<Spec>(std::move(key), std::move(doc)), member_(member), schema_(std::move(schema)) {}

  void read(const ConfigNode& node, Spec& spec) const override {
    if (!node.is_sequence()) {
      throw ConfigError(node, fmt::format("expected a list of {} maps, got {}", schema_.name(), node.kind_name()));
    }
    std::vector<Sub> items;
    for (const ConfigNode& item : node.children()) items.push_back(schema_.read(item));
    spec.*member_ = std::move(items);
  }

  void write_yaml(const Spec& spec, int indent, std::string& out) const override {
    const std::vector<Sub>& items = spec.*member_;
    append_yaml_line(out, indent, this->key(), items.empty() ? "[]" : "", this->doc());
    const auto item_indent = static_cast<std::size_t>(indent + 4);
    for (const Sub& item : items) {
      std::string body = schema_.to_yaml(item, indent + 4);
      if (body.empty()) {
        out += std::string(static_cast<std::size_t>(indent + 2), ' ') + "- {}\n";
        continue;
      }
      // "    key: v" -> "  - key: v": the first line carries the list dash.
      body.replace(0, item_indent, std::string(static_cast<std::size_t>(indent + 2), ' ') + "- ");
      out += body;
    }
  }

  nlohmann::json value_json(const Spec& spec) const override {
    nlohmann::json j = nlohmann::json::array();
    for (const Sub& item : spec.*member_) j.push_back(schema_.to_json(item));
    return j;
  }

  nlohmann::json schema_json(const Spec& defaults) const override {
    nlohmann::json j = this->schema_base("list of map", "");
    nlohmann::json items = nlohmann::json::array();
    for (const Sub& item : defaults.*member_) items.push_back(schema_.to_json(item));
    j["default"] = std::move(items);
    j["schema"] = schema_.schema_json();
    return j;
  }

 private:
  std::vector<Sub> Spec::*member_;
  Schema<Sub> schema_;
};

}  // namespace schema_detail

template <class Spec>
template <class Sub>
Schema<Spec>& Schema<Spec>::nested(std::string key, Sub Spec::*member, const Schema<Sub>& schema, std::string doc) {
  if (doc.empty()) doc = schema.doc();
  return add(std::make_shared<schema_detail::NestedField<Spec, Sub>>(std::move(key), member, schema, std::move(doc)));
}

template <class Spec>
template <class Sub>
Schema<Spec>& Schema<Spec>::nested_list(std::string key, std::vector<Sub> Spec::*member, const Schema<Sub>& schema,
                                        std::string doc) {
  if (doc.empty()) doc = schema.doc();
  return add(
      std::make_shared<schema_detail::NestedListField<Spec, Sub>>(std::move(key), member, schema, std::move(doc)));
}

template <class Spec>
template <class Sub>
Schema<Spec>& Schema<Spec>::embed(Sub Spec::*member, const Schema<Sub>& fields) {
  for (const auto& field : fields.fields_) {
    add(std::make_shared<schema_detail::EmbeddedField<Spec, Sub>>(member, field));
  }
  for (const auto& rule : fields.checks_) {
    checks_.push_back([member, rule](const Spec& spec) { return rule(spec.*member); });
  }
  return *this;
}

}  // namespace tessera::sim::config

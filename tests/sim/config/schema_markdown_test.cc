#include "sim/config/schema_markdown.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/schema.h"
#include "sim/core/tick.h"

namespace tessera::sim::config::test {
namespace {

struct Level {
  std::uint64_t capacity_bytes = 4 << 20;
  std::string policy = "lru";
};

struct Entry {
  std::string name;
  std::vector<double> shares;
};

struct Machine {
  std::string name;
  std::uint32_t units = 8;
  std::optional<std::uint64_t> limit;
  Tick latency_ps = 1'500'000;
  double scale = 2.5;
  Level near;
  // The same schema as `near`, other defaults: each table must show its own.
  Level far{.capacity_bytes = 0, .policy = "fifo"};
  std::vector<Entry> entries;
};

const Schema<Level>& level_schema() {
  static const Schema<Level> s = Schema<Level>("level", "one level")
                                     .bytes("capacity", &Level::capacity_bytes, "size of one instance")
                                     .max(1ULL << 30)
                                     .choice("policy", &Level::policy, {"lru", "fifo"}, "eviction | order");
  return s;
}

const Schema<Entry>& entry_schema() {
  static const Schema<Entry> s = Schema<Entry>("entry", "one entry")
                                     .string("name", &Entry::name, "what it names (`k*`)")
                                     .required()
                                     .real_list("shares", &Entry::shares, "fractions");
  return s;
}

const Schema<Machine>& machine_schema() {
  static const Schema<Machine> s = Schema<Machine>("machine", "a test machine")
                                       .string("name", &Machine::name, "")
                                       .count("units", &Machine::units, "compute units")
                                       .range(1, 64)
                                       .count("limit", &Machine::limit, "stop after this many")
                                       .min(1)
                                       .time("latency", &Machine::latency_ps, "one hop")
                                       .real("scale", &Machine::scale, "a factor for remote_* and atomic_*")
                                       .nested("near", &Machine::near, level_schema(), "the near level")
                                       .nested("far", &Machine::far, level_schema(), "the far level")
                                       .nested_list("entries", &Machine::entries, entry_schema(), "the entries");
  return s;
}

TEST_CASE("schema_markdown: one table per map, nested maps after it with their own defaults") {
  const std::string expected =
      "**`system`**: a test machine\n"
      "\n"
      "| key | kind | default | range or choices | meaning |\n"
      "|---|---|---|---|---|\n"
      "| `name` | string | `\"\"` | — | — |\n"
      "| `units` | count | `8` | 1 – 64 | compute units |\n"
      "| `limit` | count or `null` | `null` | ≥ 1 | stop after this many |\n"
      "| `latency` | time | `1.5 us` | — | one hop |\n"
      "| `scale` | real | `2.5` | — | a factor for remote_\\* and atomic_\\* |\n"
      "| `near` | map | — | — | the near level; see `system.near` |\n"
      "| `far` | map | — | — | the far level; see `system.far` |\n"
      "| `entries` | list of map | `[]` | — | the entries; see `system.entries[]` |\n"
      "\n"
      "**`system.near`**: the near level\n"
      "\n"
      "| key | kind | default | range or choices | meaning |\n"
      "|---|---|---|---|---|\n"
      "| `capacity` | bytes | `4 MiB` | ≤ 1 GiB | size of one instance |\n"
      "| `policy` | choice | `lru` | `lru`, `fifo` | eviction \\| order |\n"
      "\n"
      "**`system.far`**: the far level\n"
      "\n"
      "| key | kind | default | range or choices | meaning |\n"
      "|---|---|---|---|---|\n"
      "| `capacity` | bytes | `0 B` | ≤ 1 GiB | size of one instance |\n"
      "| `policy` | choice | `fifo` | `lru`, `fifo` | eviction \\| order |\n"
      "\n"
      "**`system.entries[]`**: the entries\n"
      "\n"
      "| key | kind | default | range or choices | meaning |\n"
      "|---|---|---|---|---|\n"
      "| `name` | string | required | — | what it names (`k*`) |\n"
      "| `shares` | list of real | `[]` | — | fractions |\n";
  CHECK(schema_markdown(machine_schema().schema_json(), "system") == expected);
}

TEST_CASE("schema_markdown: the title captions the first table, the defaults are the given Spec's") {
  Machine defaults;
  defaults.units = 12;
  defaults.entries = {Entry{"a", {0.5, 0.25}}};
  const std::string md = schema_markdown(machine_schema().schema_json(defaults), "", "top level");
  CHECK(md.starts_with("**top level**: a test machine\n"));
  CHECK(md.find("| `units` | count | `12` |") != std::string::npos);
  // Top-level nested maps are captioned by their key alone.
  CHECK(md.find("**`near`**: the near level\n") != std::string::npos);
  CHECK(md.find("the entries; see `entries[]` |") != std::string::npos);
  CHECK(md.find("| `entries` | list of map | `[{\"name\":\"a\",\"shares\":[0.5,0.25]}]` |") != std::string::npos);
}

}  // namespace
}  // namespace tessera::sim::config::test

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "error_capture.h"
#include "sim/config/yaml_reader.h"
#include "test_specs.h"

namespace tessera::sim::config::test {
namespace {

ConfigNode yaml(const char* text) { return parse_yaml(text, "s.yaml"); }

TEST_CASE("schema: reads every kind of field") {
  const GpuSpec gpu = gpu_schema().read(yaml(R"(
name: mi300x
num_cus: 304
priority: -3
clock: 2.1 GHz
hbm_efficiency: 80%
scale: 2.5
lds: 64 KiB
l2:
  capacity: 4 MiB
  ways: 16
  hit_latency: 120 ns
  bandwidth: 2 KB/s
  write_back: false
  replacement: fifo
  policy: random
tile_sizes: [256, 128, 64]
tags: [a, "b c"]
latencies: [1 ns, 2.5 us]
links:
  - peer: gpu1
    bandwidth: 64 GB/s
  - peer: gpu2
    latency: 700 ns
)"));
  CHECK(gpu.name == "mi300x");
  CHECK(gpu.num_cus == 304);
  CHECK(gpu.priority == -3);
  CHECK(gpu.clock_hz == 2.1e9);
  CHECK(gpu.hbm_efficiency_frac == 0.8);
  CHECK(gpu.scale == 2.5);
  CHECK(gpu.lds_bytes == 65536);
  CHECK(gpu.l2.capacity_bytes == 4194304);
  CHECK(gpu.l2.hit_latency_ps == 120'000);
  CHECK(gpu.l2.bandwidth_bytes_per_s == 2000.0);
  CHECK_FALSE(gpu.l2.write_back);
  CHECK(gpu.l2.replacement == "fifo");
  CHECK(gpu.l2.policy == Policy::kRandom);
  CHECK(gpu.tile_sizes == std::vector<std::uint64_t>{256, 128, 64});
  CHECK(gpu.tags == std::vector<std::string>{"a", "b c"});
  CHECK(gpu.latencies_ps == std::vector<Tick>{1000, 2'500'000});
  REQUIRE(gpu.links.size() == 2);
  CHECK(gpu.links[0] == LinkSpec{"gpu1", 64e9, 1'000'000});
  CHECK(gpu.links[1] == LinkSpec{"gpu2", 64e9, 700'000});
}

TEST_CASE("schema: absent keys keep the defaults, including a parent's default for a nested spec") {
  const GpuSpec gpu = gpu_schema().read(yaml("l2:\n  ways: 8\n"));
  CHECK(gpu.l2.ways == 8);
  CHECK(gpu.l2.capacity_bytes == 8u << 20);  // GpuSpec's default for l2, not CacheSpec's
  CHECK(gpu.name == "gpu");
  CHECK_FALSE(gpu.lds_bytes.has_value());
  CHECK(gpu_schema().read(yaml("lds: null\n")).lds_bytes == std::nullopt);

  GpuSpec preset;
  preset.num_cus = 38;
  gpu_schema().read_into(yaml("name: x\n"), preset);
  CHECK(preset.num_cus == 38);
  CHECK(preset.name == "x");
}

TEST_CASE("schema: unknown key, with and without a suggestion") {
  ConfigError e = config_error_of([] { gpu_schema().read(yaml("name: a\nl2:\n  capcity: 4 MiB\n")); });
  CHECK(std::string(e.what()) == "s.yaml:3:3: l2.capcity: unknown key 'capcity'; did you mean 'capacity'?");
  CHECK(e.key_path() == "l2.capcity");
  CHECK(e.location() == SourceLocation{"s.yaml", 3, 3});

  e = config_error_of([] { cache_schema().read(yaml("ways: 4\nbanana: 1\n")); });
  CHECK(e.message() ==
        "unknown key 'banana'; valid keys: capacity, ways, hit_latency, bandwidth, write_back, replacement, policy");
  CHECK(e.location().line == 2);

  // Keys the caller handles are allowed on request.
  ReadOptions options;
  options.extra_keys = {"kind"};
  CHECK(cache_schema().read(yaml("kind: cache\nways: 4\n"), options).ways == 4);
  CHECK_THROWS_AS(cache_schema().read(yaml("kind: cache\n")), ConfigError);
}

TEST_CASE("schema: wrong YAML type") {
  ConfigError e = config_error_of([] { gpu_schema().read(yaml("l2:\n  capacity: {a: 1}\n")); });
  CHECK(std::string(e.what()) == "s.yaml:2:13: l2.capacity: expected a size, got a map");
  e = config_error_of([] { gpu_schema().read(yaml("l2: 5\n")); });
  CHECK(e.message() == "expected a map of cache settings, got a scalar");
  CHECK(e.key_path() == "l2");
  e = config_error_of([] { gpu_schema().read(yaml("tile_sizes: 5\n")); });
  CHECK(e.message() == "expected a list of count values, got a scalar");
  e = config_error_of([] { gpu_schema().read(yaml("tile_sizes: [1, [2]]\n")); });
  CHECK(e.key_path() == "tile_sizes[1]");
  CHECK(e.message() == "expected an integer, got a list");
  e = config_error_of([] { gpu_schema().read(yaml("links: {peer: a}\n")); });
  CHECK(e.message() == "expected a list of link maps, got a map");
  e = config_error_of([] { gpu_schema().read(yaml("name:\n")); });
  CHECK(e.message() == "expected a string, got null");
}

TEST_CASE("schema: missing required key") {
  ConfigError e = config_error_of([] { gpu_schema().read(yaml("links:\n  - bandwidth: 1 GB/s\n")); });
  CHECK(std::string(e.what()) == "s.yaml:2:5: links[0]: missing required key 'peer' (the GPU at the other end)");
  e = config_error_of([] { workload_schema().read(yaml("m: 4\n")); });
  CHECK(e.location() == SourceLocation{"s.yaml", 1, 1});
  CHECK(e.message().starts_with("missing required key 'model'"));
}

TEST_CASE("schema: out of range, wrong unit class, missing unit, bad values") {
  ConfigError e = config_error_of([] { gpu_schema().read(yaml("num_cus: 0\n")); });
  CHECK(std::string(e.what()) == "s.yaml:1:10: num_cus: must be between 1 and 1024, got 0");
  e = config_error_of([] { gpu_schema().read(yaml("l2:\n  capacity: 0 B\n")); });
  CHECK(e.message() == "must be at least 1 B, got 0 B");
  e = config_error_of([] { gpu_schema().read(yaml("priority: -11\n")); });
  CHECK(e.message() == "must be at least -10, got -11");
  e = config_error_of([] { gpu_schema().read(yaml("scale: 5\n")); });
  CHECK(e.message() == "must be between 0.5 and 4, got 5");
  e = config_error_of([] { gpu_schema().read(yaml("tile_sizes: [4, 0]\n")); });
  CHECK(e.key_path() == "tile_sizes[1]");
  CHECK(e.message() == "must be at least 1, got 0");
  e = config_error_of([] { gpu_schema().read(yaml("num_cus: 5000000000\n")); });
  CHECK(e.message().find("out of range") != std::string::npos);

  e = config_error_of([] { gpu_schema().read(yaml("l2:\n  hit_latency: 4 MiB\n")); });
  CHECK(std::string(e.what()) ==
        "s.yaml:2:16: l2.hit_latency: expected a time like \"1.5 us\" (units: ps, ns, us, ms, s), got \"4 MiB\"");
  e = config_error_of([] { gpu_schema().read(yaml("l2:\n  capacity: 4096\n")); });
  CHECK(e.message().starts_with("a unit is required: expected a size"));
  CHECK(e.key_path() == "l2.capacity");
  e = config_error_of([] { gpu_schema().read(yaml("l2:\n  replacement: lfu\n")); });
  CHECK(e.message() == "expected one of lru, fifo, random, got \"lfu\"; did you mean 'lru'?");
  e = config_error_of([] { gpu_schema().read(yaml("l2:\n  policy: clock\n")); });
  CHECK(e.message() == "expected one of lru, fifo, random, got \"clock\"");
  e = config_error_of([] { gpu_schema().read(yaml("l2:\n  write_back: sometimes\n")); });
  CHECK(e.message() == "expected true or false, got \"sometimes\"");
  e = config_error_of([] { gpu_schema().read(yaml("hbm_efficiency: 1.5\n")); });
  CHECK(e.message().starts_with("expected a fraction in [0, 1]"));
}

TEST_CASE("schema: cross-field checks report at the map") {
  const ConfigError e = config_error_of([] { gpu_schema().read(yaml("name: a\nl2:\n  capacity: 1000 B\n  ways: 3\n")); });
  CHECK(std::string(e.what()) == "s.yaml:3:3: l2: capacity must be a multiple of ways");
}

GpuSpec sample_gpu() {
  GpuSpec gpu;
  gpu.name = "odd: name # with [chars]";
  gpu.priority = -7;
  gpu.clock_hz = 1.98e9;
  gpu.hbm_efficiency_frac = 0.123456789;
  gpu.scale = 4.0 / 3.0;
  gpu.lds_bytes = 65536;
  gpu.l2.capacity_bytes = 1500;
  gpu.l2.ways = 3;
  gpu.l2.hit_latency_ps = 1'500'001;
  gpu.l2.bandwidth_bytes_per_s = 1099511627776.0 * 3;
  gpu.l2.write_back = false;
  gpu.l2.replacement = "random";
  gpu.l2.policy = Policy::kFifo;
  gpu.tile_sizes = {1, 2, 3};
  gpu.tags = {"x, y", "true", "null", ""};
  gpu.latencies_ps = {1, 1'000'000'000'000};
  gpu.links = {LinkSpec{"p0", 12.5e9, 3}, LinkSpec{"p1", 1, 0}};
  return gpu;
}

TEST_CASE("describe: YAML has every field with units and docs, and reads back equal") {
  const GpuSpec gpu = sample_gpu();
  const std::string text = gpu_schema().to_yaml(gpu);
  CHECK(text.find("num_cus: 304  # compute units\n") != std::string::npos);
  CHECK(text.find("clock: 1.98 GHz  # core clock\n") != std::string::npos);
  CHECK(text.find("l2:  # the L2 of one XCD\n  capacity: 1.5 KB  # capacity per instance\n") != std::string::npos);
  CHECK(text.find("  hit_latency: 1.500001 us") != std::string::npos);
  CHECK(text.find("links:  # links to peers\n  - peer: p0") != std::string::npos);
  INFO(text);
  const GpuSpec again = gpu_schema().read(parse_yaml(text, "described.yaml"));
  CHECK(again == gpu);

  // Defaults, too, and a spec with empty lists and null optionals.
  const GpuSpec defaults;
  CHECK(gpu_schema().read(parse_yaml(gpu_schema().to_yaml(defaults), "d.yaml")) == defaults);
  const SystemSpec system{sample_gpu()};
  CHECK(system_schema().read(parse_yaml(system_schema().to_yaml(system), "sys.yaml")) == system);
}

TEST_CASE("describe: JSON values and the schema itself") {
  const nlohmann::json j = gpu_schema().to_json(GpuSpec{});
  CHECK(j["num_cus"] == 304);
  CHECK(j["clock"] == "2.1 GHz");
  CHECK(j["l2"]["capacity"] == "8 MiB");
  CHECK(j["l2"]["hit_latency"] == "100 ns");
  CHECK(j["l2"]["bandwidth"] == "2 TB/s");
  CHECK(j["hbm_efficiency"] == 0.85);
  CHECK(j["lds"].is_null());
  CHECK(j["tile_sizes"] == nlohmann::json::array({256, 64, 64}));

  const nlohmann::json s = gpu_schema().schema_json();
  CHECK(s["name"] == "gpu");
  const nlohmann::json& fields = s["fields"];
  CHECK(fields[1]["key"] == "num_cus");
  CHECK(fields[1]["kind"] == "count");
  CHECK(fields[1]["min"] == 1);
  CHECK(fields[1]["max"] == 1024);
  CHECK(fields[3]["unit"] == "Hz");
  const nlohmann::json& l2 = fields[7];
  CHECK(l2["kind"] == "map");
  CHECK(l2["schema"]["fields"][0]["default"] == "8 MiB");  // the parent's default
  CHECK(l2["schema"]["fields"][0]["min"] == "1 B");
  CHECK(l2["schema"]["fields"][5]["choices"] == nlohmann::json::array({"lru", "fifo", "random"}));
  CHECK(link_schema().schema_json()["fields"][0]["required"] == true);
}

// A block of parameters several Specs share, declared once by its own schema and embedded flat
// in each Spec's map (Schema::embed).
struct TileBlock {
  std::uint32_t rows = 1;
  std::uint32_t cols = 1;
  Tick step_ps = 0;
  std::string label;
  bool operator==(const TileBlock&) const = default;
};

Schema<TileBlock> tile_block_schema() {
  return Schema<TileBlock>("tile", "a tile")
      .count("rows", &TileBlock::rows, "tile rows").range(1, 64)
      .count("cols", &TileBlock::cols, "tile columns").range(1, 64)
      .time("step", &TileBlock::step_ps, "time per step")
      .string("label", &TileBlock::label, "what the tile is for").required()
      .check([](const TileBlock& t) -> std::optional<std::string> {
        if (t.rows * t.cols > 256) return "rows x cols must be at most 256";
        return std::nullopt;
      });
}

// Embeds the block with defaults of its own, in two parts with keys of its own between them.
struct TiledKernel {
  std::uint32_t grid = 8;
  TileBlock tile{.rows = 16, .cols = 4, .step_ps = 2000, .label = "gemm"};
  bool persistent = true;
  bool operator==(const TiledKernel&) const = default;
};

const Schema<TiledKernel>& tiled_kernel_schema() {
  static const Schema<TileBlock> tile = tile_block_schema();
  static const Schema<TiledKernel> s = Schema<TiledKernel>("kernel", "a tiled kernel")
                                           .count("grid", &TiledKernel::grid, "workgroups").min(1)
                                           .embed(&TiledKernel::tile, tile.without({"label"}))
                                           .boolean("persistent", &TiledKernel::persistent, "persistent grid")
                                           .embed(&TiledKernel::tile, tile.only({"label"}));
  return s;
}

TEST_CASE("schema: embed flattens a member's fields into the map, in order, with the embedding Spec's defaults") {
  const Schema<TiledKernel>& schema = tiled_kernel_schema();
  CHECK(schema.keys() == std::vector<std::string>{"grid", "rows", "cols", "step", "persistent", "label"});

  const TiledKernel read = schema.read(yaml("grid: 4\ncols: 8\nstep: 3 ns\nlabel: attention\n"));
  CHECK(read.grid == 4);
  CHECK(read.tile == TileBlock{16, 8, 3000, "attention"});  // rows keeps TiledKernel's default, not TileBlock's
  CHECK(read.persistent);

  // The sub-schema's bounds, required keys and check, reported as for a field of the map itself.
  ConfigError e = config_error_of([&] { schema.read(yaml("label: x\nrows: 65\n")); });
  CHECK(std::string(e.what()) == "s.yaml:2:7: rows: must be between 1 and 64, got 65");
  e = config_error_of([&] { schema.read(yaml("rows: 2\n")); });
  CHECK(e.message() == "missing required key 'label' (what the tile is for)");
  e = config_error_of([&] { schema.read(yaml("label: x\nrows: 64\ncols: 8\n")); });
  CHECK(std::string(e.what()) == "s.yaml:1:1: rows x cols must be at most 256");
  e = config_error_of([&] { schema.read(yaml("label: x\ntile: {rows: 2}\n")); });
  CHECK(e.message() == "unknown key 'tile'; valid keys: grid, rows, cols, step, persistent, label");
}

TEST_CASE("describe: embedded fields are written flat, with docs and units, and read back equal") {
  const Schema<TiledKernel>& schema = tiled_kernel_schema();
  TiledKernel kernel;
  kernel.tile.cols = 2;
  kernel.tile.label = "odd: label";
  const std::string text = schema.to_yaml(kernel);
  CHECK(text ==
        "grid: 8  # workgroups\n"
        "rows: 16  # tile rows\n"
        "cols: 2  # tile columns\n"
        "step: 2 ns  # time per step\n"
        "persistent: true  # persistent grid\n"
        "label: \"odd: label\"  # what the tile is for\n");
  CHECK(schema.read(parse_yaml(text, "described.yaml")) == kernel);

  const nlohmann::json j = schema.to_json(kernel);
  CHECK(j == nlohmann::json{{"grid", 8}, {"rows", 16}, {"cols", 2}, {"step", "2 ns"}, {"persistent", true},
                            {"label", "odd: label"}});

  const nlohmann::json fields = schema.schema_json()["fields"];
  REQUIRE(fields.size() == 6);
  CHECK(fields[1]["key"] == "rows");
  CHECK(fields[1]["default"] == 16);  // TiledKernel's default
  CHECK(fields[1]["min"] == 1);
  CHECK(fields[1]["max"] == 64);
  CHECK(fields[1]["doc"] == "tile rows");
  CHECK(fields[3]["unit"] == "ps");
  CHECK(fields[3]["default"] == "2 ns");
  CHECK(fields[4]["key"] == "persistent");
  CHECK(fields[5]["key"] == "label");
  CHECK(fields[5]["required"] == true);
  CHECK(fields[2]["required"] == false);
  // The same as declaring the sub-schema's fields in the map itself.
  CHECK(fields[1] == tile_block_schema().schema_json(kernel.tile)["fields"][0]);
}

TEST_CASE("schema: only() leaves the checks to without(), so that a block embedded in two parts checks once") {
  struct JustTheShape {
    TileBlock tile;
  };
  const auto shape = Schema<JustTheShape>("shape", "").embed(&JustTheShape::tile, tile_block_schema().only({"rows", "cols"}));
  CHECK(shape.keys() == std::vector<std::string>{"rows", "cols"});
  CHECK(shape.read(yaml("rows: 64\ncols: 64\n")).tile.rows == 64);  // no check
  const auto rest = Schema<JustTheShape>("rest", "").embed(&JustTheShape::tile, tile_block_schema().without({"step"}));
  CHECK(rest.keys() == std::vector<std::string>{"rows", "cols", "label"});
  CHECK_THROWS_AS(rest.read(yaml("label: x\nrows: 64\ncols: 64\n")), ConfigError);
}

TEST_CASE("schema: embedding mistakes are caught when the schema is built") {
  struct Twice {
    std::uint32_t rows = 0;
    TileBlock tile;
  };
  // A key of the sub-schema the parent already has.
  CHECK_THROWS_WITH_AS(Schema<Twice>("twice", "").count("rows", &Twice::rows, "").embed(&Twice::tile, tile_block_schema()),
                       "schema 'twice' declares key 'rows' twice", std::logic_error);
  // The same block embedded twice.
  CHECK_THROWS_AS(
      Schema<Twice>("twice", "").embed(&Twice::tile, tile_block_schema()).embed(&Twice::tile, tile_block_schema()),
      std::logic_error);
  // A range is the sub-schema's to set; a part names keys the schema has.
  CHECK_THROWS_AS(Schema<Twice>("twice", "").embed(&Twice::tile, tile_block_schema().only({"rows"})).max(8),
                  std::logic_error);
  CHECK_THROWS_AS(tile_block_schema().only({"colz"}), std::logic_error);
}

TEST_CASE("schema mistakes are caught when the schema is built") {
  struct S {
    bool b = false;
    int n = 0;
  };
  CHECK_THROWS_AS(Schema<S>("s", "").boolean("b", &S::b, "").min(1), std::logic_error);
  CHECK_THROWS_AS(Schema<S>("s", "").count("n", &S::n, "").count("n", &S::n, ""), std::logic_error);
}

// A check that says where the fault is: the error points at that node's line and key path.
struct Rack {
  std::vector<std::string> names;
  std::string spare;
};

TEST_CASE("schema: a check's CheckProblem path points the error at the node at fault") {
  const Schema<Rack> schema = Schema<Rack>("rack", "a rack")
                                  .string_list("names", &Rack::names, "names")
                                  .string("spare", &Rack::spare, "a spare name")
                                  .check([](const Rack& r) -> std::optional<CheckProblem> {
                                    for (std::size_t i = 0; i < r.names.size(); ++i) {
                                      if (r.names[i] == r.spare) return CheckProblem({"names", std::to_string(i)}, "the spare");
                                    }
                                    if (r.names.empty()) return CheckProblem({"names"}, "no names");
                                    return std::nullopt;
                                  });
  ConfigError e = config_error_of([&] { schema.read(yaml("spare: b\nnames:\n  - a\n  - b\n")); });
  CHECK(std::string(e.what()) == "s.yaml:4:5: names[1]: the spare");
  // A path the file has only in part points at its last node there; none at all, at the map.
  e = config_error_of([&] { schema.read(yaml("spare: b\n")); });
  CHECK(e.location().line == 1);
  CHECK(std::string(e.what()).find("no names") != std::string::npos);
  const ConfigNode doc = yaml("a: 1\nb: [x, y]\n");
  CHECK(node_at(doc, {"a", "deeper"}).scalar() == "1");
  CHECK(node_at(doc, {"b", "1"}).scalar() == "y");
  CHECK(node_at(doc, {"b", "7"}).is_sequence());
  CHECK(node_at(doc, {"c"}).is_map());
}

}  // namespace
}  // namespace tessera::sim::config::test

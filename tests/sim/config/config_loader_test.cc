#include <doctest/doctest.h>

#include <array>
#include <string>
#include <vector>

#include "error_capture.h"
#include "sim/config/config_loader.h"
#include "sim/config/embedded_files.h"
#include "test_specs.h"

namespace tessera::sim::config::test {
namespace {

const std::string kDisk = std::string(TESSERA_CONFIG_FIXTURES) + "/disk";

FileResolver full_resolver() {
  FileResolver r;
  r.add_embedded(embedded_files()).set_config_dir(kDisk);
  return r;
}

bool from_file(const ConfigNode& node, std::string_view suffix, int line) {
  return node.location().file.ends_with(suffix) && node.location().line == line;
}

TEST_CASE("embedded table: generated from the fixture folder") {
  const FileResolver r = full_resolver();
  CHECK(r.embedded_paths() ==
        std::vector<std::string>{"common/fast-l2.yaml", "systems/tiny-base.yaml", "systems/tiny.yaml"});
}

TEST_CASE("base: the derived file's keys merge over the base, each value keeps its file and line") {
  const FileResolver r = full_resolver();
  const ConfigNode root = ConfigLoader(r).load_file(kDisk + "/derived.yaml");
  CHECK_FALSE(root.contains("base"));
  const ConfigNode& gpu = root.at("gpu");
  CHECK(gpu.at("num_cus").scalar() == "128");
  CHECK(from_file(gpu.at("num_cus"), "disk/derived.yaml", 3));
  CHECK(gpu.at("name").scalar() == "base-gpu");
  CHECK(from_file(gpu.at("name"), "disk/base.yaml", 2));
  CHECK(from_file(gpu.at("l2").at("capacity"), "disk/base.yaml", 5));
  CHECK(from_file(gpu.at("l2").at("ways"), "disk/derived.yaml", 5));
  CHECK(gpu.at("l2").at("ways").path() == "gpu.l2.ways");

  const SystemSpec spec = system_schema().read(root);
  CHECK(spec.gpu.num_cus == 128);
  CHECK(spec.gpu.l2.ways == 32);
  CHECK(spec.gpu.l2.capacity_bytes == 4u << 20);
  CHECK(spec.gpu.tile_sizes == std::vector<std::uint64_t>{128, 128, 64});
}

TEST_CASE("include cycles are reported at the include that closes them") {
  const FileResolver r = full_resolver();
  const ConfigError e = config_error_of([&] { ConfigLoader(r).load_file(kDisk + "/cycle_a.yaml"); });
  CHECK(e.location().file.ends_with("disk/cycle_b.yaml"));
  CHECK(e.location().line == 1);
  CHECK(e.location().column == 10);
  CHECK(e.key_path() == "include");
  CHECK(e.message() == "include cycle: " + kDisk + "/cycle_a.yaml -> " + kDisk + "/cycle_b.yaml -> " + kDisk +
                           "/cycle_a.yaml");
}

TEST_CASE("missing files and bad syntax in loaded files") {
  const FileResolver r = full_resolver();
  ConfigError e = config_error_of([&] { ConfigLoader(r).load_text("a: 1\ninclude: nope.yaml\n", "mem.yaml"); });
  CHECK(e.location() == SourceLocation{"mem.yaml", 2, 10});
  CHECK(e.message().starts_with("cannot find 'nope.yaml' (looked for nope.yaml, embedded nope.yaml, "));
  e = config_error_of([&] { ConfigLoader(r).load_file(kDisk + "/bad-syntax.yaml"); });
  CHECK(e.location().file == kDisk + "/bad-syntax.yaml");
  CHECK(e.location().line >= 3);
  CHECK(e.message().starts_with("YAML syntax error"));
  e = config_error_of([&] { ConfigLoader(r).load_file("no/such/file.yaml"); });
  CHECK(e.message().starts_with("cannot find config file 'no/such/file.yaml'"));
}

TEST_CASE("system names: embedded first, then the config dir on disk") {
  const FileResolver r = full_resolver();
  const ConfigLoader loader(r);
  const ConfigNode tiny = loader.load_system("tiny");
  const ConfigNode& gpu = tiny.at("gpu");
  CHECK(gpu.at("name").scalar() == "tiny");
  CHECK(gpu.at("name").location() == SourceLocation{"embedded:systems/tiny-base.yaml", 3, 9});
  CHECK(gpu.at("num_cus").location() == SourceLocation{"embedded:systems/tiny.yaml", 4, 12});
  CHECK(gpu.at("l2").at("hit_latency").location().file == "embedded:common/fast-l2.yaml");
  CHECK(gpu.at("l2").at("hit_latency").path() == "system.gpu.l2.hit_latency");

  const ConfigNode disk_only = loader.load_system("disk-only");
  CHECK(disk_only.at("gpu").at("name").scalar() == "from-disk");
  CHECK(disk_only.at("gpu").at("name").location().file == kDisk + "/systems/disk-only.yaml");

  FileResolver disk;
  disk.set_config_dir(kDisk);
  CHECK(ConfigLoader(disk).load_system("tiny").at("gpu").at("name").scalar() == "disk-tiny");

  const ConfigError e = config_error_of([&] { loader.load_system("nope"); });
  CHECK(e.message() == "cannot find 'nope' (looked for embedded systems/nope.yaml, " + kDisk + "/systems/nope.yaml)");
}

TEST_CASE("an embedded table is injected, not linked in: tests can use their own") {
  static constexpr std::array kFiles = {
      EmbeddedFile{"systems/mem.yaml", "base: parent.yaml\ngpu:\n  num_cus: 2\n"},
      EmbeddedFile{"systems/parent.yaml", "gpu:\n  name: parent\n"},
  };
  FileResolver r;
  r.add_embedded(kFiles, "configs/");
  const ConfigNode sys = ConfigLoader(r).load_system("mem");
  CHECK(sys.at("gpu").at("name").location() == SourceLocation{"configs/systems/parent.yaml", 2, 9});
  CHECK(system_schema().read(sys).gpu.num_cus == 2);
}

TEST_CASE("run config: inline system map with base and includes, later includes win, own keys win last") {
  const FileResolver r = full_resolver();
  const ConfigNode run = ConfigLoader(r).load_run_file(kDisk + "/run.yaml");
  const ConfigNode& system = run.at("system");
  CHECK_FALSE(system.contains("base"));
  CHECK_FALSE(system.contains("include"));
  const ConfigNode& gpu = system.at("gpu");
  CHECK(gpu.at("name").scalar() == "inline");
  CHECK(from_file(gpu.at("name"), "disk/run.yaml", 5));
  CHECK(from_file(gpu.at("num_cus"), "disk/derived.yaml", 3));
  CHECK(gpu.at("clock").scalar() == "1.8 GHz");
  CHECK(from_file(gpu.at("clock"), "disk/parts/priority.yaml", 3));
  CHECK(gpu.at("clock").path() == "system.gpu.clock");
  CHECK(from_file(gpu.at("l2").at("capacity"), "disk/base.yaml", 5));
  const SystemSpec spec = system_schema().read(system);
  CHECK(spec.gpu.clock_hz == 1.8e9);
  CHECK(spec.gpu.priority == 3);
  CHECK(run.at("workload").at("m").scalar() == "64");
}

TEST_CASE("run config: system by name, and an inline map from text") {
  const FileResolver r = full_resolver();
  const ConfigLoader loader(r);
  const ConfigNode named = loader.load_run_file(kDisk + "/run-named.yaml");
  CHECK(named.at("system").at("gpu").at("num_cus").location().file == "embedded:systems/tiny.yaml");
  CHECK(system_schema().read(named.at("system")).gpu.num_cus == 16);

  const ConfigNode inline_run =
      loader.load_run_text("system:\n  base: systems/tiny.yaml\n  gpu:\n    num_cus: 4\n", "inline.yaml");
  const SystemSpec spec = system_schema().read(inline_run.at("system"));
  CHECK(spec.gpu.num_cus == 4);
  CHECK(spec.gpu.name == "tiny");
  CHECK(spec.gpu.l2.hit_latency_ps == 50'000);
}

TEST_CASE("--set overrides: values as YAML, system first, the rest over the resolved system") {
  const FileResolver r = full_resolver();
  const std::vector<std::string> flags = {
      "system.gpu.clock=2.5 GHz", "system=disk-only",         "workload.m=[64,256]", "workload.variant=push",
      "workload.model=\"llama\"", "new.deep.key=1"};
  const std::vector<Override> overrides = parse_overrides(flags);
  const ConfigNode run = ConfigLoader(r).load_run_file(kDisk + "/run.yaml", overrides);
  const ConfigNode& gpu = run.at("system").at("gpu");
  CHECK(gpu.at("name").scalar() == "from-disk");
  CHECK(gpu.at("clock").scalar() == "2.5 GHz");
  CHECK(gpu.at("clock").location() == SourceLocation{"--set system.gpu.clock=2.5 GHz", 0, 0});
  CHECK(gpu.at("clock").path() == "system.gpu.clock");
  CHECK(run.at("workload").at("m").is_sequence());
  CHECK(run.at("workload").at("m")[1].scalar() == "256");
  CHECK(run.at("workload").at("variant").scalar() == "push");
  CHECK(run.at("workload").at("model").scalar() == "llama");
  CHECK(run.at("new").at("deep").at("key").path() == "new.deep.key");
  // disk-only.yaml has no tile_sizes: an index needs an existing list.
  const ConfigError e = config_error_of([&] {
    ConfigLoader(r).load_run_file(kDisk + "/run.yaml", parse_overrides(std::vector<std::string>{
                                                           "system=disk-only", "system.gpu.tile_sizes[1]=7"}));
  });
  CHECK(std::string(e.what()) ==
        "--set system.gpu.tile_sizes[1]=7: system.gpu.tile_sizes: there is no list here to index");
}

TEST_CASE("--set: errors are located at the flag") {
  const FileResolver r = full_resolver();
  const ConfigLoader loader(r);
  const std::vector<std::string> flags = {"workload.m=abc", "workload.model=llama"};
  const ConfigNode run = loader.load_run_file(kDisk + "/run.yaml", parse_overrides(flags));
  ConfigError e = config_error_of([&] { workload_schema().read(run.at("workload")); });
  CHECK(std::string(e.what()) == "--set workload.m=abc: workload.m: expected an integer, got \"abc\"");
  CHECK(e.location().line == 0);

  const std::vector<std::string> typo = {"system.gpu.l2.capcity=4 MiB"};
  const ConfigNode run2 = loader.load_run_file(kDisk + "/run.yaml", parse_overrides(typo));
  e = config_error_of([&] { system_schema().read(run2.at("system")); });
  CHECK(std::string(e.what()) ==
        "--set system.gpu.l2.capcity=4 MiB: system.gpu.l2.capcity: unknown key 'capcity'; did you mean 'capacity'?");

  e = config_error_of([] { parse_override("noequals"); });
  CHECK(std::string(e.what()) == "--set noequals: expected --set key.path=value");
  e = config_error_of([] { parse_override("=5"); });
  CHECK(e.message().starts_with("expected --set key.path=value"));
  e = config_error_of([] { parse_override("a..b=1"); });
  CHECK(e.message() == "malformed key path 'a..b': empty key");
  e = config_error_of([] { parse_override("a[x]=1"); });
  CHECK(e.message() == "malformed key path 'a[x]': bad index");
  e = config_error_of([] { parse_override("a=[1, 2"); });
  CHECK(e.location().file == "--set a=[1, 2");
  CHECK(e.message().starts_with("YAML syntax error"));

  e = config_error_of([&] { loader.load_run_file(kDisk + "/run.yaml", parse_overrides(std::vector<std::string>{"workload.m.x=1"})); });
  CHECK(e.key_path() == "workload.m");
  CHECK(e.message() == "cannot set 'x' inside a scalar (set at " + kDisk + "/run.yaml:7:6)");
  e = config_error_of([&] {
    loader.load_run_file(kDisk + "/run.yaml", parse_overrides(std::vector<std::string>{"system.gpu.tile_sizes[5]=1"}));
  });
  CHECK(e.message() == "index 5 is out of range (the list has 3 items)");
}

TEST_CASE("--set: an index replaces one list item") {
  const FileResolver r = full_resolver();
  const ConfigNode run = ConfigLoader(r).load_run_file(
      kDisk + "/run.yaml", parse_overrides(std::vector<std::string>{"system.gpu.tile_sizes[1]=7"}));
  const SystemSpec spec = system_schema().read(run.at("system"));
  CHECK(spec.gpu.tile_sizes == std::vector<std::uint64_t>{128, 7, 64});
  CHECK(run.at("system").at("gpu").at("tile_sizes")[1].path() == "system.gpu.tile_sizes[1]");
}

}  // namespace
}  // namespace tessera::sim::config::test

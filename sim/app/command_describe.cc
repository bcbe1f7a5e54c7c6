// tessera describe [CONFIG] [--set K=V]... [--json | --dot]
// tessera describe --schema [PART] [--markdown]
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join
#include <nlohmann/json.hpp>

#include "models/system/system_loader.h"
#include "sim/app/command_line.h"
#include "sim/app/commands.h"
#include "sim/app/exit_codes.h"
#include "sim/app/usage_error.h"
#include "models/topology/build_topology.h"
#include "models/topology/describe_topology.h"
#include "models/topology/dot_writer.h"
#include "sim/app/run/run_config_loader.h"
#include "sim/app/run/run_config_schema.h"
#include "sim/config/config_loader.h"
#include "sim/config/embedded_files.h"
#include "sim/config/file_resolver.h"

namespace po = boost::program_options;

namespace tessera::app {
namespace {

// The topology text as YAML comments, so the whole output still parses as the config.
std::string commented(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);) out += line.empty() ? "#\n" : "# " + line + "\n";
  return out;
}

// A system file (its top level has neither system: nor workload:, as every file of
// configs/systems/ and every calibrated file) or a shipped system's name is described alone;
// nullopt for a run config.
std::optional<models::SystemSpec> read_system_file(const std::string& config) {
  // A shipped system's name, as `--set system=NAME` takes it (`tessera describe mi300x-8`).
  if (sim::config::is_bare_system_name(config) && !std::filesystem::exists(config)) return models::load_system_spec(config);
  sim::config::FileResolver resolver;
  resolver.add_embedded(sim::config::embedded_files());
  const sim::config::ConfigLoader loader(resolver);
  const sim::config::ConfigNode root = loader.load_file(config);
  if (!root.is_map() || root.contains("system") || root.contains("workload")) return std::nullopt;
  return models::load_system_spec(config);
}

// A --schema PART that names a file: the schemas are no config's values.
bool looks_like_a_file(const std::string& text) {
  return text.find_first_of("/\\") != std::string::npos || text.ends_with(".yaml") || text.ends_with(".yml");
}

std::string schema_parts_hint() {
  std::vector<std::string> parts = run::run_config_schema_sections();
  parts.insert(parts.begin() + 2, "workload");  // after run and system: every kind
  return fmt::format("parts: {}, or a dotted path to a nested map (system.gpu.memory.l2)", fmt::join(parts, ", "));
}

// `describe --schema [PART] [--markdown]`: every key's kind, unit, default, range and meaning.
// `part` is the --schema value or, as `--schema system` may leave it, the positional argument.
int print_schema(const po::variables_map& vm, const std::vector<std::string>& sets) {
  const auto config_given = [](const std::string& config) {
    return UsageError(fmt::format("--schema prints the schemas of every config, not the values of '{}': drop CONFIG, "
                                  "or drop --schema to describe it",
                                  config));
  };
  std::string part = vm["schema"].as<std::string>();
  if (looks_like_a_file(part)) throw config_given(part);
  if (vm.count("config")) {
    const std::string positional = vm["config"].as<std::string>();
    if (!part.empty() || looks_like_a_file(positional)) throw config_given(positional);
    part = positional;
  }
  if (!sets.empty()) {
    throw UsageError("--schema prints the schemas and their defaults; --set changes no schema: drop it");
  }
  if (vm.count("json")) throw UsageError("--schema already prints JSON (--markdown for tables): drop --json");
  if (vm.count("dot")) throw UsageError("--schema and --dot exclude each other");
  if (vm.count("markdown")) {
    const std::optional<std::string> markdown = run::run_config_schema_markdown(part);
    if (!markdown) throw UsageError(fmt::format("--schema: no part '{}'; {}", part, schema_parts_hint()));
    std::cout << *markdown;
    return kExitOk;
  }
  const std::optional<nlohmann::json> schema = run::run_config_schema_json(part);
  if (!schema) throw UsageError(fmt::format("--schema: no part '{}'; {}", part, schema_parts_hint()));
  std::cout << schema->dump(2) << "\n";
  return kExitOk;
}

}  // namespace

int command_describe(const Args& args) {
  po::options_description opts(
      "tessera describe [CONFIG] [options]\n\nPrints the fully resolved configuration: every default filled in, values "
      "with units.\nWithout CONFIG, describes the embedded default. CONFIG may also be a system file (no system:\n"
      "and no workload: at its top, e.g. a calibrated one) or a shipped system's name (mi300x-8): then the system\n"
      "alone is described.\n\n"
      "tessera describe --schema [PART] [--markdown]\n\nPrints the schema of every config key instead: kind, unit, "
      "default, range or choices,\nmeaning. PART selects one part: run, system, workload, workload.KIND or a dotted "
      "path to a\nnested map (system.gpu.memory.l2).\n\nOptions");
  std::vector<std::string> sets;
  opts.add_options()("help,h", "show this help")
      ("set", po::value<std::vector<std::string>>(&sets)->composing(), "override a config key: --set key.path=value (repeatable)")
      ("json", "print the configuration as JSON instead of YAML (no topology)")
      ("dot", "print the system's topology as Graphviz DOT instead (e.g. | dot -Tsvg > topo.svg)")
      ("schema", po::value<std::string>()->implicit_value(""),
       "print the schemas of the config keys as JSON instead of a config; --schema PART for one part")
      ("markdown", "with --schema: print markdown tables instead of JSON")
      ("config", po::value<std::string>(), "the run config (also the first positional argument)");
  po::positional_options_description pos;
  pos.add("config", 1);
  const auto parsed = parse_command_line(args, opts, pos);
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  if (vm.count("schema")) return print_schema(vm, sets);
  if (vm.count("markdown")) throw UsageError("--markdown goes with --schema");
  std::optional<std::string> config;
  if (vm.count("config")) config = vm["config"].as<std::string>();
  if (vm.count("json") && vm.count("dot")) throw UsageError("--json and --dot exclude each other");
  if (config) {
    if (const auto system = read_system_file(*config)) {
      if (!sets.empty()) throw UsageError("--set: describe a system file alone without --set, or name it in a run config");
      if (vm.count("json")) {
        std::cout << nlohmann::json{{"system", models::system_schema().to_json(*system)}}.dump(2) << "\n";
        return kExitOk;
      }
      const models::topology::Topology topology = models::topology::build_topology(*system);
      if (vm.count("dot")) {
        models::topology::write_dot(std::cout, topology);
        return kExitOk;
      }
      std::cout << "system:\n" << models::system_schema().to_yaml(*system, 2) << "\n"
                << commented(models::topology::describe_topology(topology));
      return kExitOk;
    }
  }
  const run::RunSpec spec = run::load_run_spec(config, sets);
  if (vm.count("json")) {
    std::cout << run::describe_json(spec).dump(2) << "\n";
    return kExitOk;
  }
  const models::topology::Topology topology = models::topology::build_topology(spec.system);
  if (vm.count("dot")) {
    models::topology::write_dot(std::cout, topology);
    return kExitOk;
  }
  std::cout << run::describe_yaml(spec) << "\n" << commented(models::topology::describe_topology(topology));
  return kExitOk;
}

}  // namespace tessera::app

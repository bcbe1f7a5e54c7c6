// tessera describe [CONFIG] [--set K=V]... [--json]
#include <iostream>
#include <optional>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "sim/app/commands.h"
#include "sim/app/exit_codes.h"
#include "sim/app/run_config_loader.h"

namespace po = boost::program_options;

namespace tessera::app {

int command_describe(const Args& args) {
  po::options_description opts(
      "tessera describe [CONFIG] [options]\n\nPrints the fully resolved configuration: every default filled in, values "
      "with units.\nWithout CONFIG, describes the embedded default.\n\nOptions");
  std::vector<std::string> sets;
  opts.add_options()("help,h", "show this help")
      ("set", po::value<std::vector<std::string>>(&sets)->composing(), "override a config key: --set key.path=value (repeatable)")
      ("json", "print JSON instead of YAML")
      ("config", po::value<std::string>(), "the run config (also the first positional argument)");
  po::positional_options_description pos;
  pos.add("config", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  std::optional<std::string> config;
  if (vm.count("config")) config = vm["config"].as<std::string>();
  const RunSpec spec = load_run_spec(config, sets);
  if (vm.count("json")) {
    std::cout << describe_json(spec).dump(2) << "\n";
  } else {
    std::cout << describe_yaml(spec);
  }
  return kExitOk;
}

}  // namespace tessera::app

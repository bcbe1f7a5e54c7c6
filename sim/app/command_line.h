#pragma once
// The parsing every subcommand shares: options and positionals into a variables_map, and
// --help printed here, so that each command reads only its own flags.
#include <iostream>
#include <optional>

#include <boost/program_options.hpp>

#include "sim/app/commands.h"

namespace tessera::app {

// The parsed flags, or nullopt when --help was asked for (its text is then on stdout and the
// command returns kExitOk). Malformed flags throw boost::program_options::error (exit 2 in main).
inline std::optional<boost::program_options::variables_map> parse_command_line(
    const Args& args, const boost::program_options::options_description& options,
    const boost::program_options::positional_options_description& positional = {}) {
  namespace po = boost::program_options;
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << options << "\n";
    return std::nullopt;
  }
  return vm;
}

}  // namespace tessera::app

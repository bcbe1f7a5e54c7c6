#pragma once
// The parsing every subcommand shares: options and positionals into a variables_map, and
// --help printed here, so that each command reads only its own flags.
#include <charconv>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "sim/app/commands.h"

namespace tessera::app {

// A whole-number flag (--jobs, --seed, --max-events, ...): po::value<Count<unsigned>>(). Boost
// reads unsigned flags with lexical_cast, which takes "-5" as 2^64 - 5; this reads digits only,
// in T's range, so a flag gets the same refusal as the config key it stands for.
template <class T>
struct Count {
  T value{};
};

template <class T>
void validate(boost::any& out, const std::vector<std::string>& values, Count<T>*, int) {
  namespace po = boost::program_options;
  po::validators::check_first_occurrence(out);
  const std::string& text = po::validators::get_single_string(values);
  T parsed{};
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, parsed);
  if (text.empty() || error != std::errc() || stop != end) throw po::invalid_option_value(text);
  out = Count<T>{parsed};
}

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

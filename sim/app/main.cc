// The `tessera` program: parses the subcommand and maps every failure to a clear message on
// stderr and a documented exit code (0 success, 1 run failed, 2 bad input; `sweep` also 130,
// interrupted: sim/app/exit_codes.h).
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options/errors.hpp>
#include <fmt/format.h>

#include "sim/app/commands.h"
#include "sim/app/exit_codes.h"
#include "sim/app/measured/measured_data_error.h"
#include "sim/app/usage_error.h"
#include "sim/app/run/version.h"
#include "sim/config/config_error.h"
#include "sim/config/suggest.h"
#include "sim/core/tick.h"
#include "sim/io/output_file.h"
#include "workloads/replay/replay_error.h"
#include "workloads/trace/trace_error.h"

namespace {

using tessera::app::Args;

constexpr const char* kUsage = R"(tessera: a discrete-event performance simulator of multi-chiplet, multi-GPU systems

Usage: tessera COMMAND [options]

Commands:
  run [CONFIG]        run a workload on a system (no CONFIG: the embedded default)
  describe [CONFIG]   print the fully resolved configuration, with units (--schema: every key's schema)
  compare A B         run two configs; how the makespan and each tax change from A to B
  sweep STUDY         run every point of a what-if study (grid/zip axes; also under mpirun)
  tune CONFIG --space SPACE
                      find the best mapping, swizzle, tiles or variant of a run (also under mpirun)
  select RESULTS      learn a decision tree that picks the fastest variant from a sweep's results
  calibrate           fit a system's unpublished parameters to kernel-suite microbenchmarks
  validate            predict measured kernel-suite patterns and report the error
  bench phold         the event engine's PHOLD benchmark
  trace inspect FILE  summarise a tile-level trace (.jsonl text or .tsrt binary)
  trace convert IN OUT
                      rewrite a trace in the form OUT's extension names

Options:
  -h, --help          show this help (COMMAND --help for a command's options)
  --version           print the version

Exit codes: 0 success, 1 the run failed, 2 bad input (config, trace, measured result or flag),
130 interrupted (tessera sweep and tune, by SIGINT or SIGTERM; finished points are kept).
)";

struct Command {
  const char* name;
  int (*run)(const Args&);
};

constexpr Command kCommands[] = {
    {"run", tessera::app::command_run},
    {"describe", tessera::app::command_describe},
    {"bench", tessera::app::command_bench},
    {"trace", tessera::app::command_trace},
    {"compare", tessera::app::command_compare},
    {"sweep", tessera::app::command_sweep},
    {"tune", tessera::app::command_tune},
    {"select", tessera::app::command_select},
    {"calibrate", tessera::app::command_calibrate},
    {"validate", tessera::app::command_validate},
};

int dispatch(const std::string& name, const Args& args) {
  for (const Command& c : kCommands) {
    if (name == c.name) return c.run(args);
  }
  std::vector<std::string> names;
  for (const Command& c : kCommands) names.emplace_back(c.name);
  const auto near = tessera::sim::config::nearest(name, names);
  throw tessera::app::UsageError(near ? fmt::format("unknown command '{}'; did you mean '{}'?", name, *near)
                                      : fmt::format("unknown command '{}' (see tessera --help)", name));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tessera::app;
  const Args all(argv + 1, argv + argc);
  if (all.empty() || all[0] == "--help" || all[0] == "-h" || all[0] == "help") {
    std::cout << kUsage;
    return all.empty() ? kExitBadInput : kExitOk;
  }
  if (all[0] == "--version") {
    std::cout << "tessera " << run::kVersion << "\n";
    return kExitOk;
  }
  try {
    return dispatch(all[0], Args(all.begin() + 1, all.end()));
  } catch (const tessera::sim::config::ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const tessera::app::measured::MeasuredDataError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const tessera::workloads::trace::TraceError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const tessera::workloads::replay::ReplayError& e) {
    std::cerr << "error: the trace cannot run on this system: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const tessera::sim::io::OutputPathError& e) {
    std::cerr << "tessera " << all[0] << ": " << e.what() << "\n";
    return kExitBadInput;
  } catch (const tessera::sim::TimeRangeError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::invalid_argument& e) {
    // Generators refuse impossible parameter combinations this way, naming the key.
    std::cerr << "error: bad workload parameters: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const boost::program_options::error& e) {
    std::cerr << "tessera " << all[0] << ": " << e.what() << " (see tessera " << all[0] << " --help)\n";
    return kExitBadInput;
  } catch (const UsageError& e) {
    std::cerr << "tessera: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "tessera: run failed: " << e.what() << "\n";
    return kExitRunFailed;
  }
}

#pragma once
// The subcommands of the `tessera` program. Each takes the arguments after its name and
// returns the exit code (exit_codes.h); errors in input throw and main() maps them.
#include <string>
#include <vector>

namespace tessera::app {

using Args = std::vector<std::string>;

int command_run(const Args& args);
int command_describe(const Args& args);
int command_bench(const Args& args);
int command_trace(const Args& args);
int command_compare(const Args& args);
int command_sweep(const Args& args);
int command_tune(const Args& args);
int command_select(const Args& args);
int command_calibrate(const Args& args);
int command_validate(const Args& args);

}  // namespace tessera::app

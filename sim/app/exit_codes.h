#pragma once
// The program's exit codes, as documented in README.md.
namespace tessera::app {

inline constexpr int kExitOk = 0;        // success
inline constexpr int kExitRunFailed = 1;  // the run itself failed (a model error, an I/O error)
inline constexpr int kExitBadInput = 2;   // bad config, trace or flag: nothing was run or written
// `tessera sweep` stopped by SIGINT or SIGTERM (sim/app/interrupt.h): the finished points are
// kept and tabulated, the rest were not run; `--resume` finishes the study. 130 = 128 + SIGINT,
// the shell's code for a command ended by Ctrl-C.
inline constexpr int kExitInterrupted = 130;

}  // namespace tessera::app

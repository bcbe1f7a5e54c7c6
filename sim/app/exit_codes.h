#pragma once
// The program's exit codes, as documented in README.md.
namespace tessera::app {

inline constexpr int kExitOk = 0;        // success
inline constexpr int kExitRunFailed = 1;  // the run itself failed (a model error, an I/O error)
inline constexpr int kExitBadInput = 2;   // bad config, trace or flag: nothing was run or written

}  // namespace tessera::app

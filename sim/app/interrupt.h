#pragma once
// Clean interruption of a long command (`tessera sweep`): SIGINT (Ctrl-C) and SIGTERM (a
// scheduler's kill, Slurm's time limit) set one flag. The sweep stops handing out points, the
// engine of every running point sees the flag within kWallCheckInterval events and stops, and
// the command keeps what finished, writes its tables and exits with kExitInterrupted.
//
// The flag is the program's one piece of global mutable state, and only because a signal
// handler can reach nothing else; it is a lock-free std::atomic<bool>, safe to set from a
// handler and to read from any thread.
#include <atomic>
#include <csignal>

namespace tessera::app {

// Installs the SIGINT and SIGTERM handlers for its lifetime and clears the flag; the previous
// handlers come back when it ends. A second signal while the command is winding down ends the
// process at once, with the signal's default action (for a user who does not want to wait).
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
};

// The flag, for the engine to poll (RunOptions::stop_requested), and whether it is set.
const std::atomic<bool>& interrupt_flag();
bool interrupt_requested();

}  // namespace tessera::app

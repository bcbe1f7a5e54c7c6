#include "sim/app/interrupt.h"

#include <unistd.h>

namespace tessera::app {
namespace {

// Lock-free, so that setting it in a signal handler is async-signal-safe.
std::atomic<bool> interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_interrupt(int signal) {
  if (interrupted.exchange(true)) {
    // The second signal: stop now. signal() and raise() are async-signal-safe.
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  // write() is async-signal-safe; fmt and iostreams are not.
  constexpr char kMessage[] =
      "\ntessera: interrupted: finishing cleanly (finished points are kept); interrupt again to stop at once\n";
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
}

void install(int signal, struct sigaction& previous) {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // reads and writes in progress go on rather than fail with EINTR
  sigaction(signal, &action, &previous);
}

}  // namespace

InterruptScope::InterruptScope() {
  interrupted.store(false);
  install(SIGINT, previous_int_);
  install(SIGTERM, previous_term_);
}

InterruptScope::~InterruptScope() {
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
}

const std::atomic<bool>& interrupt_flag() { return interrupted; }

bool interrupt_requested() { return interrupted.load(); }

}  // namespace tessera::app

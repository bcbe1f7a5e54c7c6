// The start of a timed iteration on every rank at once. The ranks are GPUs of one process, so the host enqueues
// one rank's whole kernel sequence before the next rank's: without a gate, rank r starts later than rank 0 by the
// host's enqueue time of the ranks before it, and a rank that waits for a later one's data (a collective, a
// flag) times that skew as if it were the pattern's. The gate is a one-thread kernel at the head of every rank's
// stream that says it is running and spins on a host flag; the host releases the flag once every rank's gate runs
// and every rank's work is enqueued behind it. Then all ranks start within a PCIe round trip, as ranks of separate
// processes do after the public benchmarks' barrier (docs/kernels.md, "Protocol").
#pragma once

#include "harness/context.h"

namespace tk {

class StartGate {
 public:
  explicit StartGate(const Context& context);
  ~StartGate();
  StartGate(const StartGate&) = delete;
  StartGate& operator=(const StartGate&) = delete;

  // Closes the gate (before any rank's hold of the next iteration; the previous one has finished).
  void close();
  // Enqueues the gate at the head of rank's stream 0.
  void hold(const Context& context, int rank);
  // Waits (at most `timeout_s`) until every rank's gate runs, then opens it. Throws std::runtime_error when a
  // gate never started.
  void release(double timeout_s = 10.0);

 private:
  int ranks_;
  int* host_ = nullptr;  // [0]: open flag; [1 + r]: rank r's gate is running. Pinned host memory.
};

}  // namespace tk

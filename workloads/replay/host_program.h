#pragma once
// The host side of one rank: runs its command list in order. A launch enqueues a kernel on
// its stream and goes on at once (launch latency is the GPU's, models/compute); a sync waits
// until every kernel this host launched has completed; a rank barrier waits until every
// rank's host has reached its barrier of the same ordinal (as an MPI barrier between ranks); a
// delay keeps the host busy for its time (an event that far ahead resumes it) while the streams
// go on, and the ledger counts a GPU left with nothing to do meanwhile as launch overhead.
// For the dataflow oracle (dataflow.h) the host launches every kernel at once, each on a stream
// of its own, and its syncs, rank barriers and delays do nothing: only data dependencies order
// kernels (the end-of-kernel write-backs stay: they put the data where the run as traced reads
// it), and host-side costs are none of those.
#include <cstdint>
#include <memory>
#include <vector>

#include "models/machine/machine.h"
#include "sim/core/engine.h"
#include "workloads/replay/trace_kernel.h"
#include "workloads/trace/trace.h"

namespace tessera::workloads::replay {

class RankBarrier;

struct HostOptions {
  bool skip_end_of_kernel_release = false;  // ablation: kernels end without writing their dirty L2 data back
  bool dataflow = false;                    // the dataflow oracle
  bool skip_delays = false;                 // ablation: host delays take no time (the dataflow oracle skips them too)
};

class HostProgram {
 public:
  HostProgram(models::machine::Machine& machine, const trace::Trace& trace, std::uint32_t rank,
              std::vector<std::unique_ptr<TraceKernel>>& bodies, std::vector<models::compute::KernelId>& kernel_ids,
              RankBarrier& barrier, TaxLedger& ledger, sim::Engine& engine, HostOptions options = {});

  void start() { run(); }
  bool finished() const { return pc_ == commands_.size() && !at_barrier_; }
  // The command it is blocked on, for the deadlock report.
  std::size_t position() const { return at_barrier_ ? pc_ - 1 : pc_; }
  bool at_rank_barrier() const { return at_barrier_; }
  void resume() {
    at_barrier_ = false;
    ledger_.host_blocked(rank_, false);
    run();
  }

 private:
  void run();
  void on_kernel_complete(const sim::Payload& payload);
  void on_end_of_kernel(const sim::Payload& payload);
  void on_released(const sim::Payload& payload);
  void on_delay_done(const sim::Payload& payload);

  models::machine::Machine& machine_;
  const trace::Trace& trace_;
  std::uint32_t rank_;
  const std::vector<trace::HostCommand>& commands_;
  std::vector<std::unique_ptr<TraceKernel>>& bodies_;
  std::vector<models::compute::KernelId>& kernel_ids_;
  RankBarrier& barrier_;
  TaxLedger& ledger_;
  sim::Engine& engine_;  // the replay's: it schedules the end of a delay
  HostOptions options_;
  std::size_t pc_ = 0;
  std::uint64_t outstanding_ = 0;
  std::uint64_t launched_ = 0;  // kernels launched so far
  bool waiting_sync_ = false;
  bool at_barrier_ = false;  // arrived at a rank_barrier the other ranks have not all reached
};

// The rank barrier of the hosts: resumes every host when the last one arrives.
class RankBarrier {
 public:
  explicit RankBarrier(std::uint32_t ranks) : ranks_(ranks) {}
  // True when the caller must wait (others have not arrived); the last arrival resumes the waiters.
  bool arrive(HostProgram* host) {
    waiting_.push_back(host);
    if (waiting_.size() < ranks_) return true;
    std::vector<HostProgram*> all;
    all.swap(waiting_);
    for (HostProgram* h : all) {
      if (h != host) h->resume();
    }
    return false;
  }
  std::size_t waiting() const { return waiting_.size(); }

 private:
  std::uint32_t ranks_;
  std::vector<HostProgram*> waiting_;
};

}  // namespace tessera::workloads::replay

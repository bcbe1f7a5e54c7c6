#include "workloads/replay/host_program.h"

#include "models/compute/gpu_compute.h"

namespace tessera::workloads::replay {

HostProgram::HostProgram(models::machine::Machine& machine, const trace::Trace& trace, std::uint32_t rank,
                         std::vector<std::unique_ptr<TraceKernel>>& bodies,
                         std::vector<models::compute::KernelId>& kernel_ids, RankBarrier& barrier,
                         TaxLedger& ledger, sim::Engine& engine, HostOptions options)
    : machine_(machine),
      trace_(trace),
      rank_(rank),
      commands_(trace.host.at(rank)),
      bodies_(bodies),
      kernel_ids_(kernel_ids),
      barrier_(barrier),
      ledger_(ledger),
      engine_(engine),
      options_(options) {}

void HostProgram::run() {
  waiting_sync_ = false;
  while (pc_ < commands_.size()) {
    const trace::HostCommand& c = commands_[pc_];
    switch (c.op) {
      case trace::HostOp::kLaunch: {
        const trace::Kernel& k = trace_.kernels[c.kernel];
        // The oracle: a stream per kernel (numbered by launch), so that no stream orders two.
        const std::uint32_t stream = options_.dataflow ? static_cast<std::uint32_t>(launched_++) : k.stream;
        models::compute::KernelLaunch launch{k.name, stream, static_cast<std::uint32_t>(k.grid), bodies_[c.kernel].get(),
                                             {}, sim::bind<&HostProgram::on_kernel_complete>(this), c.kernel, {}};
        if (k.cu_count > 0) {
          launch.partition = models::compute::CuPartition::per_die(machine_.spec().gpu.compute, k.cu_first, k.cu_count);
        }
        launch.footprint = k.footprint;
        if (!options_.skip_end_of_kernel_release) launch.end_of_kernel = sim::bind<&HostProgram::on_end_of_kernel>(this);
        ledger_.kernel_enqueued(rank_);
        kernel_ids_[c.kernel] = machine_.gpu(rank_).launch(std::move(launch));
        ++outstanding_;
        ++pc_;
        break;
      }
      case trace::HostOp::kSync:
        if (outstanding_ > 0 && !options_.dataflow) {
          waiting_sync_ = true;
          ledger_.host_blocked(rank_, true);
          return;
        }
        ++pc_;
        break;
      case trace::HostOp::kRankBarrier:
        ++pc_;
        if (options_.dataflow) break;
        ledger_.host_blocked(rank_, true);
        if (barrier_.arrive(this)) {
          at_barrier_ = true;
          return;
        }
        ledger_.host_blocked(rank_, false);
        break;
      case trace::HostOp::kDelay:
        ++pc_;
        // A delay costs host time, which orders no data: the oracle runs without it.
        if (c.delay_ps == 0 || options_.dataflow || options_.skip_delays) break;
        ledger_.host_delaying(rank_, true);
        engine_.schedule(c.delay_ps, sim::bind<&HostProgram::on_delay_done>(this));
        return;
    }
  }
}

// At the end of every kernel, the release that makes its writes visible to the next kernel
// and to the host: dirty data of private L2s is written back before the kernel completes.
// Payloads: a = the trace's kernel index (the launch tag), b = the GPU's kernel id.
void HostProgram::on_end_of_kernel(const sim::Payload& payload) {
  ledger_.release_started(static_cast<std::uint32_t>(payload.a));
  machine_.memory().release_all(rank_, sim::bind<&HostProgram::on_released>(this), payload);
}

void HostProgram::on_released(const sim::Payload& payload) {
  ledger_.release_finished(static_cast<std::uint32_t>(payload.a));
  machine_.gpu(rank_).end_of_kernel_done(static_cast<models::compute::KernelId>(payload.b));
}

void HostProgram::on_delay_done(const sim::Payload&) {
  ledger_.host_delaying(rank_, false);
  run();
}

void HostProgram::on_kernel_complete(const sim::Payload&) {
  ledger_.kernel_completed(rank_);
  --outstanding_;
  if (waiting_sync_ && outstanding_ == 0) {
    ledger_.host_blocked(rank_, false);
    run();
  }
}

}  // namespace tessera::workloads::replay

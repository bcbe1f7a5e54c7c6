#pragma once
// One CU's matrix unit, shared by the workgroups resident on the CU: a processor-sharing
// server, with no engine of its own (GpuCompute schedules its single pending event).
//
// Why processor sharing: a CDNA CU (or an SM) interleaves the waves of its resident
// workgroups instruction by instruction over its SIMDs' matrix cores, so n workgroups that
// all issue matrix work progress together at 1/n of the rate each, rather than one after
// the other. Two equal jobs started together both finish at twice the time of one; the
// total throughput is the same as serialising, but no job finishes early or late by a whole
// tile, and a job that arrives while another waits on memory gets the whole rate.
//
// Mechanics (virtual time, as in fair queueing): each job needs `work_ps`, its time alone.
// The served work per job V grows at 1/n per ps while n jobs are active; a job finishes when
// V reaches its target (V at arrival + work_ps). Completions are rounded up to whole ps from
// the exact time at each change of n, so a lone job takes exactly ceil_ps(work_ps). Cost per
// arrival or completion: O(n), n <= workgroup slots of the CU.
#include <cstdint>
#include <vector>

#include "sim/core/handler.h"
#include "sim/core/tick.h"

namespace tessera::models::compute {

class MatrixUnit {
 public:
  struct Completion {
    sim::Handler handler;
    sim::Payload payload;
  };

  // Adds a job of `work_ps` (its exact time alone on the unit) at `now`.
  void add(sim::Tick now, double work_ps, sim::Handler handler, sim::Payload payload);

  // Absolute time of the next completion; sim::kMaxTick when idle.
  sim::Tick next_completion_ps() const { return next_ps_; }

  // At next_completion_ps(): removes the jobs that are due and appends them to `out` in the
  // order they were added. The earliest job is always due (rounding never makes it wait).
  void complete_due(sim::Tick now, std::vector<Completion>& out);

  std::size_t active() const { return jobs_.size(); }
  // Time with at least one job, up to `now`.
  sim::Tick busy_ps(sim::Tick now) const { return busy_total_ps_ + (jobs_.empty() ? 0 : now - busy_since_ps_); }
  // Busy time of the finished busy periods only.
  sim::Tick closed_busy_ps() const { return busy_total_ps_; }

 private:
  struct Job {
    double target;  // value of virtual_ps_ at which the job is done
    Completion completion;
  };

  void advance(sim::Tick now);
  void update_next();

  std::vector<Job> jobs_;  // insertion order; grows to the peak number of resident jobs
  double virtual_ps_ = 0;  // work served per job since the unit last went busy
  sim::Tick last_ps_ = 0;
  sim::Tick next_ps_ = sim::kMaxTick;
  sim::Tick busy_since_ps_ = 0;
  sim::Tick busy_total_ps_ = 0;
};

}  // namespace tessera::models::compute

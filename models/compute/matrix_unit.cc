#include "models/compute/matrix_unit.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/compute/compute_timing.h"

namespace tessera::models::compute {

void MatrixUnit::advance(sim::Tick now) {
  if (!jobs_.empty() && now > last_ps_) {
    virtual_ps_ += static_cast<double>(now - last_ps_) / static_cast<double>(jobs_.size());
  }
  last_ps_ = now;
}

void MatrixUnit::update_next() {
  if (jobs_.empty()) {
    next_ps_ = sim::kMaxTick;
    return;
  }
  double min_target = jobs_.front().target;
  for (const Job& job : jobs_) min_target = std::min(min_target, job.target);
  const double remaining = std::max(0.0, min_target - virtual_ps_) * static_cast<double>(jobs_.size());
  next_ps_ = last_ps_ + ceil_ps(remaining);
}

void MatrixUnit::add(sim::Tick now, double work_ps, sim::Handler handler, sim::Payload payload) {
  if (!(work_ps >= 0)) throw std::invalid_argument("matrix work must be non-negative");
  if (jobs_.empty()) {
    // Restart virtual time at every busy period: keeps V small, so doubles stay exact enough.
    virtual_ps_ = 0;
    busy_since_ps_ = now;
  }
  advance(now);
  jobs_.push_back(Job{virtual_ps_ + work_ps, Completion{handler, payload}});
  update_next();
}

void MatrixUnit::complete_due(sim::Tick now, std::vector<Completion>& out) {
  if (jobs_.empty()) return;
  advance(now);
  double min_target = jobs_.front().target;
  for (const Job& job : jobs_) min_target = std::min(min_target, job.target);
  // The event was scheduled for the earliest job at the ceiling of its exact time, so that job
  // is done whatever float residue says; jobs within a hair of it finish with it.
  virtual_ps_ = std::max(virtual_ps_, min_target);
  const double due = virtual_ps_ + 1e-9 * std::max(1.0, virtual_ps_);
  auto keep = jobs_.begin();
  for (auto it = jobs_.begin(); it != jobs_.end(); ++it) {
    if (it->target <= due) {
      out.push_back(it->completion);
    } else {
      *keep++ = *it;
    }
  }
  jobs_.erase(keep, jobs_.end());
  if (jobs_.empty()) busy_total_ps_ += now - busy_since_ps_;
  update_next();
}

}  // namespace tessera::models::compute

#pragma once
// Occupancy of a GPU's CUs: how many workgroups each holds, out of workgroup_slots_per_cu,
// and how long each CU had at least one resident workgroup. No engine: the dispatcher asks
// it where a workgroup may go and tells it when slots are taken and freed.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "models/system/system_spec.h"
#include "sim/core/tick.h"

namespace tessera::models::compute {

class CuArray {
 public:
  explicit CuArray(const ComputeSpec& spec);

  // Among `cus`, the CU with the fewest resident workgroups that still has a free slot, and
  // fewer than `limit` residents (a kernel's occupancy); the lowest index on ties
  // (deterministic). nullopt when every one is full.
  std::optional<std::uint32_t> pick(std::span<const std::uint32_t> cus, std::uint32_t limit = ~std::uint32_t{0}) const;

  void occupy(std::uint32_t cu, sim::Tick now);
  void release(std::uint32_t cu, sim::Tick now);

  std::uint32_t resident(std::uint32_t cu) const { return resident_.at(cu); }
  std::uint32_t slots_per_cu() const { return slots_per_cu_; }
  std::uint32_t num_cus() const { return static_cast<std::uint32_t>(resident_.size()); }
  std::uint32_t die_of(std::uint32_t cu) const { return cu / cus_per_die_; }
  // Sum over CUs of the time with at least one resident workgroup, up to `now`.
  sim::Tick occupied_cu_ps(sim::Tick now) const;
  // The same for the finished busy periods only.
  sim::Tick closed_occupied_cu_ps() const { return closed_busy_ps_; }

 private:
  std::uint32_t slots_per_cu_;
  std::uint32_t cus_per_die_;
  std::vector<std::uint32_t> resident_;
  std::vector<sim::Tick> busy_since_ps_;
  std::uint32_t num_busy_ = 0;
  sim::Tick closed_busy_ps_ = 0;  // from finished busy periods
  sim::Tick open_since_sum_ps_ = 0;  // sum of busy_since over busy CUs, for occupied_cu_ps in O(1)
};

}  // namespace tessera::models::compute

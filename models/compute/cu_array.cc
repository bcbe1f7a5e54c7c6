#include "models/compute/cu_array.h"

#include <algorithm>
#include <stdexcept>

namespace tessera::models::compute {

CuArray::CuArray(const ComputeSpec& spec)
    : slots_per_cu_(spec.workgroup_slots_per_cu),
      cus_per_die_(spec.compute_units_per_die),
      resident_(std::size_t{spec.num_dies} * spec.compute_units_per_die, 0),
      busy_since_ps_(resident_.size(), 0) {
  if (spec.num_dies == 0 || spec.compute_units_per_die == 0 || spec.workgroup_slots_per_cu == 0) {
    throw std::invalid_argument("a GPU needs dies, CUs per die and workgroup slots per CU");
  }
}

std::optional<std::uint32_t> CuArray::pick(std::span<const std::uint32_t> cus, std::uint32_t limit) const {
  std::optional<std::uint32_t> best;
  const std::uint32_t cap = std::min(slots_per_cu_, limit);
  for (const std::uint32_t cu : cus) {  // ascending, so the first of equal loads wins
    const std::uint32_t load = resident_.at(cu);
    if (load < cap && (!best || load < resident_[*best])) best = cu;
  }
  return best;
}

void CuArray::occupy(std::uint32_t cu, sim::Tick now) {
  if (resident_.at(cu) >= slots_per_cu_) throw std::logic_error("CU has no free workgroup slot");
  if (resident_[cu]++ == 0) {
    busy_since_ps_[cu] = now;
    open_since_sum_ps_ += now;
    ++num_busy_;
  }
}

void CuArray::release(std::uint32_t cu, sim::Tick now) {
  if (resident_.at(cu) == 0) throw std::logic_error("CU has no resident workgroup to release");
  if (--resident_[cu] == 0) {
    closed_busy_ps_ += now - busy_since_ps_[cu];
    open_since_sum_ps_ -= busy_since_ps_[cu];
    --num_busy_;
  }
}

sim::Tick CuArray::occupied_cu_ps(sim::Tick now) const {
  return closed_busy_ps_ + num_busy_ * now - open_since_sum_ps_;
}

}  // namespace tessera::models::compute

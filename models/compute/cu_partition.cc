#include "models/compute/cu_partition.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tessera::models::compute {

CuPartition::CuPartition(const ComputeSpec& spec, std::span<const std::uint32_t> cus)
    : cus_per_die_(spec.compute_units_per_die), by_die_(spec.num_dies) {
  const std::uint64_t total = std::uint64_t{spec.num_dies} * spec.compute_units_per_die;
  if (cus.empty()) throw std::invalid_argument("a CU partition needs at least one CU");
  for (const std::uint32_t cu : cus) {
    if (cu >= total) {
      throw std::out_of_range("CU " + std::to_string(cu) + " out of range (the GPU has " + std::to_string(total) +
                              " CUs)");
    }
    by_die_[cu / cus_per_die_].push_back(cu);
  }
  for (std::uint32_t die = 0; die < spec.num_dies; ++die) {
    auto& list = by_die_[die];
    std::sort(list.begin(), list.end());
    if (std::adjacent_find(list.begin(), list.end()) != list.end()) {
      throw std::invalid_argument("a CU partition lists a CU twice");
    }
    if (!list.empty()) dies_.push_back(die);
    num_cus_ += list.size();
  }
}

CuPartition CuPartition::all(const ComputeSpec& spec) {
  return per_die(spec, 0, spec.compute_units_per_die);
}

CuPartition CuPartition::per_die(const ComputeSpec& spec, std::uint32_t first_local, std::uint32_t count) {
  if (std::uint64_t{first_local} + count > spec.compute_units_per_die) {
    throw std::out_of_range("per-die CU range [" + std::to_string(first_local) + ", " +
                            std::to_string(first_local + count) + ") exceeds " +
                            std::to_string(spec.compute_units_per_die) + " CUs per die");
  }
  std::vector<std::uint32_t> cus;
  cus.reserve(std::size_t{spec.num_dies} * count);
  for (std::uint32_t die = 0; die < spec.num_dies; ++die) {
    for (std::uint32_t i = 0; i < count; ++i) cus.push_back(die * spec.compute_units_per_die + first_local + i);
  }
  return CuPartition(spec, cus);
}

CuPartition CuPartition::of(const ComputeSpec& spec, std::span<const std::uint32_t> cus) {
  return CuPartition(spec, cus);
}

bool CuPartition::contains(std::uint32_t cu) const {
  const std::uint32_t die = cu / cus_per_die_;
  if (die >= by_die_.size()) return false;
  return std::binary_search(by_die_[die].begin(), by_die_[die].end(), cu);
}

bool CuPartition::disjoint(const CuPartition& other) const {
  for (const auto& list : by_die_) {
    for (const std::uint32_t cu : list) {
      if (other.contains(cu)) return false;
    }
  }
  return true;
}

}  // namespace tessera::models::compute

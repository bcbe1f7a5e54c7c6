#pragma once
// A set of CUs of one GPU that a kernel may use. Two kernels on two streams with disjoint
// partitions run side by side without taking each other's workgroup slots (e.g. 256 CUs for
// a GEMM + 48 for communication on a 304-CU MI300X: 32 + 6 per XCD); overlapping partitions
// simply share the slots of the common CUs. CUs are numbered globally:
// cu = die * compute_units_per_die + local index.
#include <cstdint>
#include <span>
#include <vector>

#include "models/system/system_spec.h"

namespace tessera::models::compute {

class CuPartition {
 public:
  // Every CU of the GPU (the default of a kernel).
  static CuPartition all(const ComputeSpec& spec);
  // CUs [first_local, first_local + count) of every die.
  static CuPartition per_die(const ComputeSpec& spec, std::uint32_t first_local, std::uint32_t count);
  // An explicit list of global CU indices (any order, no duplicates).
  static CuPartition of(const ComputeSpec& spec, std::span<const std::uint32_t> cus);

  // Dies with at least one CU in the partition, ascending: the round robin of dispatch goes
  // over these only, so no workgroup is sent to a die where it could never run.
  std::span<const std::uint32_t> dies() const { return dies_; }
  // The partition's CUs on `die`, ascending global indices; empty when none.
  std::span<const std::uint32_t> cus_on_die(std::uint32_t die) const { return by_die_.at(die); }
  std::size_t num_cus() const { return num_cus_; }
  bool contains(std::uint32_t cu) const;
  bool disjoint(const CuPartition& other) const;

 private:
  CuPartition(const ComputeSpec& spec, std::span<const std::uint32_t> cus);

  std::uint32_t cus_per_die_ = 0;
  std::vector<std::vector<std::uint32_t>> by_die_;
  std::vector<std::uint32_t> dies_;
  std::size_t num_cus_ = 0;
};

}  // namespace tessera::models::compute

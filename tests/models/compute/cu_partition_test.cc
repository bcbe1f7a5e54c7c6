#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

#include "models/compute/cu_array.h"
#include "models/compute/cu_partition.h"

using namespace tessera::models;
using namespace tessera::models::compute;

TEST_CASE("MI300X split: 32 + 6 CUs per XCD give disjoint 256- and 48-CU partitions") {
  const ComputeSpec spec;  // 8 x 38
  const auto gemm = CuPartition::per_die(spec, 0, 32);
  const auto comm = CuPartition::per_die(spec, 32, 6);
  CHECK(gemm.num_cus() == 256);
  CHECK(comm.num_cus() == 48);
  CHECK(gemm.disjoint(comm));
  CHECK_FALSE(gemm.disjoint(CuPartition::all(spec)));
  CHECK(comm.cus_on_die(1).front() == 38 + 32);
  CHECK(comm.dies().size() == 8);
  CHECK_THROWS_AS(CuPartition::per_die(spec, 32, 7), std::out_of_range);
}

TEST_CASE("an explicit partition lists only the dies it has CUs on") {
  const ComputeSpec spec;
  const std::vector<std::uint32_t> cus{40, 0, 1};
  const auto p = CuPartition::of(spec, cus);
  CHECK(p.dies().size() == 2);
  CHECK(p.cus_on_die(0).size() == 2);
  CHECK(p.cus_on_die(2).empty());
  CHECK(p.contains(40));
  CHECK_FALSE(p.contains(41));
  const std::vector<std::uint32_t> twice{3, 3};
  CHECK_THROWS(CuPartition::of(spec, twice));
  const std::vector<std::uint32_t> out{304};
  CHECK_THROWS_AS(CuPartition::of(spec, out), std::out_of_range);
}

TEST_CASE("CuArray picks the least-loaded CU with a free slot, lowest index on ties") {
  ComputeSpec spec;
  spec.num_dies = 1;
  spec.compute_units_per_die = 3;
  spec.workgroup_slots_per_cu = 2;
  CuArray cus(spec);
  const std::vector<std::uint32_t> all{0, 1, 2};
  CHECK(*cus.pick(all) == 0);
  cus.occupy(0, 0);
  CHECK(*cus.pick(all) == 1);
  cus.occupy(1, 0);
  cus.occupy(2, 10);
  CHECK(*cus.pick(all) == 0);
  cus.occupy(0, 10);
  cus.occupy(1, 10);
  cus.occupy(2, 10);
  CHECK_FALSE(cus.pick(all).has_value());
  cus.release(2, 20);
  cus.release(2, 30);  // CU 2 was occupied from 10 to 30
  CHECK(cus.closed_occupied_cu_ps() == 20);
  CHECK(cus.occupied_cu_ps(40) == 20 + 40 + 40);
}

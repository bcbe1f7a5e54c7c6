#pragma once
// Hand-filled systems for the pattern tests (no config files): an MI300X-like node (8 dies x 38
// CUs per GPU, 304 CUs) and an H200-like one (2 L2 halves x 66 SMs). Only the fields the
// generators read matter here: GPU count, dies, CUs per die.
#include <cstdint>
#include <string>

#include "models/system/system_spec.h"

namespace tessera::workloads::patterns::test {

inline models::SystemSpec mi300x_node(std::uint32_t num_gpus) {
  models::SystemSpec s;
  s.name = "mi300x-" + std::to_string(num_gpus);
  s.num_gpus = num_gpus;
  s.gpu.model = "MI300X";
  s.gpu.compute.num_dies = 8;
  s.gpu.compute.compute_units_per_die = 38;
  return s;
}

inline models::SystemSpec h200_node(std::uint32_t num_gpus) {
  models::SystemSpec s;
  s.name = "h200-" + std::to_string(num_gpus);
  s.num_gpus = num_gpus;
  s.gpu.model = "H200";
  s.gpu.vendor = "nvidia";
  s.gpu.compute.num_dies = 2;
  s.gpu.compute.compute_units_per_die = 66;
  return s;
}

}  // namespace tessera::workloads::patterns::test

#pragma once
// The system keys calibration may write: where each lives in a system file, its unit, how to read
// and set it on a SystemSpec, and the linear parameter the model refinement moves (a time in ns;
// for a bandwidth its inverse, ns per byte, because times grow linearly in it).
#include <string>
#include <string_view>
#include <vector>

#include "models/system/system_spec.h"

namespace tessera::app::calibration {

enum class KeyUnit {
  kTime,       // SI value in ps; whole ps in the file
  kBandwidth,  // SI value in B/s
  kFraction,   // in [0, 1]
};

struct CalibrationKey {
  std::string_view path;  // under `system:`, e.g. "gpu.memory.hbm_bandwidth"
  KeyUnit unit;
  double (*get)(const models::SystemSpec&);
  // Sets the value, clamped into the key's valid range (times >= 0 and whole ps; bandwidths
  // >= 1 B/s; fractions in [0, 1]).
  void (*set)(models::SystemSpec&, double);
};

// nullptr when calibration has no such key.
const CalibrationKey* find_calibration_key(std::string_view path);
// The key, or std::logic_error (a fit names its keys in code).
const CalibrationKey& calibration_key(std::string_view path);
const std::vector<CalibrationKey>& calibration_keys();

// The value as a system file writes it: "4398.51 GB/s", "612.345 ns", "0.8123". Parsing it gives
// the value that `set` stores (times are whole ps).
std::string value_text(const CalibrationKey& key, double value);

// The refinement's linear parameter and back.
double to_linear_parameter(const CalibrationKey& key, double value);
double from_linear_parameter(const CalibrationKey& key, double parameter);

}  // namespace tessera::app::calibration

#pragma once
// The calibrated system file: `base:` the system that was calibrated, then only the fitted keys,
// each with comments giving its fit, value, residuals, number of points and the result files
// they came from; the provenance (measured folder, devices, data digest, what was not fitted)
// heads the file as comments, because the system schema accepts no provenance keys.
#include <string>

#include "sim/app/calibration/calibration.h"

namespace tessera::app::calibration {

struct CalibratedFileNames {
  std::string base;            // what `base:` says: a system name, or a path from the file's folder
  std::string name;            // the calibrated system's `name:`
  std::string command;         // how it was made, for the header
};

std::string calibrated_system_yaml(const CalibrationResult& result, const CalibratedFileNames& names);

// "612.3 ns (0.41%)": an RMS in the fit's unit and its relative size.
std::string residual_text(const Residual& residual, const std::string& unit);

}  // namespace tessera::app::calibration

#pragma once
// Each point's run config: the study's base, then the --set flags, then the point's swept
// values, loaded and checked exactly as `tessera run` loads a config file. Every point is
// checked before any runs, so that a bad value stops the study at once (exit 2).
#include <cstdint>
#include <string>
#include <vector>

#include "sim/app/run/run_spec.h"
#include "sim/app/sweep/study.h"
#include "sim/app/sweep/sweep_points.h"
#include "sim/config/overrides.h"

namespace tessera::app::sweep {

struct PreparedPoint {
  run::RunSpec spec;
  // A digest of everything the run depends on (the fully resolved config and the program
  // version): --resume keeps a finished point only when it is unchanged.
  std::string config_hash;
};

// The point's run config, loaded (base, --set flags, swept values) but not yet read into a spec.
sim::config::ConfigNode point_config_node(const Study& study, const SweepPoint& point,
                                          const std::vector<sim::config::Override>& set_overrides);

// Throws config::ConfigError naming the study file, line and key (or the --set flag).
PreparedPoint prepare_point(const Study& study, const SweepPoint& point,
                            const std::vector<sim::config::Override>& set_overrides);

std::vector<PreparedPoint> prepare_points(const Study& study, const std::vector<SweepPoint>& points,
                                          const std::vector<sim::config::Override>& set_overrides);

// 64-bit FNV-1a of `text`, as 16 hex digits: stable across runs, builds and machines.
std::string fnv1a_hex(const std::string& text);

}  // namespace tessera::app::sweep

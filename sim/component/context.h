#pragma once
// What every component of one simulation shares: the engine and the statistics registry.
// Passed in explicitly (no static facade), so two simulations can live in one process.
#include "sim/core/engine.h"
#include "sim/stats/stat_registry.h"

namespace tessera::sim {

struct Context {
  Engine& engine;
  stats::StatRegistry& stats;
};

}  // namespace tessera::sim

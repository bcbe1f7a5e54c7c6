#pragma once
// The config keys of one cache level (a system file's `gpu.memory.l2` and `gpu.memory.mall`).
#include "models/cache/cache_spec.h"
#include "sim/config/schema.h"

namespace tessera::models::cache {

const sim::config::Schema<CacheSpec>& cache_schema();

}  // namespace tessera::models::cache

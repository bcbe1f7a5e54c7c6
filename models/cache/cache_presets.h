#pragma once
// Starting specs for MI300X, H100 and H200 (sources: docs/hardware-sources.md), for builders and
// tests. Configs override every field; figures not published (marked "placeholder") are to be
// calibrated by measurement.
#include "models/cache/cache_hierarchy_spec.h"

namespace tessera::models::cache {

CacheSpec mi300x_l2_spec();    // 4 MiB, 16-way, 128 B lines, 16 channels, per XCD
CacheSpec mi300x_mall_spec();  // 256 MiB Infinity Cache, 16-way, 64 B lines, 128 channels
CacheHierarchySpec mi300x_hierarchy_spec();  // 8 private L2s -> MALL -> HBM
CacheHierarchySpec h100_hierarchy_spec();    // 2 x 25 MiB L2 partitions -> HBM
CacheHierarchySpec h200_hierarchy_spec();    // 2 x 30 MiB L2 partitions -> HBM

}  // namespace tessera::models::cache

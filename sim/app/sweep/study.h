#pragma once
// A what-if study: a base run config and the axes swept over it (docs/sweeps.md). This file
// reads and checks the study's own structure; each point's run config is checked later, by the
// same code as `tessera run` (point_config.h).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/config_node.h"
#include "sim/config/file_resolver.h"
#include "sim/config/source_location.h"

namespace tessera::app::sweep {

// One dimension of the sweep: a grid axis (one key) or the zip group (keys advanced together).
// rows[r][k] is the value of keys[k] in row r; every row has one value per key.
struct SweepDimension {
  std::vector<std::string> keys;                            // dotted key paths, as written
  std::vector<sim::config::SourceLocation> key_locations;   // where each key is written
  std::vector<std::vector<sim::config::ConfigNode>> rows;
};

struct Study {
  sim::config::SourceFile file;             // the study file (its text is kept for the report)
  std::string name;                         // the file's stem: "xgmi_ag_gemm"
  std::string description;                  // optional `description:`
  sim::config::ConfigNode base;             // the base run config, rooted at "" (or {base: FILE})
  std::vector<SweepDimension> dimensions;   // in file order; the last one varies fastest

  // Every swept key, in dimension order: the columns of results.csv.
  std::vector<std::string> swept_keys() const;
  // The product of the dimensions' row counts.
  std::size_t num_points() const;
};

// The most points one study may have: a million runs is weeks of simulation already.
inline constexpr std::size_t kMaxSweepPoints = 1'000'000;

// A zip: map (key paths to lists of equal length, advanced together) as one dimension. Throws
// config::ConfigError at the map or the list that breaks the rule.
SweepDimension parse_zip_group(const sim::config::ConfigNode& zip);

// Parses and checks a study file's text. Throws config::ConfigError naming the file, line and
// key: unknown keys, a missing base: or sweep:, an axis that is not a non-empty list, zip lists
// of unequal lengths, a key swept twice, a malformed key path.
Study parse_study(const sim::config::SourceFile& file);

// Finds the study file as `tessera run` finds a config (a path, else a file compiled into the
// program such as studies/xgmi_ag_gemm.yaml) and parses it.
Study read_study(std::string_view name, const sim::config::FileResolver& resolver);

}  // namespace tessera::app::sweep

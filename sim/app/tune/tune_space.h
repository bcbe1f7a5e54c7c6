#pragma once
// The space of `tessera tune` (docs/tune.md): a map from a run-config key path to its candidate
// values (a list, or an integer range), optionally a `zip:` of keys whose lists advance together
// (one axis: a tile shape's block_m and block_n), and a cheaper `proxy:` of the run for the
// screening round of successive halving. Read and checked here; each candidate's run config is
// checked later, as a sweep point's is (sweep/point_config.h).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sim/app/sweep/study.h"
#include "sim/config/file_resolver.h"
#include "sim/config/overrides.h"
#include "sim/config/source_location.h"

namespace tessera::app::tune {

struct TuneSpace {
  sim::config::SourceFile file;
  std::string name;                          // the file's stem: "ag_gemm"
  std::string description;                   // optional `description:`
  std::vector<sweep::SweepDimension> axes;   // in file order (a zip: is one axis); the last varies fastest
  std::vector<sim::config::Override> proxy;  // `proxy:`: overrides that make a run cheaper (may be empty)

  // Every tuned key, axis by axis (a zip's keys together).
  std::vector<std::string> keys() const;
  std::vector<std::size_t> axis_sizes() const;
  // The product of the axes' sizes.
  std::size_t num_candidates() const;
};

// Parses and checks a space file's text. Throws config::ConfigError naming the file, line and
// key: not a map, no key to tune, a key tuned twice, a zip: of unequal lists, a value that is neither a non-empty list nor a range, a range
// with unknown keys, non-integer bounds, a step or factor that does not advance, a key tuned in
// the space and set by proxy:, more candidates than a sweep may have.
TuneSpace parse_tune_space(const sim::config::SourceFile& file);

// Finds the space file as `tessera run` finds a config (a path, else a file compiled into the
// program such as spaces/ag_gemm.yaml) and parses it.
TuneSpace read_tune_space(std::string_view name, const sim::config::FileResolver& resolver);

// The study that runs the candidates: the run config `config` (a file name, as `tessera run`
// takes it) as its base, one grid axis per key of the space, so that candidate i is the
// study's point i.
sweep::Study tune_study(const TuneSpace& space, const std::string& config);

}  // namespace tessera::app::tune

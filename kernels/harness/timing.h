// The timing protocol of the public benchmarks (docs/kernels.md, "Protocol"): device events around each
// iteration, warm-up iterations discarded, and before every iteration a reset outside the timed region, a cache
// flush (a 256 MiB write, larger than any L2 or Infinity Cache of the target GPUs) and a barrier of all ranks.
#pragma once

#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/case.h"
#include "harness/context.h"

namespace tk {

struct TimingOptions {
  int warmup = 5;
  int repeats = 20;
  bool flush = true;
  std::size_t flush_bytes = std::size_t{256} << 20;
};

struct Timing {
  // Per timed iteration: the slowest rank's event time (all ranks start together after the barrier, behind a
  // start gate when there are several: start_gate.h). A case that times itself (Case::time_itself) gives one
  // sample per `iterations_per_sample` iterations instead, each the mean of those iterations.
  std::vector<double> samples_ns;
  // Whether the cache flush ran before each sample, and how many iterations (e.g. collectives back to back) one
  // sample averages: the harness's own protocol flushes and times one; a case that times itself says otherwise.
  bool flushed = true;
  int iterations_per_sample = 1;
  double median_ns = 0;
  double mean_ns = 0;
  double min_ns = 0;
  double max_ns = 0;
  nlohmann::json to_json(const TimingOptions& options) const;
};

// The checked run: poison, reset, enqueue on every rank, wait, compare.
CheckResult run_checked(Case& the_case, Context& context);
Timing run_timed(Case& the_case, Context& context, const TimingOptions& options);

}  // namespace tk

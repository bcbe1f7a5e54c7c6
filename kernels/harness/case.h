// A case of the suite: a microbenchmark or one variant of a pattern, at the sizes its parameters give.
//
// The harness drives every case the same way (harness/timing.h): setup once; one checked run (outputs poisoned,
// reset, enqueue on every rank, compare with a reference) before any timing counts; then warm-up and timed
// iterations, each preceded by a cache flush, reset (flags, outside the timed region) and a rank barrier.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/check.h"
#include "harness/context.h"
#include "harness/params.h"

namespace tk {

struct Timing;

class Case {
 public:
  virtual ~Case() = default;
  // Allocates and fills inputs with fresh random data (never zeros).
  virtual void setup(Context& context) = 0;
  // Before the checked run: poison every output.
  virtual void poison_outputs(Context& context) = 0;
  // Before every run, outside the timed region and after the cache flush: flags and counters back to their
  // initial state (and, for a case that measures a warm cache, the warm-up pass).
  virtual void reset(Context& /*context*/) {}
  // The timed work of one iteration on `rank`, enqueued on context.stream(rank) (other streams joined back).
  virtual void enqueue(Context& context, int rank) = 0;
  // After the checked run: compare outputs with a reference.
  virtual CheckResult check(Context& context) = 0;
  // Derived quantities (bytes, GB/s, TFLOP/s, per-launch latency) from the timing, into `metrics`.
  virtual void derive_metrics(const Context& /*context*/, const Timing& /*timing*/,
                              nlohmann::json& /*metrics*/) const {}
};

struct CaseInfo {
  std::string name;         // e.g. "hbm_stream", "ag_gemm"
  std::string kind;         // "microbenchmark" or "pattern"
  std::string description;  // one line
  int min_ranks = 1;
  int max_ranks = 1;
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Case>(const Params&, int ranks)> make;
  // The matching Tessera workload (the `workload:` map of a run config) for these parameters and ranks.
  std::function<nlohmann::json(const Params&, int ranks)> tessera_workload;
};

// Every case of the suite, in a fixed order (harness/case_list.cc).
std::vector<CaseInfo> all_cases();

}  // namespace tk

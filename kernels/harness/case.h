// A case of the suite: a microbenchmark or one variant of a pattern, at the sizes its parameters give.
//
// The harness drives every case the same way (harness/timing.h): setup once; one checked run (outputs poisoned,
// reset, enqueue on every rank, compare with a reference) before any timing counts; then warm-up and timed
// iterations, each preceded by a cache flush, reset (flags, outside the timed region) and a rank barrier.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/check.h"
#include "harness/context.h"
#include "harness/params.h"

namespace tk {

struct Timing;
struct TimingOptions;

// Thrown by Case::check_prerequisites when this machine lacks something the case needs that is no fault of the case
// (the collective cases: no NCCL/RCCL library). The run is recorded as failed with "skipped": true and the reason,
// and the driver says SKIPPED instead of FAILED (docs/kernels.md, "Collectives").
struct CaseSkipped : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Case {
 public:
  virtual ~Case() = default;
  // Before any GPU is touched: throws CaseSkipped when this machine lacks what the case needs (a library).
  virtual void check_prerequisites() {}
  // Allocates and fills inputs with fresh random data (never zeros).
  virtual void setup(Context& context) = 0;
  // Before the checked run: poison every output.
  virtual void poison_outputs(Context& context) = 0;
  // Before every run, outside the timed region and after the cache flush: flags and counters back to their
  // initial state (and, for a case that measures a warm cache, the warm-up pass).
  virtual void reset(Context& /*context*/) {}
  // The timed work of one iteration on `rank`, enqueued on context.stream(rank) (other streams joined back).
  virtual void enqueue(Context& context, int rank) = 0;
  // The checked run's work on every rank: enqueue on each rank in turn, unless the case must issue all ranks' work
  // together from this thread (a library collective: one call per communicator inside one group).
  virtual void enqueue_all(Context& context);
  // A case with its own timing protocol (the collectives: nccl-tests' back-to-back loop, no flush, no gate)
  // returns true and fills timing.samples_ns in time_itself; the harness computes the statistics.
  virtual bool times_itself() const { return false; }
  virtual void time_itself(Context& /*context*/, const TimingOptions& /*options*/, Timing& /*timing*/) {}
  // After the checked run: compare outputs with a reference.
  virtual CheckResult check(Context& context) = 0;
  // Derived quantities (bytes, GB/s, TFLOP/s, per-launch latency) from the timing, into `metrics`.
  virtual void derive_metrics(const Context& /*context*/, const Timing& /*timing*/,
                              nlohmann::json& /*metrics*/) const {}
  // Anything else the result should name (the collectives: the library, its version and path, the NCCL_*
  // environment), added at the top level of the result JSON whether the run passed, failed or was skipped.
  virtual void describe(nlohmann::json& /*result*/) const {}
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

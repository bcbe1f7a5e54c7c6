#include "harness/timing.h"

#include "harness/start_gate.h"

#include <algorithm>
#include <memory>
#include <numeric>

namespace tk {

namespace {

void run_once(Case& the_case, Context& context) {
  the_case.reset(context);
  context.synchronize_all();
  the_case.enqueue_all(context);
  context.synchronize_all();
}

void compute_statistics(Timing& timing) {
  std::vector<double> sorted = timing.samples_ns;
  std::sort(sorted.begin(), sorted.end());
  if (!sorted.empty()) {
    const std::size_t n = sorted.size();
    timing.median_ns = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    timing.mean_ns = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
    timing.min_ns = sorted.front();
    timing.max_ns = sorted.back();
  }
}

}  // namespace

void Case::enqueue_all(Context& context) {
  for (int rank = 0; rank < context.ranks(); ++rank) {
    context.use(rank);
    enqueue(context, rank);
    HIP_CHECK(hipGetLastError());
  }
}

CheckResult run_checked(Case& the_case, Context& context) {
  the_case.poison_outputs(context);
  run_once(the_case, context);
  return the_case.check(context);
}

Timing run_timed(Case& the_case, Context& context, const TimingOptions& options) {
  if (the_case.times_itself()) {
    Timing timing;
    timing.flushed = false;
    the_case.time_itself(context, options, timing);
    compute_statistics(timing);
    return timing;
  }
  const int ranks = context.ranks();
  std::vector<void*> flush_buffers(ranks, nullptr);
  std::vector<hipEvent_t> starts(ranks), stops(ranks);
  for (int rank = 0; rank < ranks; ++rank) {
    if (options.flush) flush_buffers[rank] = context.allocate_bytes(rank, options.flush_bytes);
    context.use(rank);
    HIP_CHECK(hipEventCreate(&starts[rank]));
    HIP_CHECK(hipEventCreate(&stops[rank]));
  }

  // Several ranks start each iteration together behind a gate (start_gate.h); one rank needs none.
  std::unique_ptr<StartGate> gate;
  if (ranks > 1) gate = std::make_unique<StartGate>(context);

  Timing timing;
  for (int iteration = 0; iteration < options.warmup + options.repeats; ++iteration) {
    for (int rank = 0; rank < ranks; ++rank) {
      if (!options.flush) continue;
      context.use(rank);
      // A value that differs per iteration, so that no layer can skip the write as redundant.
      HIP_CHECK(hipMemsetAsync(flush_buffers[rank], iteration & 0x7F, options.flush_bytes, context.stream(rank)));
    }
    context.synchronize_all();
    // After the flush, so that a case may warm a cache on purpose here (l2_bandwidth).
    the_case.reset(context);
    context.synchronize_all();  // the rank barrier
    if (gate) gate->close();
    for (int rank = 0; rank < ranks; ++rank) {
      if (gate) gate->hold(context, rank);
      context.use(rank);
      HIP_CHECK(hipEventRecord(starts[rank], context.stream(rank)));
      the_case.enqueue(context, rank);
      HIP_CHECK(hipGetLastError());
      HIP_CHECK(hipEventRecord(stops[rank], context.stream(rank)));
    }
    if (gate) gate->release();
    double slowest_ns = 0;
    for (int rank = 0; rank < ranks; ++rank) {
      context.use(rank);
      HIP_CHECK(hipEventSynchronize(stops[rank]));
      float elapsed_ms = 0;
      HIP_CHECK(hipEventElapsedTime(&elapsed_ms, starts[rank], stops[rank]));
      slowest_ns = std::max(slowest_ns, static_cast<double>(elapsed_ms) * 1e6);
    }
    context.synchronize_all();
    if (iteration >= options.warmup) timing.samples_ns.push_back(slowest_ns);
  }
  for (int rank = 0; rank < ranks; ++rank) {
    context.use(rank);
    HIP_CHECK(hipEventDestroy(starts[rank]));
    HIP_CHECK(hipEventDestroy(stops[rank]));
  }

  timing.flushed = options.flush;
  compute_statistics(timing);
  return timing;
}

nlohmann::json Timing::to_json(const TimingOptions& options) const {
  nlohmann::json out{{"warmup", options.warmup},     {"repeats", options.repeats},
                     {"cache_flush", flushed},       {"cache_flush_bytes", flushed ? options.flush_bytes : 0},
                     {"median_ns", median_ns},       {"mean_ns", mean_ns},
                     {"min_ns", min_ns},             {"max_ns", max_ns},
                     {"samples_ns", samples_ns}};
  // Only where a sample is not one iteration, so that every other result stays as it was.
  if (iterations_per_sample != 1) out["iterations_per_sample"] = iterations_per_sample;
  return out;
}

}  // namespace tk

#include "workloads/phold/phold_engine.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "workloads/phold/phold_rng.h"
#include "sim/core/engine.h"
#include "sim/core/radix_heap.h"
#include "workloads/workload_limits.h"

namespace tessera::workloads::phold {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// All processes share one handler; the payload names the receiving process.
template <class Engine>
class PholdModel {
 public:
  PholdModel(Engine& engine, const PholdParams& params) : engine_(engine), params_(params) {
    rngs_.reserve(params.num_lps);
    for (std::uint32_t lp = 0; lp < params.num_lps; ++lp) rngs_.emplace_back(params.seed, lp);
  }

  void seed_initial_events() {
    const sim::Handler handler = sim::bind<&PholdModel::on_event>(this);
    for (std::uint32_t lp = 0; lp < params_.num_lps; ++lp) {
      for (std::uint32_t e = 0; e < params_.events_per_lp; ++e) {
        engine_.schedule(rngs_[lp].delay_ps(params_), handler, sim::Payload{lp, 0});
      }
    }
  }

  void on_event(const sim::Payload& payload) {
    const auto lp = static_cast<std::uint32_t>(payload.a);
    PholdRng& rng = rngs_[lp];
    const sim::Tick delay = rng.delay_ps(params_);
    const std::uint32_t dest = rng.destination(params_, lp);
    engine_.schedule(delay, sim::bind<&PholdModel::on_event>(this), sim::Payload{dest, 0});
  }

 private:
  Engine& engine_;
  const PholdParams& params_;
  std::vector<PholdRng> rngs_;
};

}  // namespace

void validate(const PholdParams& p) {
  if (p.num_lps == 0) throw std::invalid_argument("--lps must be at least 1");
  if (p.events_per_lp == 0) throw std::invalid_argument("--events-per-lp must be at least 1");
  if (!(p.remote_frac >= 0.0 && p.remote_frac <= 1.0)) throw std::invalid_argument("--remote must lie in [0, 1]");
  if (p.end_time_ps == 0) throw std::invalid_argument("--end-time must be positive");
  if (p.end_time_ps > kMaxPholdEndTimePs) throw std::invalid_argument("--end-time must be at most 1000000 s");
  if (p.min_delay_ps > sim::kPsPerS || p.mean_extra_delay_ps > sim::kPsPerS) {
    throw std::invalid_argument("min_delay and mean_extra_delay must be at most 1 s");
  }
  if (static_cast<std::uint64_t>(p.num_lps) * p.events_per_lp > sim::kMaxPendingEvents) {
    throw std::invalid_argument("--lps x --events-per-lp must stay at or below 2^24 pending events (the engine's limit)");
  }
  if (const auto problem = advance_problem(p)) throw std::invalid_argument(*problem);
}

std::optional<std::string> advance_problem(const PholdParams& p) {
  const double step_ps = static_cast<double>(p.min_delay_ps) + static_cast<double>(p.mean_extra_delay_ps);
  if (step_ps == 0) {
    return std::string("min_delay and mean_extra_delay are both 0: no event moves simulated time forward, so "
                       "end_time is never reached");
  }
  const double events = static_cast<double>(p.num_lps) * p.events_per_lp * (static_cast<double>(p.end_time_ps) / step_ps);
  if (events > static_cast<double>(kMaxOperations)) {
    return fmt::format("about {:.3g} events before end_time (pending events x end_time / (min_delay + "
                       "mean_extra_delay)); at most {:.0e}, more than a day of simulation",
                       events, static_cast<double>(kMaxOperations));
  }
  return std::nullopt;
}

namespace {

template <class Queue>
PholdResult run_phold_on(const PholdParams& params) {
  sim::BasicEngine<Queue> engine;
  engine.reserve(std::size_t{params.num_lps} * params.events_per_lp + 1);
  PholdModel<sim::BasicEngine<Queue>> model(engine, params);
  model.seed_initial_events();

  const auto start = Clock::now();
  const sim::RunResult run = engine.run(params.limits.stop_conditions(params.end_time_ps));
  PholdResult result;
  result.wall_s = seconds_since(start);
  result.events = run.events;
  result.final_time_ps = run.final_time_ps;
  result.stop_reason = run.reason;
  result.complete = sim::ran_to_completion(run.reason);
  return result;
}

}  // namespace

PholdResult run_phold_engine(const PholdParams& params, QueueKind queue) {
  validate(params);
  switch (queue) {
    case QueueKind::kBinaryHeap: return run_phold_on<sim::BinaryHeap>(params);
    case QueueKind::kQuaternaryHeap: return run_phold_on<sim::QuaternaryHeap>(params);
    case QueueKind::kOctonaryHeap: return run_phold_on<sim::DaryHeap<8>>(params);
    case QueueKind::kRadixHeap: return run_phold_on<sim::RadixHeap>(params);
    case QueueKind::kDefault: break;
  }
  return run_phold_on<sim::Engine::QueueType>(params);
}

PholdResult run_phold_bare(const PholdParams& params) {
  validate(params);
  struct Entry {
    sim::Tick time;
    std::uint64_t seq;
    std::uint32_t lp;
  };
  // std::*_heap builds a max-heap; "later" compares as smaller so the earliest is on top.
  const auto later = [](const Entry& a, const Entry& b) { return a.time > b.time || (a.time == b.time && a.seq > b.seq); };

  std::vector<PholdRng> rngs;
  rngs.reserve(params.num_lps);
  for (std::uint32_t lp = 0; lp < params.num_lps; ++lp) rngs.emplace_back(params.seed, lp);
  std::vector<Entry> heap;
  heap.reserve(std::size_t{params.num_lps} * params.events_per_lp + 1);
  std::uint64_t seq = 0;
  for (std::uint32_t lp = 0; lp < params.num_lps; ++lp) {
    for (std::uint32_t e = 0; e < params.events_per_lp; ++e) {
      heap.push_back(Entry{rngs[lp].delay_ps(params), seq++, lp});
      std::push_heap(heap.begin(), heap.end(), later);
    }
  }

  PholdResult result;
  const auto start = Clock::now();
  while (!heap.empty() && heap.front().time <= params.end_time_ps) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const Entry ev = heap.back();
    heap.pop_back();
    ++result.events;
    result.final_time_ps = ev.time;
    PholdRng& rng = rngs[ev.lp];
    const sim::Tick delay = rng.delay_ps(params);
    const std::uint32_t dest = rng.destination(params, ev.lp);
    heap.push_back(Entry{ev.time + delay, seq++, dest});
    std::push_heap(heap.begin(), heap.end(), later);
  }
  result.wall_s = seconds_since(start);
  return result;
}

}  // namespace tessera::workloads::phold

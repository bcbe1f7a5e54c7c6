#pragma once
// Flags and atomics in GPU memory, with spin-waits that cost O(1) events per wait.
//
// Access latency. An access (read, store, atomic) issued at t by GPU g on a flag homed on
// GPU h has round trip L = atomics.local_latency_ps when g == h, else
// atomics.remote_latency_ps, plus the caller's FlagAccess::extra_ps (the link round trip).
// It is performed at the home at t + floor(L / 2) (the request half) and its result reaches
// the issuer L - floor(L / 2) later, at t + L (plus any wait for serialisation below).
//
// Serialisation. Writes (release-stores and atomics) on one flag are performed one at a time
// in order of arrival at the home: a write arriving at a is performed at
// max(a, previous write's perform time + service_ps) (service_ps: a constructor parameter,
// the occupancy of the address per atomic; 0 keeps the order but adds no delay). Reads are
// not serialised (they are served from the same line in parallel). At equal times writes are
// performed before reads, so a read performed in the same ps as a store sees it.
//
// Spin-wait. wait_until(flag, op, target) issued at t0 models the loop
// `while (!(load(flag) op target)) sleep;` whose reads are issued every
// T = max(poll_interval_ps, L, 1) (issue to issue; a read cannot be issued before the
// previous one has returned). Read k (k = 0, 1, ...) is performed at p_k = t0 + floor(L/2) + kT
// and returns at t0 + kT + L. The waiter is satisfied by the first read whose performed value
// holds; on_satisfied(Payload{tag, value seen}) runs when that read returns. So a wait on a
// flag that already holds costs exactly one read (L); a release performed at t_v is seen by
// the first read with p_k >= t_v, i.e. at t_v + [0, T) + (L - floor(L/2)).
// Only O(1) events per wait and per write that makes a waiter's predicate hold: the first
// read is an event; afterwards each write that makes the predicate hold schedules a single
// check at the next read time p_k >= t_v, which re-reads the value then (a value that held
// only between two reads is missed, as by the real spinning loop).
//
// Release / acquire. Every write is a release: the caller must have made its data visible
// first (written back / flushed its stores through the cache model) before calling the
// store or atomic; the store records the perform time (last_release_ps). An acquire is a
// wait (or a load) whose handler runs only after a read has seen the released value; the
// caller's handler must then invalidate its L2 lines of the data range before reading the
// data (the acquire side of the cache model). Order of hooks: caller flushes -> release_store
// -> (performed at the home) -> waiter's read sees it -> on_satisfied -> caller invalidates
// -> caller reads data.
//
// Deadlock support. pending_waits() lists waits not yet satisfied; after the engine drains,
// every one of them is a wait that nothing will ever release.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/sync/flag.h"
#include "models/system/system_spec.h"
#include "sim/component/component.h"

namespace tessera::models::sync {

// A wait not satisfied (yet).
struct PendingWait {
  FlagRef flag;
  std::uint32_t waiter_gpu = 0;
  Compare op = Compare::kGe;
  std::uint64_t target = 0;
  std::uint64_t value = 0;  // current value of the flag
  sim::Tick since_ps = 0;   // when the wait was issued
};

struct FlagStoreParams {
  sim::Tick service_ps = 0;  // occupancy of one flag's address per write at the home
};

class FlagStore : public sim::Component {
 public:
  FlagStore(sim::Context context, std::string name, const AtomicSpec& atomics, FlagStoreParams params = {});

  // Round trip of an access from `access.issuer_gpu` to `flag` (see above).
  sim::Tick access_latency_ps(FlagRef flag, FlagAccess access) const;
  // Issue-to-issue interval of a spin-wait's reads with this round trip.
  sim::Tick poll_period_ps(sim::Tick read_latency_ps) const;

  // Atomics: on_done(Payload{tag, old value}) runs when the result is back at the issuer.
  void atomic_add(FlagRef flag, std::uint64_t operand, FlagAccess access, sim::Handler on_done = {},
                  std::uint64_t tag = 0);
  void atomic_exchange(FlagRef flag, std::uint64_t value, FlagAccess access, sim::Handler on_done = {},
                       std::uint64_t tag = 0);
  // Writes `desired` when the value equals `expected`; the old value tells whether it did.
  void atomic_cas(FlagRef flag, std::uint64_t expected, std::uint64_t desired, FlagAccess access,
                  sim::Handler on_done = {}, std::uint64_t tag = 0);
  // A release-store (posted: the issuer does not wait). on_performed(Payload{tag, value}), if
  // given, runs when the store is performed at the home (visible to readers there).
  void release_store(FlagRef flag, std::uint64_t value, FlagAccess access, sim::Handler on_performed = {},
                     std::uint64_t tag = 0);
  // One acquire-load: on_done(Payload{tag, value}) when the value is back.
  void load(FlagRef flag, FlagAccess access, sim::Handler on_done, std::uint64_t tag = 0);
  // Spin-wait until `value op target`; on_satisfied(Payload{tag, value seen}).
  void wait_until(FlagRef flag, Compare op, std::uint64_t target, FlagAccess access, sim::Handler on_satisfied,
                  std::uint64_t tag = 0);

  // Untimed initialisation or reset (outside the timed region, as benchmarks reset flags);
  // waiters whose predicate now holds are checked as after a write.
  void set(FlagRef flag, std::uint64_t value);
  std::uint64_t value(FlagRef flag) const;
  // Perform time of the latest write; 0 when never written.
  sim::Tick last_release_ps(FlagRef flag) const;

  // Waits not yet satisfied, in the order they were issued.
  std::vector<PendingWait> pending_waits() const;
  std::size_t num_pending_waits() const { return num_waiting_; }

  std::uint64_t polls() const { return polls_->value(); }

 private:
  enum class OpKind : std::uint8_t { kAdd, kExchange, kCas, kStore, kLoad };
  struct FlagState {
    FlagRef ref;
    std::uint64_t value = 0;
    sim::Tick last_release_ps = 0;
    sim::Tick next_free_ps = 0;  // earliest perform time of the next write
    std::vector<std::uint32_t> waiters;  // issue order
  };
  struct Op {
    OpKind kind;
    std::uint32_t flag;
    std::uint64_t operand;
    std::uint64_t expected;
    sim::Tick response_ps;
    sim::Handler handler;
    std::uint64_t tag;
  };
  struct Waiter {
    std::uint32_t flag;
    std::uint32_t waiter_gpu;
    Compare op;
    std::uint64_t target;
    sim::Tick since_ps;
    sim::Tick first_read_ps;  // perform time of read 0
    sim::Tick period_ps;
    sim::Tick response_ps;
    sim::Handler handler;
    std::uint64_t tag;
    std::uint64_t sequence;
    bool check_pending;
    bool live;
  };

  std::uint32_t flag_index(FlagRef flag);
  const FlagState* find(FlagRef flag) const;
  void issue(OpKind kind, FlagRef flag, std::uint64_t operand, std::uint64_t expected, FlagAccess access,
             sim::Handler handler, std::uint64_t tag);
  void on_arrive(const sim::Payload& payload);
  void on_perform(const sim::Payload& payload);
  void perform(std::uint32_t op_index);
  void notify(std::uint32_t flag);
  void on_check(const sim::Payload& payload);

  AtomicSpec atomics_;
  FlagStoreParams params_;
  std::unordered_map<FlagRef, std::uint32_t, FlagRefHash> index_;
  std::vector<FlagState> flags_;
  std::vector<Op> ops_;
  std::vector<std::uint32_t> free_ops_;
  std::vector<Waiter> waiters_;
  std::vector<std::uint32_t> free_waiters_;
  std::uint64_t next_wait_sequence_ = 0;
  std::size_t num_waiting_ = 0;

  sim::stats::Counter* atomics_count_;
  sim::stats::Counter* stores_;
  sim::stats::Counter* waits_;
  sim::stats::Counter* polls_;
  sim::stats::Accumulator* wait_ps_;
};

}  // namespace tessera::models::sync

#include "models/sync/flag_store.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace tessera::models::sync {
namespace {

// At equal times, writes are performed before reads (see flag_store.h).
constexpr sim::Priority kWritePriority = 100;
constexpr sim::Priority kReadPriority = 160;

// Takes a slot from a free list or grows the pool: pools reach their peak and are reused.
template <class T>
std::uint32_t take(std::vector<T>& pool, std::vector<std::uint32_t>& free_list, T value) {
  if (!free_list.empty()) {
    const std::uint32_t index = free_list.back();
    free_list.pop_back();
    pool[index] = std::move(value);
    return index;
  }
  pool.push_back(std::move(value));
  return static_cast<std::uint32_t>(pool.size() - 1);
}

}  // namespace

FlagStore::FlagStore(sim::Context context, std::string name, const AtomicSpec& atomics, FlagStoreParams params)
    : Component(context, std::move(name)),
      atomics_(atomics),
      params_(params),
      atomics_count_(&add_counter("atomics", sim::stats::Unit::kCount, "atomic read-modify-writes issued")),
      stores_(&add_counter("release_stores", sim::stats::Unit::kCount, "release-stores issued")),
      waits_(&add_counter("waits_satisfied", sim::stats::Unit::kCount, "spin-waits satisfied")),
      polls_(&add_counter("polls", sim::stats::Unit::kCount, "flag reads of satisfied spin-waits (computed)")),
      wait_ps_(&add_accumulator("wait_ps", sim::stats::Unit::kPs, "spin-wait issue to satisfied")) {}

sim::Tick FlagStore::access_latency_ps(FlagRef flag, FlagAccess access) const {
  const sim::Tick base = access.issuer_gpu == flag.gpu ? atomics_.local_latency_ps : atomics_.remote_latency_ps;
  return base + access.extra_ps;
}

sim::Tick FlagStore::poll_period_ps(sim::Tick read_latency_ps) const {
  return std::max<sim::Tick>({atomics_.poll_interval_ps, read_latency_ps, 1});
}

std::uint32_t FlagStore::flag_index(FlagRef flag) {
  const auto [it, inserted] = index_.try_emplace(flag, static_cast<std::uint32_t>(flags_.size()));
  if (inserted) flags_.push_back(FlagState{flag, 0, 0, 0, {}});
  return it->second;
}

const FlagStore::FlagState* FlagStore::find(FlagRef flag) const {
  const auto it = index_.find(flag);
  return it == index_.end() ? nullptr : &flags_[it->second];
}

void FlagStore::atomic_add(FlagRef flag, std::uint64_t operand, FlagAccess access, sim::Handler on_done,
                           std::uint64_t tag) {
  atomics_count_->add();
  issue(OpKind::kAdd, flag, operand, 0, access, on_done, tag);
}

void FlagStore::atomic_exchange(FlagRef flag, std::uint64_t value, FlagAccess access, sim::Handler on_done,
                                std::uint64_t tag) {
  atomics_count_->add();
  issue(OpKind::kExchange, flag, value, 0, access, on_done, tag);
}

void FlagStore::atomic_cas(FlagRef flag, std::uint64_t expected, std::uint64_t desired, FlagAccess access,
                           sim::Handler on_done, std::uint64_t tag) {
  atomics_count_->add();
  issue(OpKind::kCas, flag, desired, expected, access, on_done, tag);
}

void FlagStore::release_store(FlagRef flag, std::uint64_t value, FlagAccess access, sim::Handler on_performed,
                              std::uint64_t tag) {
  stores_->add();
  issue(OpKind::kStore, flag, value, 0, access, on_performed, tag);
}

void FlagStore::load(FlagRef flag, FlagAccess access, sim::Handler on_done, std::uint64_t tag) {
  if (!on_done) throw std::invalid_argument("a load needs a handler for its value");
  issue(OpKind::kLoad, flag, 0, 0, access, on_done, tag);
}

void FlagStore::issue(OpKind kind, FlagRef flag, std::uint64_t operand, std::uint64_t expected, FlagAccess access,
                      sim::Handler handler, std::uint64_t tag) {
  const sim::Tick latency = access_latency_ps(flag, access);
  const sim::Tick request = latency / 2;
  // A store is posted: its handler, if any, runs at the home when it is performed.
  const sim::Tick response = kind == OpKind::kStore ? 0 : latency - request;
  const std::uint32_t op =
      take(ops_, free_ops_, Op{kind, flag_index(flag), operand, expected, response, handler, tag});
  const sim::Priority priority = kind == OpKind::kLoad ? kReadPriority : kWritePriority;
  schedule_self<&FlagStore::on_arrive>(this, request, sim::Payload{op, 0}, priority);
}

void FlagStore::on_arrive(const sim::Payload& payload) {
  const auto op = static_cast<std::uint32_t>(payload.a);
  if (ops_[op].kind == OpKind::kLoad) {
    perform(op);
    return;
  }
  // Writes take the address one at a time, in arrival order.
  FlagState& f = flags_[ops_[op].flag];
  const sim::Tick at = std::max(now(), f.next_free_ps);
  f.next_free_ps = at + params_.service_ps;
  if (at == now()) {
    perform(op);
  } else {
    engine().schedule_at(at, sim::bind<&FlagStore::on_perform>(this), sim::Payload{op, 0}, kWritePriority);
  }
}

void FlagStore::on_perform(const sim::Payload& payload) { perform(static_cast<std::uint32_t>(payload.a)); }

void FlagStore::perform(std::uint32_t op_index) {
  const Op op = ops_[op_index];
  free_ops_.push_back(op_index);
  FlagState& f = flags_[op.flag];
  const std::uint64_t old = f.value;
  std::uint64_t result = old;  // what the issuer gets back: the old value (the value, for loads and stores)
  switch (op.kind) {
    case OpKind::kAdd: f.value = old + op.operand; break;
    case OpKind::kExchange: f.value = op.operand; break;
    case OpKind::kCas:
      if (old == op.expected) f.value = op.operand;
      break;
    case OpKind::kStore:
      f.value = op.operand;
      result = op.operand;
      break;
    case OpKind::kLoad: break;
  }
  if (op.kind != OpKind::kLoad) {
    f.last_release_ps = now();
    if (f.value != old) notify(op.flag);
  }
  if (op.handler) engine().schedule(op.response_ps, op.handler, sim::Payload{op.tag, result});
}

void FlagStore::wait_until(FlagRef flag, Compare op, std::uint64_t target, FlagAccess access,
                           sim::Handler on_satisfied, std::uint64_t tag) {
  if (!on_satisfied) throw std::invalid_argument("a wait needs a handler");
  const sim::Tick latency = access_latency_ps(flag, access);
  const sim::Tick request = latency / 2;
  const std::uint32_t f = flag_index(flag);
  const std::uint32_t w = take(waiters_, free_waiters_,
                               Waiter{f, access.issuer_gpu, op, target, now(), now() + request,
                                      poll_period_ps(latency), latency - request, on_satisfied, tag,
                                      next_wait_sequence_++, true, true});
  flags_[f].waiters.push_back(w);
  ++num_waiting_;
  // Read 0 is always simulated; later reads only when a write makes the predicate hold.
  engine().schedule_at(now() + request, sim::bind<&FlagStore::on_check>(this), sim::Payload{w, 0}, kReadPriority);
}

void FlagStore::notify(std::uint32_t flag) {
  const FlagState& f = flags_[flag];
  for (const std::uint32_t w : f.waiters) {
    Waiter& waiter = waiters_[w];
    if (waiter.check_pending || !holds(waiter.op, f.value, waiter.target)) continue;
    // The first read performed at or after now: p_k = first + k T >= now.
    sim::Tick at = waiter.first_read_ps;
    if (now() > at) {
      const sim::Tick k = (now() - at + waiter.period_ps - 1) / waiter.period_ps;
      at += k * waiter.period_ps;
    }
    waiter.check_pending = true;
    engine().schedule_at(at, sim::bind<&FlagStore::on_check>(this), sim::Payload{w, 0}, kReadPriority);
  }
}

void FlagStore::on_check(const sim::Payload& payload) {
  const auto w = static_cast<std::uint32_t>(payload.a);
  Waiter& waiter = waiters_[w];
  waiter.check_pending = false;
  FlagState& f = flags_[waiter.flag];
  if (!holds(waiter.op, f.value, waiter.target)) return;  // missed: keeps waiting for the next write
  const sim::Tick reads = (now() - waiter.first_read_ps) / waiter.period_ps + 1;
  polls_->add(reads);
  waits_->add();
  const sim::Tick seen_ps = now() + waiter.response_ps;
  wait_ps_->sample(static_cast<double>(seen_ps - waiter.since_ps));
  engine().schedule(waiter.response_ps, waiter.handler, sim::Payload{waiter.tag, f.value});
  f.waiters.erase(std::find(f.waiters.begin(), f.waiters.end(), w));
  waiter.live = false;
  free_waiters_.push_back(w);
  --num_waiting_;
}

void FlagStore::set(FlagRef flag, std::uint64_t value) {
  const std::uint32_t f = flag_index(flag);
  flags_[f].value = value;
  notify(f);
}

std::uint64_t FlagStore::value(FlagRef flag) const {
  const FlagState* f = find(flag);
  return f ? f->value : 0;
}

sim::Tick FlagStore::last_release_ps(FlagRef flag) const {
  const FlagState* f = find(flag);
  return f ? f->last_release_ps : 0;
}

std::vector<PendingWait> FlagStore::pending_waits() const {
  std::vector<const Waiter*> live;
  for (const Waiter& w : waiters_) {
    if (w.live) live.push_back(&w);
  }
  std::sort(live.begin(), live.end(), [](const Waiter* a, const Waiter* b) { return a->sequence < b->sequence; });
  std::vector<PendingWait> out;
  out.reserve(live.size());
  for (const Waiter* w : live) {
    const FlagState& f = flags_[w->flag];
    out.push_back(PendingWait{f.ref, w->waiter_gpu, w->op, w->target, f.value, w->since_ps});
  }
  return out;
}

}  // namespace tessera::models::sync

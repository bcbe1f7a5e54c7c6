#include "untimed_run.h"

#include <deque>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace tessera::workloads::patterns::test {

using trace::Op;
using trace::OpKind;

namespace {

// Disjoint, merged half-open byte ranges.
class IntervalSet {
 public:
  void add(std::int64_t lo, std::int64_t hi) {
    if (lo >= hi) return;
    auto it = ranges_.upper_bound(lo);
    if (it != ranges_.begin() && std::prev(it)->second >= lo) --it;
    while (it != ranges_.end() && it->first <= hi) {
      lo = std::min(lo, it->first);
      hi = std::max(hi, it->second);
      it = ranges_.erase(it);
    }
    ranges_.emplace(lo, hi);
  }
  bool covers(std::int64_t lo, std::int64_t hi) const {
    if (lo >= hi) return true;
    auto it = ranges_.upper_bound(lo);
    if (it == ranges_.begin()) return false;
    --it;
    return it->first <= lo && it->second >= hi;
  }

 private:
  std::map<std::int64_t, std::int64_t> ranges_;
};

struct Delivery {
  std::int64_t hi = 0;
  std::uint64_t seq = 0;
};

struct Workgroup {
  trace::Cursor cursor;
  std::optional<Op> pending;  // fetched, not yet executed (a wait that does not hold)
  bool done = false;
  std::map<std::uint32_t, IntervalSet> acquired;  // by buffer, on this rank
};

struct KernelRun {
  enum class State { kIdle, kQueued, kRunning, kDone } state = State::kIdle;
  std::uint64_t start_seq = 0;
  std::vector<Workgroup> wgs;
  std::uint64_t live = 0;
};

class Runner {
 public:
  Runner(const trace::Trace& t, const Observer& observe) : t_(t), observe_(observe) {
    for (const trace::Program& p : t.programs) compiled_.emplace_back(p);
    for (const trace::Program& p : t.programs) {
      for (const trace::Instr& in : p.instrs) {
        if (in.kind == OpKind::kStore) produced_.insert(in.buffer);
      }
    }
    kernels_.resize(t.kernels.size());
    host_pc_.assign(t.ranks, 0);
    arrivals_.assign(t.ranks, 0);
    at_barrier_.assign(t.ranks, false);
  }

  RunReport run() {
    bool progress = true;
    while (progress) {
      progress = false;
      for (std::uint32_t r = 0; r < t_.ranks; ++r) progress |= step_host(r);
      for (std::uint32_t k = 0; k < kernels_.size(); ++k) progress |= step_kernel(k);
    }
    report_.completed = true;
    for (std::uint32_t r = 0; r < t_.ranks; ++r) {
      if (host_pc_[r] < t_.host[r].size()) report_.completed = false;
    }
    for (std::uint32_t k = 0; k < kernels_.size(); ++k) {
      if (kernels_[k].state == KernelRun::State::kDone) continue;
      report_.completed = false;
      for (std::uint64_t w = 0; w < kernels_[k].wgs.size(); ++w) {
        const Workgroup& wg = kernels_[k].wgs[w];
        if (!wg.done && wg.pending) {
          const Op& op = *wg.pending;
          violate(fmt::format("deadlock: kernel '{}' rank {} wg {} waits on flag ({}, {}) {} {} (value {})",
                              t_.kernels[k].name, t_.kernels[k].rank, w, op.flag_rank(), op.flag_id(),
                              models::sync::compare_name(op.compare), op.value(), flag(op.flag_rank(), op.flag_id())));
          break;
        }
      }
      if (kernels_[k].state != KernelRun::State::kRunning) {
        violate(fmt::format("kernel '{}' of rank {} never ran", t_.kernels[k].name, t_.kernels[k].rank));
      }
    }
    return report_;
  }

 private:
  void violate(std::string what) {
    if (!report_.violation) report_.violation = std::move(what);
  }

  std::uint64_t flag(std::int64_t rank, std::int64_t id) const {
    auto it = flags_.find({rank, id});
    return it == flags_.end() ? 0 : it->second;
  }

  bool step_host(std::uint32_t r) {
    bool progress = false;
    const auto& cmds = t_.host[r];
    while (host_pc_[r] < cmds.size()) {
      const trace::HostCommand& c = cmds[host_pc_[r]];
      if (c.op == trace::HostOp::kLaunch) {
        kernels_[c.kernel].state = KernelRun::State::kQueued;
        streams_[{r, t_.kernels[c.kernel].stream}].push_back(c.kernel);
      } else if (c.op == trace::HostOp::kSync) {
        for (std::uint32_t k = 0; k < kernels_.size(); ++k) {
          const auto s = kernels_[k].state;
          if (t_.kernels[k].rank == r && (s == KernelRun::State::kQueued || s == KernelRun::State::kRunning)) {
            return progress;
          }
        }
      } else if (c.op == trace::HostOp::kDelay) {
        // Untimed: a host delay orders nothing.
      } else {
        if (!at_barrier_[r]) {
          at_barrier_[r] = true;
          ++arrivals_[r];
          progress = true;
        }
        for (std::uint32_t q = 0; q < t_.ranks; ++q) {
          if (arrivals_[q] < arrivals_[r]) return progress;
        }
        at_barrier_[r] = false;
      }
      ++host_pc_[r];
      progress = true;
    }
    return progress;
  }

  bool start_if_head(std::uint32_t k) {
    const trace::Kernel& kn = t_.kernels[k];
    auto& queue = streams_[{kn.rank, kn.stream}];
    if (queue.empty() || queue.front() != k) return false;
    KernelRun& run = kernels_[k];
    run.state = KernelRun::State::kRunning;
    run.start_seq = seq_;
    run.wgs.resize(kn.grid);
    for (std::uint64_t w = 0; w < kn.grid; ++w) run.wgs[w].cursor = trace::Cursor(compiled_[kn.program], kn, w, t_.ranks);
    run.live = kn.grid;
    return true;
  }

  bool step_kernel(std::uint32_t k) {
    KernelRun& run = kernels_[k];
    bool progress = false;
    if (run.state == KernelRun::State::kQueued) progress = start_if_head(k);
    if (run.state != KernelRun::State::kRunning) return progress;
    for (std::uint64_t w = 0; w < run.wgs.size(); ++w) {
      Workgroup& wg = run.wgs[w];
      while (!wg.done) {
        if (!wg.pending) {
          Op op;
          if (!wg.cursor.next(op)) {
            wg.done = true;
            --run.live;
            progress = true;
            break;
          }
          wg.pending = op;
        }
        if (!execute(k, w, wg, *wg.pending)) break;
        observe(k, w, *wg.pending);
        wg.pending.reset();
        progress = true;
      }
    }
    if (run.live == 0) {
      run.state = KernelRun::State::kDone;
      const trace::Kernel& kn = t_.kernels[k];
      streams_[{kn.rank, kn.stream}].pop_front();
      progress = true;
    }
    return progress;
  }

  void observe(std::uint32_t k, std::uint64_t w, const Op& op) {
    ++report_.ops;
    if (observe_) observe_(ExecutedOp{k, t_.kernels[k].rank, w, op});
  }

  bool range_ok(std::uint32_t k, const Op& op, std::uint32_t buffer, std::int64_t owner, std::int64_t offset,
                std::int64_t bytes) {
    const trace::Kernel& kn = t_.kernels[k];
    const auto where = [&] {
      return fmt::format("kernel '{}' rank {} instr {} ({})", kn.name, kn.rank, op.instr, trace::op_name(op.kind));
    };
    if (buffer >= t_.buffers.size()) {
      violate(where() + ": no such buffer");
      return false;
    }
    if (owner < 0 || owner >= static_cast<std::int64_t>(t_.ranks)) {
      violate(where() + fmt::format(": rank {} of {}", owner, t_.ranks));
      return false;
    }
    const auto size = static_cast<std::int64_t>(t_.buffers[buffer].bytes);
    if (bytes <= 0 || offset < 0 || offset + bytes > size) {
      violate(where() + fmt::format(": [{}, +{}) outside '{}' ({} bytes)", offset, bytes, t_.buffers[buffer].name, size));
      return false;
    }
    return true;
  }

  // Executes `op`; false when it is a wait that does not hold yet.
  bool execute(std::uint32_t k, std::uint64_t w, Workgroup& wg, const Op& op) {
    const trace::Kernel& kn = t_.kernels[k];
    const auto flag_rank_ok = [&] {
      if (op.flag_rank() < 0 || op.flag_rank() >= static_cast<std::int64_t>(t_.ranks)) violate(fmt::format("flag rank {} of {}", op.flag_rank(), t_.ranks));
    };
    ++seq_;
    switch (op.kind) {
      case OpKind::kCompute: return true;
      case OpKind::kWaitLoad: return true;  // loads are checked at their issue, the earliest they can read
      case OpKind::kLoad:
      case OpKind::kLoadAsync: {
        if (!range_ok(k, op, op.buffer, op.rank(), op.offset(), op.bytes())) return true;
        const std::int64_t lo = op.offset();
        const std::int64_t hi = op.offset() + op.bytes();
        if (produced_.count(op.buffer) && !written_[{op.rank(), op.buffer}].covers(lo, hi)) {
          violate(fmt::format("kernel '{}' rank {} wg {} instr {}: loads '{}'[{}, {}) of rank {} before it was written",
                              kn.name, kn.rank, w, op.instr, t_.buffers[op.buffer].name, lo, hi, op.rank()));
        }
        if (op.rank() == static_cast<std::int64_t>(kn.rank)) check_acquired(k, w, wg, op, lo, hi);
        return true;
      }
      case OpKind::kStore:
      case OpKind::kAtomicAddRange: {  // an atomic add of a range writes it at the owner, as a store does
        if (!range_ok(k, op, op.buffer, op.rank(), op.offset(), op.bytes())) return true;
        written_[{op.rank(), op.buffer}].add(op.offset(), op.offset() + op.bytes());
        if (op.rank() != static_cast<std::int64_t>(kn.rank)) deliveries_[{op.rank(), op.buffer}][op.offset()] = Delivery{op.offset() + op.bytes(), seq_};
        return true;
      }
      case OpKind::kAtomicAdd:
        flag_rank_ok();
        flags_[{op.flag_rank(), op.flag_id()}] += static_cast<std::uint64_t>(op.value());
        return true;
      case OpKind::kAtomicXchg:
      case OpKind::kRelease:
        flag_rank_ok();
        flags_[{op.flag_rank(), op.flag_id()}] = static_cast<std::uint64_t>(op.value());
        return true;
      case OpKind::kWait: {
        flag_rank_ok();
        if (!models::sync::holds(op.compare, flag(op.flag_rank(), op.flag_id()), static_cast<std::uint64_t>(op.value()))) {
          --seq_;
          return false;
        }
        if (op.buffer != trace::kNoBuffer && range_ok(k, op, op.buffer, kn.rank, op.acquire_offset(), op.acquire_bytes())) {
          wg.acquired[op.buffer].add(op.acquire_offset(), op.acquire_offset() + op.acquire_bytes());
        }
        return true;
      }
      default:
        throw std::logic_error(fmt::format("untimed run: {} is not supported", trace::op_name(op.kind)));
    }
  }

  // A local load of bytes that a peer's store delivered while this kernel ran must have been
  // acquired by this workgroup (deliveries before the kernel started are acquired by its launch).
  void check_acquired(std::uint32_t k, std::uint64_t w, const Workgroup& wg, const Op& op, std::int64_t lo,
                      std::int64_t hi) {
    auto dit = deliveries_.find({op.rank(), op.buffer});
    if (dit == deliveries_.end()) return;
    const auto& ranges = dit->second;
    auto it = ranges.upper_bound(lo);
    if (it != ranges.begin()) --it;
    const auto acquired = wg.acquired.find(op.buffer);
    for (; it != ranges.end() && it->first < hi; ++it) {
      if (it->second.hi <= lo || it->second.seq < kernels_[k].start_seq) continue;
      const std::int64_t a = std::max(lo, it->first);
      const std::int64_t b = std::min(hi, it->second.hi);
      if (acquired == wg.acquired.end() || !acquired->second.covers(a, b)) {
        violate(fmt::format("kernel '{}' rank {} wg {} instr {}: loads '{}'[{}, {}) delivered by a peer without "
                            "acquiring it first",
                            t_.kernels[k].name, t_.kernels[k].rank, w, op.instr, t_.buffers[op.buffer].name, a, b));
        return;
      }
    }
  }

  const trace::Trace& t_;
  const Observer& observe_;
  std::deque<trace::CompiledProgram> compiled_;
  std::set<std::uint32_t> produced_;
  std::vector<KernelRun> kernels_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::deque<std::uint32_t>> streams_;
  std::vector<std::size_t> host_pc_;
  std::vector<std::uint64_t> arrivals_;
  std::vector<bool> at_barrier_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::uint64_t> flags_;
  std::map<std::pair<std::int64_t, std::uint32_t>, IntervalSet> written_;
  std::map<std::pair<std::int64_t, std::uint32_t>, std::map<std::int64_t, Delivery>> deliveries_;
  std::uint64_t seq_ = 0;
  RunReport report_;
};

}  // namespace

RunReport run_untimed(const trace::Trace& trace, const Observer& observe) { return Runner(trace, observe).run(); }

std::uint64_t walk_all(const trace::Trace& trace, const Observer& observe) {
  std::vector<trace::CompiledProgram> compiled;
  compiled.reserve(trace.programs.size());
  for (const trace::Program& p : trace.programs) compiled.emplace_back(p);
  std::uint64_t ops = 0;
  ExecutedOp e;
  for (std::uint32_t k = 0; k < trace.kernels.size(); ++k) {
    const trace::Kernel& kn = trace.kernels[k];
    e.kernel = k;
    e.rank = kn.rank;
    for (std::uint64_t w = 0; w < kn.grid; ++w) {
      trace::Cursor cursor(compiled[kn.program], kn, w, trace.ranks);
      e.wg = w;
      while (cursor.next(e.op)) {
        ++ops;
        if (observe) observe(e);
      }
    }
  }
  return ops;
}

}  // namespace tessera::workloads::patterns::test

#include "workloads/trace/trace.h"

#include <algorithm>

#include <fmt/format.h>

namespace tessera::workloads::trace {
namespace {

constexpr std::pair<std::string_view, OpKind> kOps[] = {
    {"compute", OpKind::kCompute}, {"load", OpKind::kLoad},       {"store", OpKind::kStore},
    {"atomic_add", OpKind::kAtomicAdd}, {"atomic_xchg", OpKind::kAtomicXchg}, {"release", OpKind::kRelease},
    {"wait", OpKind::kWait},       {"barrier", OpKind::kBarrier}, {"loop", OpKind::kLoop},
    {"end_loop", OpKind::kEndLoop}, {"set", OpKind::kSet}, {"atomic_add_range", OpKind::kAtomicAddRange},
    {"load_async", OpKind::kLoadAsync}, {"wait_load", OpKind::kWaitLoad}, {"delay", OpKind::kDelay},
};

bool uses_regs_ok(const Expr& e) {
  for (int i = 0; i < e.num_terms; ++i) {
    if (e.terms[i].var >= kNumVars || e.terms[i].div == 0) return false;
  }
  return true;
}

}  // namespace

std::string_view op_name(OpKind kind) {
  for (const auto& [name, k] : kOps) {
    if (k == kind) return name;
  }
  return "?";
}

std::optional<OpKind> parse_op(std::string_view name) {
  for (const auto& [n, k] : kOps) {
    if (n == name) return k;
  }
  return std::nullopt;
}

std::string_view coherence_name(Coherence coherence) {
  return coherence == Coherence::kFine ? "fine" : "coarse";
}

std::string_view scope_name(BarrierScope scope) {
  switch (scope) {
    case BarrierScope::kWorkgroup: return "workgroup";
    case BarrierScope::kDevice: return "device";
    case BarrierScope::kAllRanks: return "all_ranks";
  }
  return "?";
}

std::optional<std::uint32_t> Trace::find_buffer(std::string_view name) const {
  for (std::uint32_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].name == name) return i;
  }
  return std::nullopt;
}

std::optional<std::uint32_t> Trace::find_program(std::string_view name) const {
  for (std::uint32_t i = 0; i < programs.size(); ++i) {
    if (programs[i].name == name) return i;
  }
  return std::nullopt;
}

std::uint32_t version_of(OpKind kind) {
  switch (kind) {
    case OpKind::kAtomicAddRange: return 2;
    case OpKind::kLoadAsync:
    case OpKind::kWaitLoad: return 3;
    case OpKind::kDelay: return kWorkgroupDelayVersion;
    default: return kOldestTraceVersion;
  }
}

bool has_compute_demand(const Instr& in) {
  return in.kind == OpKind::kCompute &&
         (!(in.b == Expr()) || !(in.c == Expr()) || !(in.d == Expr()) || !(in.e == Expr()));
}

std::uint32_t required_version(const Trace& t) {
  std::uint32_t version = kOldestTraceVersion;
  for (const Program& p : t.programs) {
    for (const Instr& in : p.instrs) {
      version = std::max(version, version_of(in.kind));
      if (has_compute_demand(in)) version = std::max(version, kComputeDemandVersion);
    }
  }
  for (const Kernel& k : t.kernels) {
    if (k.collective) version = std::max(version, kCollectiveKernelVersion);
    if (k.footprint.any()) version = std::max(version, kKernelFootprintVersion);
  }
  for (const std::vector<HostCommand>& commands : t.host) {
    for (const HostCommand& c : commands) {
      if (c.op == HostOp::kDelay) version = std::max(version, kHostDelayVersion);
    }
  }
  for (const Buffer& b : t.buffers) {
    if (b.coherence != Coherence::kCoarse) version = std::max(version, kBufferCoherenceVersion);
  }
  return version;
}

std::optional<std::string> validate(const Trace& t) {
  if (t.version < kOldestTraceVersion || t.version > kTraceVersion) {
    return fmt::format("trace version {} (this Tessera reads versions {} to {})", t.version, kOldestTraceVersion,
                       kTraceVersion);
  }
  if (t.ranks == 0) return "ranks must be at least 1";
  for (const Buffer& b : t.buffers) {
    if (b.bytes == 0) return fmt::format("buffer '{}': size must be positive", b.name);
    if (b.coherence != Coherence::kCoarse && t.version < kBufferCoherenceVersion) {
      return fmt::format("buffer '{}': coherence {} needs format version {} (the trace is version {})", b.name,
                         coherence_name(b.coherence), kBufferCoherenceVersion, t.version);
    }
  }
  for (const Program& p : t.programs) {
    int depth = 0;
    for (std::size_t i = 0; i < p.instrs.size(); ++i) {
      const Instr& in = p.instrs[i];
      const auto where = [&] { return fmt::format("program '{}' instruction {} ({})", p.name, i, op_name(in.kind)); };
      for (const Expr* e : {&in.a, &in.b, &in.c, &in.d, &in.e}) {
        if (!uses_regs_ok(*e)) return where() + ": bad variable in an expression";
      }
      if (t.version < version_of(in.kind)) {
        return where() + fmt::format(": needs format version {} (the trace is version {})", version_of(in.kind),
                                     t.version);
      }
      switch (in.kind) {
        case OpKind::kCompute:
          if (has_compute_demand(in) && t.version < kComputeDemandVersion) {
            return where() + fmt::format(": pipe demands need format version {} (the trace is version {})",
                                         kComputeDemandVersion, t.version);
          }
          break;
        case OpKind::kLoad:
        case OpKind::kStore:
        case OpKind::kAtomicAddRange:
          if (in.buffer >= t.buffers.size()) return where() + ": no such buffer";
          break;
        case OpKind::kLoadAsync:
          if (in.buffer >= t.buffers.size()) return where() + ": no such buffer";
          [[fallthrough]];
        case OpKind::kWaitLoad:
          if (in.target >= kNumLoadSlots) return where() + fmt::format(": slot {} (0..{})", in.target, kNumLoadSlots - 1);
          break;
        case OpKind::kWait:
          if (in.buffer != kNoBuffer && in.buffer >= t.buffers.size()) return where() + ": no such acquire buffer";
          break;
        case OpKind::kLoop:
          if (++depth > kNumLoopVars) return where() + fmt::format(": loops nest deeper than {}", kNumLoopVars);
          break;
        case OpKind::kEndLoop:
          if (--depth < 0) return where() + ": end_loop without loop";
          break;
        case OpKind::kSet:
          if (in.target >= kNumRegs) return where() + fmt::format(": register r{} (r0..r{})", in.target, kNumRegs - 1);
          break;
        default: break;
      }
    }
    if (depth != 0) return fmt::format("program '{}': {} loop(s) without end_loop", p.name, depth);
  }
  std::vector<int> launched(t.kernels.size(), 0);
  if (t.host.size() != t.ranks) return fmt::format("host commands for {} ranks, trace has {}", t.host.size(), t.ranks);
  for (std::uint32_t r = 0; r < t.host.size(); ++r) {
    std::uint64_t delays_ps = 0;
    for (const HostCommand& c : t.host[r]) {
      if (c.op == HostOp::kDelay) {
        if (t.version < kHostDelayVersion) {
          return fmt::format("rank {}: a host delay needs format version {} (the trace is version {})", r,
                             kHostDelayVersion, t.version);
        }
        // Each delay is checked before the sum, so the sum cannot wrap.
        if (c.delay_ps > kMaxHostDelayPs) {
          return fmt::format("rank {}: a host delay of {} ps (at most {} ps)", r, c.delay_ps, kMaxHostDelayPs);
        }
        if (delays_ps + c.delay_ps > kMaxHostDelayPs) {
          return fmt::format("rank {}: host delays add up to more than {} ps", r, kMaxHostDelayPs);
        }
        delays_ps += c.delay_ps;
      } else if (c.delay_ps != 0) {
        // Only a delay stores the field (binary and text): elsewhere it would not survive a round trip.
        return fmt::format("rank {}: a host command other than delay with delay_ps {}", r, c.delay_ps);
      }
      if (c.op != HostOp::kLaunch) continue;
      if (c.kernel >= t.kernels.size()) return fmt::format("rank {}: launch of kernel {} which does not exist", r, c.kernel);
      if (t.kernels[c.kernel].rank != r) {
        return fmt::format("rank {}: launches kernel '{}' of rank {}", r, t.kernels[c.kernel].name, t.kernels[c.kernel].rank);
      }
      ++launched[c.kernel];
    }
  }
  // A rank_barrier waits for every rank's barrier of the same ordinal: a rank with more of
  // them than another would wait forever at its extra ones.
  std::vector<std::size_t> barriers(t.host.size(), 0);
  for (std::uint32_t r = 0; r < t.host.size(); ++r) {
    for (const HostCommand& c : t.host[r]) barriers[r] += c.op == HostOp::kRankBarrier ? 1 : 0;
    if (barriers[r] != barriers[0]) {
      return fmt::format("rank {} has {} rank_barrier commands and rank 0 has {}: every rank must reach each barrier, "
                         "or the ranks with more wait forever",
                         r, barriers[r], barriers[0]);
    }
  }
  for (std::size_t k = 0; k < t.kernels.size(); ++k) {
    const Kernel& kn = t.kernels[k];
    if (kn.rank >= t.ranks) return fmt::format("kernel '{}': rank {} of {}", kn.name, kn.rank, t.ranks);
    if (kn.program >= t.programs.size()) return fmt::format("kernel '{}': no such program", kn.name);
    if (kn.grid == 0) return fmt::format("kernel '{}': grid must be at least 1", kn.name);
    if (kn.stream >= kMaxStreams) return fmt::format("kernel '{}': stream {} (0..{})", kn.name, kn.stream, kMaxStreams - 1);
    if (kn.collective && t.version < kCollectiveKernelVersion) {
      return fmt::format("kernel '{}': collective needs format version {} (the trace is version {})", kn.name,
                         kCollectiveKernelVersion, t.version);
    }
    if (kn.footprint.any() && t.version < kKernelFootprintVersion) {
      return fmt::format("kernel '{}': a footprint (waves, registers, lds_bytes) needs format version {} (the trace is "
                         "version {})",
                         kn.name, kKernelFootprintVersion, t.version);
    }
    if (kn.args.size() > static_cast<std::size_t>(kNumRegs)) return fmt::format("kernel '{}': more than {} arguments", kn.name, kNumRegs);
    for (const Expr& e : kn.args) {
      for (int i = 0; i < e.num_terms; ++i) {
        if (e.terms[i].var > static_cast<std::uint8_t>(Var::kNumRanks)) {
          return fmt::format("kernel '{}': arguments may use wg, nwg, rank, nranks only", kn.name);
        }
      }
    }
    if (launched[k] != 1) return fmt::format("kernel '{}' is launched {} times (exactly once expected)", kn.name, launched[k]);
  }
  return std::nullopt;
}

TraceStats stats_of(const Trace& t) {
  TraceStats s;
  for (const Program& p : t.programs) s.instructions += p.instrs.size();
  for (const Kernel& k : t.kernels) s.workgroups += k.grid;
  for (const Buffer& b : t.buffers) s.buffer_bytes_per_rank += b.bytes;
  return s;
}

}  // namespace tessera::workloads::trace

#include "workloads/trace/builder.h"

namespace tessera::workloads::trace {

Trace TraceBuilder::build() && {
  trace_.version = required_version(trace_);
  if (auto problem = validate(trace_)) throw std::invalid_argument("generated trace: " + *problem);
  return std::move(trace_);
}

}  // namespace tessera::workloads::trace

#include "workloads/patterns/nccl_kernels.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "workloads/patterns/gemm_tiling.h"
#include "workloads/patterns/reduce_scatter.h"

namespace tessera::workloads::patterns {
namespace {

using trace::Expr;
using trace::ProgramBuilder;

// Registers.
constexpr int kRegBase = 0;      // (this channel's and loop's first slice) x elements
constexpr int kRegLo = 1;        // k x E: the slice's first element times Q (see Layout)
constexpr int kRegHi = 2;        // (k + 1) x E
constexpr int kRegSent = 3;      // slices this workgroup has stored into its receiver's FIFO
constexpr int kRegReceived = 4;  // slices it has taken from its own FIFO
constexpr int kRegClass = 5;     // scratch: which ring (stride class) this workgroup's channel is on
// The load slot of a reduction's two sources (load_async / wait_load).
constexpr std::uint8_t kSourcesSlot = 0;

std::int64_t i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

// What one ring step does with each slice (NCCL's primitives are combinations of these).
enum Prim : unsigned {
  kRecv = 1,     // wait for the slice in this rank's FIFO and read it
  kInput = 2,    // read this rank's input range
  kReduce = 4,   // add the received slice and the input
  kSend = 8,     // store the slice into the next rank's FIFO and release its tail
  kOutput = 16,  // store the slice into this rank's output
};

struct Step {
  unsigned prims = 0;
  std::uint32_t chunk = 0;  // all_reduce: the chunk of the loop; all_gather, reduce_scatter: the block
};

// The data a channel walks: slice k of Q covers elements [k E / Q, (k+1) E / Q) of a unit of E
// elements (the whole buffer, or for all_gather and reduce_scatter one rank's block), with
// k = ((channel x loops + loop) x chunks_per_loop + chunk) x slices + slice.
struct Layout {
  std::uint32_t channels = 1;
  std::uint64_t loops = 1;
  std::uint32_t chunks_per_loop = 1;  // all_reduce's ring: R chunks per loop; else 1
  std::uint32_t slices = 1;
  std::uint64_t elements = 0;   // E
  std::uint32_t element_bytes = 2;
  std::uint64_t block_bytes = 0;  // all_gather, reduce_scatter: a rank's block (chunk offsets)
  std::uint64_t quotient() const { return channels * loops * chunks_per_loop * slices; }
  // FIFO
  std::uint32_t fifo_slices = 8;
  std::uint64_t slot_bytes = 0;       // wire bytes of the largest slice
  std::uint64_t fifo_channel_bytes = 0;
  std::uint64_t ll128_flag_bytes = 0;  // LL128: flag bytes of a slice (8 per 120 data bytes)
  NcclProtocol protocol = NcclProtocol::kSimple;
};

// Where a workgroup's flags and FIFO are: group 0 the ring (or the tree's way up), group 1 the
// tree's way down; one tail/credit pair and one FIFO per (group, channel) on the receiving rank.
Expr channel_of_wg(std::uint32_t channels) { return trace::mod(trace::wg(), channels); }

Expr tail_flag(const Layout& l, std::uint64_t flag_base, std::uint32_t group) {
  return Expr(i64(flag_base + 2ULL * group * l.channels)) + channel_of_wg(l.channels) * 2;
}
Expr credit_flag(const Layout& l, std::uint64_t flag_base, std::uint32_t group) {
  return tail_flag(l, flag_base, group) + Expr(1);
}
Expr fifo_slot(const Layout& l, std::uint32_t group, int counter_reg) {
  return Expr(i64(std::uint64_t{group} * l.channels * l.fifo_channel_bytes)) +
         channel_of_wg(l.channels) * i64(l.fifo_channel_bytes) +
         trace::mod(trace::reg(counter_reg), l.fifo_slices) * i64(l.slot_bytes);
}

struct Peers {
  std::uint32_t self = 0;
  std::uint32_t send_to = 0;    // receiver of this workgroup's sends
  std::uint32_t recv_from = 0;  // sender of what this workgroup receives
  std::uint32_t send_group = 0;
  std::uint32_t recv_group = 0;
};

class ProgramWriter {
 public:
  ProgramWriter(ProgramBuilder& p, const Layout& layout, const NcclKernelSpec& spec)
      : p_(p), l_(layout), spec_(spec) {}

  // The credits of a FIFO that starts empty: the receiver grants its sender every slot.
  void grant_initial_credits(const Peers& peers) {
    p_.release(Expr(peers.recv_from), credit_flag(l_, spec_.flag_base, peers.recv_group), Expr(l_.fifo_slices));
  }

  // The loops over this channel's data with `steps` per loop; `depth` is the first free loop counter.
  void loops(const std::vector<Step>& steps, const Peers& peers, int depth) {
    const std::uint64_t per_loop = std::uint64_t{l_.chunks_per_loop} * l_.slices * l_.elements;
    p_.loop(Expr(i64(l_.loops)));
    p_.set(kRegBase, channel_of_wg(l_.channels) * i64(l_.loops * per_loop) + trace::loop(depth) * i64(per_loop));
    for (const Step& s : steps) step(s, peers, depth + 1);
    p_.end_loop();
  }

 private:
  void step(const Step& s, const Peers& peers, int depth) {
    const auto q = static_cast<std::uint32_t>(l_.quotient());
    const auto e = static_cast<std::int64_t>(l_.element_bytes);
    const bool chunk_in_index = l_.chunks_per_loop > 1;
    p_.loop(Expr(l_.slices));
    p_.set(kRegLo, trace::reg(kRegBase) + Expr(chunk_in_index ? i64(s.chunk * l_.slices * l_.elements) : 0) +
                       trace::loop(depth) * i64(l_.elements));
    p_.set(kRegHi, trace::reg(kRegLo) + Expr(i64(l_.elements)));
    const Expr lo = trace::div(trace::reg(kRegLo), q) * e;
    const Expr bytes = trace::div(trace::reg(kRegHi), q) * e - lo;
    const Expr block = Expr(chunk_in_index ? 0 : i64(s.chunk * l_.block_bytes));
    const Expr wire = l_.protocol == NcclProtocol::kLL      ? bytes * 2
                      : l_.protocol == NcclProtocol::kLL128 ? bytes + Expr(i64(l_.ll128_flag_bytes))
                                                            : bytes;
    const Expr me(peers.self);
    const bool reduce_scatter = spec_.op == CollectiveOp::kReduceScatter;
    const bool all_gather = spec_.op == CollectiveOp::kAllGather;
    // The input is the whole buffer, except all_gather's (this rank's block, or in place its block
    // of the output); the output is the whole buffer, except reduce_scatter's (this rank's block).
    const Expr input_at = all_gather && !spec_.in_place ? lo : block + lo;
    const Expr output_at = reduce_scatter ? lo : block + lo;

    // A reduction's two sources are read together (NCCL's threads load both in one pass).
    const bool two_sources = (s.prims & kRecv) != 0u && (s.prims & kInput) != 0u;
    if ((s.prims & kRecv) != 0u) {
      const Expr slot = fifo_slot(l_, peers.recv_group, kRegReceived);
      p_.wait(me, tail_flag(l_, spec_.flag_base, peers.recv_group), models::sync::Compare::kGe,
              trace::reg(kRegReceived) + Expr(1), spec_.fifo_buffer, slot, wire);
      if (two_sources) {
        p_.load_async(spec_.fifo_buffer, me, slot, wire, kSourcesSlot);
      } else {
        p_.load(spec_.fifo_buffer, me, slot, wire);
      }
    }
    if ((s.prims & kInput) != 0u) p_.load(spec_.input_buffer, me, input_at, bytes);
    if (two_sources) p_.wait_load(kSourcesSlot);
    if ((s.prims & kReduce) != 0u) {
      p_.compute((trace::div(trace::reg(kRegHi), q) - trace::div(trace::reg(kRegLo), q)) * kFlopsPerAdd,
                 models::compute::Dtype::kFp32);
    }
    if ((s.prims & kSend) != 0u) {
      const Expr slot = fifo_slot(l_, peers.send_group, kRegSent);
      p_.wait(me, credit_flag(l_, spec_.flag_base, peers.send_group), models::sync::Compare::kGe,
              trace::reg(kRegSent) + Expr(1));
      p_.store(spec_.fifo_buffer, Expr(peers.send_to), slot, wire);
      p_.release(Expr(peers.send_to), tail_flag(l_, spec_.flag_base, peers.send_group), trace::reg(kRegSent) + Expr(1));
      p_.set(kRegSent, trace::reg(kRegSent) + Expr(1));
    }
    if ((s.prims & kOutput) != 0u) p_.store(spec_.output_buffer, me, output_at, bytes);
    if ((s.prims & kRecv) != 0u) {
      p_.release(Expr(peers.recv_from), credit_flag(l_, spec_.flag_base, peers.recv_group),
                 trace::reg(kRegReceived) + Expr(1 + l_.fifo_slices));
      p_.set(kRegReceived, trace::reg(kRegReceived) + Expr(1));
    }
    p_.end_loop();
  }

  ProgramBuilder& p_;
  const Layout& l_;
  const NcclKernelSpec& spec_;
};

std::uint32_t modulo(std::int64_t v, std::uint32_t n) {
  const auto m = static_cast<std::int64_t>(n);
  return static_cast<std::uint32_t>(((v % m) + m) % m);
}

// The ring steps of the rank at position r of its ring (NCCL's runRing, nccl_kernels.h's table);
// chunks are numbered by ring position, as NCCL's ringIx.
std::vector<Step> ring_steps(CollectiveOp op, std::uint32_t r, std::uint32_t n, std::uint32_t root, bool in_place) {
  const auto ri = static_cast<std::int64_t>(r);
  std::vector<Step> steps;
  if (n == 1) return {{kInput | kOutput, 0}};
  switch (op) {
    case CollectiveOp::kAllReduce:
      steps.push_back({kInput | kSend, modulo(ri - 1, n)});
      for (std::uint32_t j = 2; j < n; ++j) steps.push_back({kRecv | kInput | kReduce | kSend, modulo(ri - j, n)});
      steps.push_back({kRecv | kInput | kReduce | kOutput | kSend, r});
      for (std::uint32_t j = 1; j + 1 < n; ++j) steps.push_back({kRecv | kOutput | kSend, modulo(ri - j, n)});
      steps.push_back({kRecv | kOutput, modulo(ri + 1, n)});
      break;
    case CollectiveOp::kAllGather:
      steps.push_back({in_place ? kInput | kSend : kInput | kOutput | kSend, r});
      for (std::uint32_t j = 1; j + 1 < n; ++j) steps.push_back({kRecv | kOutput | kSend, modulo(ri - j, n)});
      steps.push_back({kRecv | kOutput, modulo(ri + 1, n)});
      break;
    case CollectiveOp::kReduceScatter:
      steps.push_back({kInput | kSend, modulo(ri - 1, n)});
      for (std::uint32_t j = 2; j < n; ++j) steps.push_back({kRecv | kInput | kReduce | kSend, modulo(ri - j, n)});
      steps.push_back({kRecv | kInput | kReduce | kOutput, r});
      break;
    case CollectiveOp::kBroadcast: {
      const std::uint32_t position = modulo(ri - root, n);
      steps.push_back({position == 0 ? kInput | kOutput | kSend : position + 1 < n ? kRecv | kOutput | kSend : kRecv | kOutput, 0});
      break;
    }
    case CollectiveOp::kReduce: {
      const std::uint32_t position = modulo(ri - root - 1, n);  // the chain starts after the root
      steps.push_back({position == 0       ? kInput | kSend
                       : position + 1 < n  ? kRecv | kInput | kReduce | kSend
                                           : kRecv | kInput | kReduce | kOutput,
                       0});
      break;
    }
    case CollectiveOp::kAllToAll: throw std::logic_error("nccl: all_to_all has no ring");
  }
  return steps;
}

// How many rings the channels spread over (ring_stride's strides), and the inverse of a
// stride modulo the ranks (the strides are odd or R - 1, so coprime with R).
std::uint32_t ring_classes(std::uint32_t ranks, bool spread) {
  if (!spread || ranks < 3) return 1;
  return (ranks & (ranks - 1)) == 0 ? ranks / 2 : 2;
}

std::uint32_t inverse_mod(std::uint32_t d, std::uint32_t n) {
  for (std::uint32_t x = 1; x < n; ++x) {
    if ((std::uint64_t{d} * x) % n == 1) return x;
  }
  return 1;  // n == 1
}

// The order of one class's ring: position p holds rank_at(p). Strided: rank p x d mod R (d
// coprime with R). Across nodes of n: node p / n's local GPU (p mod n + k) mod n.
struct RingOrder {
  std::uint32_t ranks = 1;
  std::uint32_t stride = 1;     // strided
  std::uint32_t node_ranks = 0;  // across nodes: n
  std::uint32_t offset = 0;      // across nodes: k

  static RingOrder strided(std::uint32_t ranks, std::uint32_t d) { return {ranks, d, 0, 0}; }
  static RingOrder across_nodes(std::uint32_t ranks, std::uint32_t n, std::uint32_t k) { return {ranks, 1, n, k % n}; }

  std::uint32_t rank_at(std::uint64_t position) const {
    const auto p = static_cast<std::uint32_t>(position % ranks);
    if (node_ranks == 0) return static_cast<std::uint32_t>((std::uint64_t{p} * stride) % ranks);
    return p - p % node_ranks + (p % node_ranks + offset) % node_ranks;
  }
  std::uint32_t position_of(std::uint32_t rank) const {
    if (node_ranks == 0) return static_cast<std::uint32_t>((std::uint64_t{rank} * inverse_mod(stride, ranks)) % ranks);
    return rank - rank % node_ranks + (rank % node_ranks + node_ranks - offset) % node_ranks;
  }
};

// A loop that runs once for the workgroups whose channel is in class k (channel mod classes ==
// k), else not at all: a trace program has no branches.
void open_if_class(ProgramBuilder& p, std::uint32_t k, std::uint32_t classes) {
  // r = (channel - k) mod classes, then 1 - floor((r + classes - 1) / classes) is 1 iff r == 0.
  p.set(kRegClass, trace::mod(trace::wg(), classes) + Expr(classes - k));
  p.set(kRegClass, trace::mod(trace::reg(kRegClass), classes) + Expr(classes - 1));
  p.loop(Expr(1) - trace::div(trace::reg(kRegClass), classes));
}

bool receives(const std::vector<Step>& steps) {
  return std::any_of(steps.begin(), steps.end(), [](const Step& s) { return (s.prims & kRecv) != 0u; });
}

std::uint64_t ll128_flag_bytes(std::uint64_t data_bytes) { return (data_bytes + 119) / 120 * 8; }

// A FIFO slot holds the largest slice on the wire, in whole 128-byte lines.
std::uint64_t slot_bytes_of(const NcclPlan& plan) {
  const std::uint64_t data = plan.slice_bytes;
  const std::uint64_t wire = plan.protocol == NcclProtocol::kLL      ? 2 * data
                             : plan.protocol == NcclProtocol::kLL128 ? data + ll128_flag_bytes(data)
                                                                     : data;
  return (wire + 127) / 128 * 128;
}

Layout layout_of(const NcclKernelSpec& spec, std::uint32_t ranks) {
  const NcclPlan& plan = spec.plan;
  Layout l;
  l.protocol = plan.protocol;
  l.element_bytes = element_bytes(spec.dtype);
  const bool blocks = spec.op == CollectiveOp::kAllGather || spec.op == CollectiveOp::kReduceScatter;
  const bool ring_all_reduce = spec.op == CollectiveOp::kAllReduce && plan.algorithm == NcclAlgorithm::kRing;
  const std::uint64_t unit_bytes = blocks ? spec.size_bytes / ranks : spec.size_bytes;
  l.elements = unit_bytes / l.element_bytes;
  l.block_bytes = blocks ? unit_bytes : 0;
  l.chunks_per_loop = ring_all_reduce ? ranks : 1;
  l.channels = std::max<std::uint32_t>(1, plan.channels);
  l.slices = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, plan.chunk_bytes / std::max<std::uint64_t>(1, plan.slice_bytes)));
  const std::uint64_t per_loop = std::uint64_t{l.channels} * l.chunks_per_loop * plan.chunk_bytes;
  l.loops = std::max<std::uint64_t>(1, (unit_bytes + per_loop - 1) / per_loop);
  // Too little data for every slice to hold an element: fewer slices, then fewer channels.
  while (l.quotient() > l.elements && l.slices > 1) l.slices = 1;
  while (l.quotient() > l.elements && l.channels > 1) --l.channels;
  l.fifo_slices = plan.fifo_slices;
  l.ll128_flag_bytes = ll128_flag_bytes(plan.slice_bytes);
  l.slot_bytes = slot_bytes_of(plan);
  l.fifo_channel_bytes = l.slot_bytes * l.fifo_slices;
  return l;
}

std::uint32_t lane_groups(const NcclPlan& plan) { return plan.algorithm == NcclAlgorithm::kTree ? 2 : 1; }

}  // namespace

std::uint64_t nccl_kernel_overhead_ps(const models::GpuSpec& gpu, NcclProtocol protocol) {
  const models::CollectiveLibrarySpec& c = gpu.collective_library;
  switch (protocol) {
    case NcclProtocol::kLL: return c.ll_kernel_overhead_ps;
    case NcclProtocol::kLL128: return c.ll128_kernel_overhead_ps;
    case NcclProtocol::kSimple: return c.simple_kernel_overhead_ps;
  }
  return 0;
}

std::uint64_t nccl_fifo_bytes(const NcclPlan& plan) {
  return std::uint64_t{lane_groups(plan)} * std::max<std::uint32_t>(1, plan.channels) * plan.fifo_slices *
         slot_bytes_of(plan);
}

std::uint64_t nccl_flags(const NcclPlan& plan) {
  return 2ULL * lane_groups(plan) * std::max<std::uint32_t>(1, plan.channels);
}

std::vector<std::uint32_t> append_nccl_collective(trace::TraceBuilder& builder, std::uint32_t ranks,
                                                  const NcclKernelSpec& spec) {
  if (ranks == 0) throw std::invalid_argument("nccl: ranks must be at least 1");
  const Layout l = layout_of(spec, ranks);
  const bool tree = spec.plan.algorithm == NcclAlgorithm::kTree;
  if (tree && spec.op != CollectiveOp::kAllReduce) throw std::invalid_argument("nccl: tree runs all_reduce only");
  std::vector<std::uint32_t> kernels;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    ProgramBuilder p(fmt::format("{}_rank{}", spec.name, r));
    if (spec.kernel_overhead_ps > 0) p.delay(Expr(i64(spec.kernel_overhead_ps)));
    p.set(kRegSent, Expr(0));
    p.set(kRegReceived, Expr(0));
    ProgramWriter w(p, l, spec);
    std::uint64_t grid = l.channels;
    if (!tree) {
      // One ring per class of channels: on a full mesh one per stride (so that they drive
      // different links, as NCCL's search gives each channel its own ring there); across nodes
      // one per GPU a node is entered at (so that every NIC carries crossings).
      const std::uint32_t classes = spec.node_ranks > 1 ? std::min(spec.node_ranks, l.channels)
                                                        : ring_classes(ranks, spec.spread_rings);
      for (std::uint32_t k = 0; k < classes; ++k) {
        const RingOrder order = spec.node_ranks > 1 ? RingOrder::across_nodes(ranks, spec.node_ranks, k)
                                                    : RingOrder::strided(ranks, ring_stride(ranks, k, spec.spread_rings));
        const std::uint32_t position = order.position_of(r);
        const std::vector<Step> steps = ring_steps(spec.op, position, ranks, order.position_of(spec.root), spec.in_place);
        const Peers peers{r, order.rank_at(position + 1), order.rank_at(position + ranks - 1), 0, 0};
        if (classes > 1) open_if_class(p, k, classes);
        if (ranks > 1 && receives(steps)) w.grant_initial_credits(peers);
        w.loops(steps, peers, classes > 1 ? 1 : 0);
        if (classes > 1) p.end_loop();
      }
    } else {
      // The chain 0 <- 1 <- ... <- R-1: workgroups [0, C) go up, [C, 2C) come down.
      grid = 2ULL * l.channels;
      const Expr up = Expr(1) - trace::div(trace::wg(), l.channels);
      const Expr down = trace::div(trace::wg(), l.channels);
      const bool root = r == 0;
      const bool leaf = r + 1 == ranks;
      const std::uint32_t parent = root ? r : r - 1;
      const std::uint32_t child = leaf ? r : r + 1;
      // Up: the leaf sends its input; the others add what their child sent; the root's sums go
      // into its output and down the chain (group 1).
      p.loop(up);
      {
        Step s;
        s.prims = (leaf ? kInput | kSend : kRecv | kInput | kReduce | kSend);
        Peers peers{r, parent, child, 0, 0};
        if (root) {
          s.prims = ranks == 1 ? kInput | kOutput : kRecv | kInput | kReduce | kOutput | kSend;
          peers.send_to = child;
          peers.send_group = 1;
        }
        if (ranks > 1 && !leaf) w.grant_initial_credits(peers);
        w.loops({s}, peers, 1);
      }
      p.end_loop();
      // Down: every rank but the root receives the sums, keeps them, and passes them on.
      p.loop(down);
      if (!root) {
        Step s;
        s.prims = leaf ? kRecv | kOutput : kRecv | kOutput | kSend;
        const Peers peers{r, child, parent, 1, 1};
        w.grant_initial_credits(peers);
        w.loops({s}, peers, 1);
      }
      p.end_loop();
    }
    const std::uint32_t program = builder.program(std::move(p));
    trace::Kernel k;
    k.name = spec.name;
    k.rank = r;
    k.stream = spec.stream;
    k.grid = grid;
    k.program = program;
    k.collective = true;
    kernels.push_back(builder.launch(std::move(k)));
  }
  return kernels;
}

}  // namespace tessera::workloads::patterns

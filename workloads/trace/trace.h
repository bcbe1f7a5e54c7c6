#pragma once
// The tile-level trace: what every workload becomes before replay (docs/trace-format.md).
//
// A trace has `ranks` GPUs; symmetric buffers (the same named buffer, same size, on every
// rank, as a symmetric heap: a peer's copy is addressed by its rank); workgroup *programs*;
// *kernels* (a grid of workgroups running one program on one rank's stream, with arguments
// that give each workgroup its registers); and per rank a *host* list of commands (launch a
// kernel, wait for the rank's streams, barrier with every rank's host, be busy for a while).
//
// A program is a list of instructions executed in order by each workgroup, with counted loops
// and integer registers, so one program serves a million workgroups (see expr.h). Operations:
//
// | op | fields | semantics |
// |---|---|---|
// | compute | flops, dtype [, lds_bytes, sfu_ops, vector_ops, phases] | matrix work on the workgroup's CU (shared with its other workgroups); the optional pipe demands (version 8) bound it by the CU's busiest pipe |
// | load / store | buffer, rank, offset, bytes | bytes of `buffer` on GPU `rank` (this GPU or a peer) |
// | atomic_add / atomic_xchg | flag rank, flag id, operand | a flag atomic; waits for the result |
// | atomic_add_range | buffer, rank, offset, bytes, dtype | adds the workgroup's `bytes` (elements of `dtype`) into the range element-wise, atomically, at the memory side of GPU `rank`; done when every element is performed |
// | release | flag rank, flag id, value | release-store: makes this workgroup's writes visible (its L2's dirty data written back where the L2 is private), then stores the flag; posted |
// | wait | flag rank, flag id, compare, value [, acquire buffer, offset, bytes] | spin until `flag <compare> value`; then acquire the range (drop this die's stale L2 copies) |
// | barrier | scope, id | workgroup: none; device: every workgroup of this kernel; all_ranks: every workgroup of the kernels of this name on every rank |
// | load_async | buffer, rank, offset, bytes, slot | a load that does not block: the workgroup goes on at once; `slot` (0..7) names it for wait_load (version 3) |
// | wait_load | slot | waits until every load_async issued with `slot` has arrived (version 3); a program's end waits for all |
// | loop / end_loop | count | repeats the body `count` times; the counter i<depth> runs 0..count-1 |
// | set | register, value | r<k> = value |
// | delay | ps | the workgroup is busy for `ps` picoseconds, using nothing (a library kernel's fixed cost, a sleep) (version 7) |
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/compute/compute_timing.h"
#include "models/compute/occupancy.h"
#include "models/sync/flag.h"
#include "workloads/trace/expr.h"

namespace tessera::workloads::trace {

// The format version this Tessera writes for traces that need it, and the oldest it reads.
// Version 2 added atomic_add_range, version 3 load_async and wait_load, version 4 collective
// kernels, version 5 the host's delay, version 6 a buffer's coherence, version 7 a workgroup's delay, version 8 a compute
// op's pipe demands; a trace of an older version is a newer one without those,
// so all are read, and a trace keeps its version when written (required_version gives the lowest
// version that holds a trace: TraceBuilder uses it, so generated traces without the new ops stay
// readable by an older Tessera, byte for byte as that one wrote them).
inline constexpr std::uint32_t kTraceVersion = 8;
inline constexpr std::uint32_t kOldestTraceVersion = 1;
// Slots of a workgroup's outstanding non-blocking loads (load_async, wait_load): 0..kNumLoadSlots-1.
inline constexpr int kNumLoadSlots = 8;
// Streams of one rank: 0..kMaxStreams-1. The replay keeps a queue per stream up to the highest
// one used, so an unchecked index would allocate (or index) billions; real programs use a few
// (HIP and CUDA create streams by the dozen at most), docs/robustness.md "Limits".
inline constexpr std::uint32_t kMaxStreams = 1024;

enum class OpKind : std::uint8_t {
  kCompute,
  kLoad,
  kStore,
  kAtomicAdd,
  kAtomicXchg,
  kRelease,
  kWait,
  kBarrier,
  kLoop,
  kEndLoop,
  kSet,
  kAtomicAddRange,  // version 2: appended so that the earlier ops keep their binary codes
  kLoadAsync,       // version 3
  kWaitLoad,        // version 3
  kDelay,           // version 7
};
std::string_view op_name(OpKind kind);
std::optional<OpKind> parse_op(std::string_view name);
// The first format version that has the op.
std::uint32_t version_of(OpKind kind);
inline constexpr std::uint32_t kWorkgroupDelayVersion = 7;
// A compute op's pipe demands (lds_bytes, sfu_ops, vector_ops, phases: fields b, c, d, e).
inline constexpr std::uint32_t kComputeDemandVersion = 8;
// Whether a compute op gives any pipe demand (fields b, c, d, e; format version 8).
struct Instr;
bool has_compute_demand(const Instr& in);
// A load, blocking or not (load_async moves the same bytes as load).
inline bool is_load(OpKind kind) { return kind == OpKind::kLoad || kind == OpKind::kLoadAsync; }

enum class BarrierScope : std::uint8_t { kWorkgroup, kDevice, kAllRanks };
std::string_view scope_name(BarrierScope scope);

inline constexpr std::uint32_t kNoBuffer = ~std::uint32_t{0};

// One instruction. Which fields mean what depends on `kind` (see the table above):
//   compute:  a = flops; b = lds_bytes, c = sfu_ops, d = vector_ops, e = phases (version 8; 0: not given)
//   load, store: buffer, a = rank, b = offset (bytes), c = bytes
//   load_async: as load, and target = slot
//   wait_load: target = slot
//   atomic_add, atomic_xchg: a = flag rank, b = flag id, c = operand
//   atomic_add_range: buffer, a = rank, b = offset (bytes), c = bytes, dtype = element type
//   release:  a = flag rank, b = flag id, c = value
//   wait:     a = flag rank, b = flag id, c = value, compare; buffer (kNoBuffer: no acquire),
//             d = acquire offset, e = acquire bytes (the acquire is on this rank's copy)
//   barrier:  scope, a = id
//   loop:     a = count
//   set:      target = register index, a = value
//   delay:    a = picoseconds
struct Instr {
  OpKind kind = OpKind::kCompute;
  models::compute::Dtype dtype = models::compute::Dtype::kFp16;
  models::sync::Compare compare = models::sync::Compare::kGe;
  BarrierScope scope = BarrierScope::kWorkgroup;
  std::uint8_t target = 0;
  std::uint32_t buffer = kNoBuffer;
  Expr a, b, c, d, e;
};

// How a buffer was allocated, which decides whether a peer's loads of it may be kept in the
// peer's L2 (HIP's coarse- and fine-grained coherence; docs/trace-format.md):
// kCoarse (hipMalloc, the default): the reader's GPU may cache it (on MI300X the driver maps
// peer VRAM MTYPE NC, valid until the reader acquires); kFine (hipDeviceMallocFinegrained or
// Uncached): every peer load goes to the owner's memory.
enum class Coherence : std::uint8_t { kCoarse, kFine };
std::string_view coherence_name(Coherence coherence);
inline constexpr std::uint32_t kBufferCoherenceVersion = 6;

struct Buffer {
  std::string name;
  std::uint64_t bytes = 0;  // per rank
  Coherence coherence = Coherence::kCoarse;  // format version 6; earlier versions: coarse
};

struct Program {
  std::string name;
  std::vector<Instr> instrs;
};

struct Kernel {
  std::string name;
  std::uint32_t rank = 0;
  std::uint32_t stream = 0;
  std::uint64_t grid = 0;        // workgroups
  std::uint32_t program = 0;     // index into Trace::programs
  std::vector<Expr> args;        // r0.. at workgroup start, evaluated with wg, nwg, rank, nranks
  // CUs per die the kernel may use: [first, first + count) on every die; count 0: all.
  std::uint32_t cu_first = 0;
  std::uint32_t cu_count = 0;
  // A collective (all-gather, reduce-scatter, all-reduce...): its remote traffic and its arithmetic
  // (the reduction's adds) are data movement, classified alike whatever it computes (docs/taxes.md).
  // A kernel whose program has no compute op is one whether marked or not. Format version 4.
  bool collective = false;
  // What one workgroup takes of its CU, which bounds how many share one (format version 8; 0: not
  // given): waves (warps) per workgroup, registers per lane, shared memory (LDS) bytes.
  models::compute::Footprint footprint{};
};
inline constexpr std::uint32_t kCollectiveKernelVersion = 4;
inline constexpr std::uint32_t kKernelFootprintVersion = 8;

enum class HostOp : std::uint8_t {
  kLaunch,       // enqueue kernel `kernel` on its stream (does not wait)
  kSync,         // wait until every stream of this rank is idle
  kRankBarrier,  // wait until every rank's host reaches its barrier of the same ordinal
  // Version 5, appended so that the others keep their binary codes: the host is busy for
  // `delay_ps` before its next command (host-side work between launches: a collective library's
  // per-call CPU cost, an eager framework's gaps between kernels); the streams go on meanwhile.
  kDelay,
};
inline constexpr std::uint32_t kHostDelayVersion = 5;
// The longest delay (10^15 ps = 1000 s), and the most a rank's delays may add up to: far beyond
// any host gap, and far from the 64-bit end of simulated time (about 213 days) however many
// commands a trace holds.
inline constexpr std::uint64_t kMaxHostDelayPs = 1'000'000'000'000'000;

struct HostCommand {
  HostOp op = HostOp::kLaunch;
  std::uint32_t kernel = 0;    // kLaunch
  std::uint64_t delay_ps = 0;  // kDelay
};

struct Trace {
  std::uint32_t version = kTraceVersion;
  std::uint32_t ranks = 1;
  std::vector<Buffer> buffers;
  std::vector<Program> programs;
  std::vector<Kernel> kernels;
  std::vector<std::vector<HostCommand>> host;  // per rank

  std::optional<std::uint32_t> find_buffer(std::string_view name) const;
  std::optional<std::uint32_t> find_program(std::string_view name) const;
};

// The lowest format version that holds `trace`: 8 when a compute op gives pipe demands or a kernel its footprint, 7 when a program has a delay, 6 when a buffer is fine-grained, 5 when a host has a delay, 4 when a kernel is
// collective, 3 when it uses load_async or wait_load, 2 when it uses atomic_add_range, else 1.
std::uint32_t required_version(const Trace& trace);

// Structural checks (a version this Tessera reads and that has every op used, indices in range, loops balanced and at most kNumLoopVars deep, registers
// in range, every kernel launched exactly once by its own rank's host, sizes positive, each
// rank's delays at most kMaxHostDelayPs in all). Returns
// the first problem, naming the program/instruction or kernel, or nullopt.
std::optional<std::string> validate(const Trace& trace);

// Totals, for `tessera trace inspect` and limits: instructions, workgroups, ops executed would
// need a replay, so only static counts.
struct TraceStats {
  std::uint64_t instructions = 0;
  std::uint64_t workgroups = 0;
  std::uint64_t buffer_bytes_per_rank = 0;
};
TraceStats stats_of(const Trace& trace);

}  // namespace tessera::workloads::trace

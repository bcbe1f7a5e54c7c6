#pragma once
// The dataflow oracle (`run --ablate sync`): the trace's exact data dependencies, recorded from
// a replay as traced, and the gate through which a second replay runs on those dependencies
// alone, with every kernel boundary, stream order, host synchronisation, flag and barrier gone.
//
// Which store a read depends on is what the run as traced observed: a load (blocking or not)
// of bytes [offset, offset + bytes) of a GPU's memory depends on every store and every ranged
// atomic add to any of those bytes that had completed when the load was issued and that no
// later plain store had overwritten entirely. Writes are tracked byte-exactly, indexed per
// kChunkBytes chunk of each GPU's address space. A write-after-read or write-after-write order
// is not a dependency (a fine-grained rewrite renames buffers), so the oracle's makespan bounds
// what any rewrite of the same program, with the same work and the same traffic, can reach.
//
// Where data live stays as traced: a `release` still writes its die's dirty L2 data back (it
// stores no flag), kernels still write back at their end, and a local store, which stays in its
// die's L2 until a release, is followed by a posted release of that die that its readers wait
// for (TraceKernel). Without that, readers would miss the memory-side copies the run as traced
// reads and the oracle could be slower than the program it bounds.
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "models/machine/memory_system.h"
#include "sim/core/engine.h"
#include "sim/core/handler.h"

namespace tessera::workloads::replay {

// One memory access of a replay, the same in every replay of the trace: the `ordinal`-th
// access (load, load_async, store or atomic_add_range) of workgroup `workgroup` of the trace's
// kernel `kernel`. (A trace program's control flow does not depend on timing.)
struct AccessInstance {
  std::uint32_t kernel = 0;
  std::uint32_t workgroup = 0;
  std::uint64_t ordinal = 0;
  bool operator==(const AccessInstance&) const = default;
};

struct AccessInstanceHash {
  std::size_t operator()(const AccessInstance& a) const {
    std::uint64_t h = a.ordinal * 0x9E3779B97F4A7C15ULL;
    h ^= (std::uint64_t{a.kernel} << 32 | a.workgroup) + 0x632BE59BD9B4E019ULL + (h << 6) + (h >> 2);
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

// What the oracle replays: per read with producers, the stores it waits for.
struct DataflowGraph {
  std::unordered_map<AccessInstance, std::uint32_t, AccessInstanceHash> store_ids;  // dense ids from 0
  struct Reads {
    std::uint64_t first = 0;  // into `producers`
    std::uint32_t count = 0;
  };
  std::unordered_map<AccessInstance, Reads, AccessInstanceHash> reads;
  std::vector<std::uint32_t> producers;
  std::uint64_t dependencies() const { return producers.size(); }
};

// Built during the replay as traced.
class DataflowRecorder {
 public:
  static constexpr std::uint64_t kChunkBytes = 16 * 1024;

  // A store (`accumulate` false) or ranged atomic add (true) of [address, address + bytes) of
  // `owner`'s memory has completed.
  void write_completed(const AccessInstance& store, std::uint32_t owner, std::uint64_t address, std::uint64_t bytes,
                       bool accumulate);
  // A load of [address, address + bytes) of `owner`'s memory is issued.
  void read_issued(const AccessInstance& read, std::uint32_t owner, std::uint64_t address, std::uint64_t bytes);

  DataflowGraph take() { return std::move(graph_); }

 private:
  struct Writer {
    std::uint32_t store = 0;
    std::uint32_t lo = 0;  // bytes [lo, hi) of the chunk
    std::uint32_t hi = 0;
  };
  static std::uint64_t chunk_key(std::uint32_t owner, std::uint64_t chunk) { return std::uint64_t{owner} << 48 | chunk; }

  DataflowGraph graph_;
  std::unordered_map<std::uint64_t, std::vector<Writer>> writers_;  // by chunk_key
  std::vector<std::uint32_t> scratch_;
};

// The oracle's replay: a read goes to memory once every store it depends on has completed.
class DataflowGate {
 public:
  DataflowGate(const DataflowGraph& graph, sim::Engine& engine, models::machine::MemorySystem& memory);

  // Issues `access` now if every producer of `read` has completed, else when the last one does;
  // `on_done(payload)` is called when the access completes.
  void access(const AccessInstance& read, const models::machine::MemoryAccess& access, sim::Handler on_done,
              sim::Payload payload);
  // True when `read` has no producer still to complete; else `on_ready(payload)` is scheduled
  // (at the time it can go) and false returned.
  bool ready_or_wait(const AccessInstance& read, sim::Handler on_ready, sim::Payload payload);
  // A store or ranged atomic add has completed (instances the graph does not list are ignored).
  void write_completed(const AccessInstance& store);

 private:
  struct Waiter {
    std::uint32_t missing = 0;
    std::optional<models::machine::MemoryAccess> access;  // issued when ready; else on_ready is called
    sim::Handler handler;
    sim::Payload payload;
  };
  // The waiter for `read`'s missing producers, or npos when none is missing.
  std::uint32_t add_waiter(const AccessInstance& read, Waiter waiter);
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  const DataflowGraph& graph_;
  sim::Engine& engine_;
  models::machine::MemorySystem& memory_;
  std::vector<std::uint8_t> completed_;                 // by store id
  std::vector<std::vector<std::uint32_t>> waiting_on_;  // by store id: waiter indices
  std::vector<Waiter> waiters_;
  std::vector<std::uint32_t> free_waiters_;
};

}  // namespace tessera::workloads::replay

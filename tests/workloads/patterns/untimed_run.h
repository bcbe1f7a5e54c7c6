#pragma once
// An untimed executor of traces for the pattern tests: every workgroup of every launched kernel
// is resident at once and runs until a wait is not satisfied; kernels of one (rank, stream) run
// in launch order; host syncs and rank barriers are honoured. It checks, as it goes, what a
// correct pattern must never do, and hands every executed operation to an observer.
//
// Checks (the first violation is kept, the run continues):
//  * bounds: every load/store/acquire lies inside its buffer and names an existing rank;
//    flags name an existing rank;
//  * dataflow: a load of a buffer that the trace itself produces (one that some op stores to)
//    reads only bytes that some store has already written;
//  * acquire: a load of a range that a remote store delivered to this rank was acquired by an
//    earlier wait of the same workgroup (push inboxes, forwarded all-gather pieces);
//  * completion: everything ends (no wait left unsatisfied: each has a release of its value).
//
// The schedule is greedy (each workgroup runs as far as it can, ranks in order), which runs a
// consumer long before its remote producers: a missing wait shows up as a dataflow violation.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "workloads/trace/cursor.h"
#include "workloads/trace/trace.h"

namespace tessera::workloads::patterns::test {

struct ExecutedOp {
  std::uint32_t kernel = 0;
  std::uint32_t rank = 0;  // the kernel's rank (the issuer)
  std::uint64_t wg = 0;
  trace::Op op;
};

struct RunReport {
  bool completed = false;
  std::optional<std::string> violation;  // the first broken rule, with where
  std::uint64_t ops = 0;
};

using Observer = std::function<void(const ExecutedOp&)>;

RunReport run_untimed(const trace::Trace& trace, const Observer& observe = {});

// Walks every workgroup of every kernel with a Cursor, ignoring waits (fast; no checks).
std::uint64_t walk_all(const trace::Trace& trace, const Observer& observe = {});

}  // namespace tessera::workloads::patterns::test

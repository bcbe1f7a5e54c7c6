// The sizes and bandwidths of the collective cases, as nccl-tests counts them (its doc/PERFORMANCE.md,
// https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md, and src/*.cu):
//
//   op              size (the `size` parameter)                   count passed to the library   bus factor
//   all_reduce      the buffer: count x elem                      count                         2(n-1)/n
//   all_gather      the gathered buffer: count x n x elem         count (per rank)              (n-1)/n
//   reduce_scatter  the send buffer: count x n x elem             count (per rank, received)    (n-1)/n
//   broadcast       the buffer: count x elem                      count                         1
//   reduce          the buffer: count x elem                      count                         1
//   all_to_all      each rank's send buffer: count x n x elem     count (per peer, each send    (n-1)/n
//                                                                 and each receive)
//
// algbw = size / time; busbw = algbw x bus factor (the rate each rank's link must carry for the ring algorithm,
// comparable across ops and rank counts). A requested size that the op cannot split evenly (not a whole number
// of elements, or of elements per rank) is rounded up to the next size that it can; results record both.
// Host-only and header-only: the tests in tests/kernels/ check it without a GPU.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tk {

enum class CollectiveOp { all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all };

// The root rank of broadcast and reduce (nccl-tests' default root, -r 0).
inline constexpr int kCollectiveRoot = 0;

// Whether the op has a root (broadcast, reduce).
inline bool collective_has_root(CollectiveOp op) { return op == CollectiveOp::broadcast || op == CollectiveOp::reduce; }

inline const char* collective_op_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce: return "all_reduce";
    case CollectiveOp::all_gather: return "all_gather";
    case CollectiveOp::reduce_scatter: return "reduce_scatter";
    case CollectiveOp::broadcast: return "broadcast";
    case CollectiveOp::reduce: return "reduce";
    case CollectiveOp::all_to_all: return "all_to_all";
  }
  return "?";
}

// Bytes per element of a dtype parameter value ("fp16", "fp32"); throws std::invalid_argument naming the key.
inline int collective_element_bytes(const std::string& dtype) {
  if (dtype == "fp16") return 2;
  if (dtype == "fp32") return 4;
  throw std::invalid_argument("dtype: expected fp16 or fp32, got \"" + dtype + "\"");
}

struct CollectiveSize {
  std::int64_t requested_bytes = 0;  // the `size` parameter
  std::int64_t bytes = 0;            // the size measured: requested_bytes rounded up (see above)
  std::int64_t count = 0;  // elements passed to the library call (per rank for all_gather, reduce_scatter; per
                           // peer, of each ncclSend and ncclRecv, for all_to_all)
  bool rounded_up() const { return bytes != requested_bytes; }
};

// Throws std::invalid_argument naming `size` for a size below one element or above 2^40 bytes.
inline CollectiveSize collective_size(CollectiveOp op, std::int64_t requested_bytes, int element_bytes, int ranks) {
  if (requested_bytes <= 0 || requested_bytes > (std::int64_t{1} << 40)) {
    throw std::invalid_argument("size: must be from 1 B to 1 TiB, got " + std::to_string(requested_bytes));
  }
  if (element_bytes <= 0 || ranks <= 0) throw std::invalid_argument("size: no element size or ranks");
  // The unit the op splits the size into: one element (the ops whose count is the whole buffer), or one element
  // on every rank (all_gather, reduce_scatter: each rank's part; all_to_all: each peer's part).
  const bool whole_buffer =
      op == CollectiveOp::all_reduce || op == CollectiveOp::broadcast || op == CollectiveOp::reduce;
  const std::int64_t unit = whole_buffer ? element_bytes : static_cast<std::int64_t>(element_bytes) * ranks;
  CollectiveSize size;
  size.requested_bytes = requested_bytes;
  size.bytes = (requested_bytes + unit - 1) / unit * unit;
  size.count = size.bytes / unit;
  return size;
}

// nccl-tests' bus-bandwidth factor for `ranks` ranks (PERFORMANCE.md, "Summary").
inline double collective_bus_factor(CollectiveOp op, int ranks) {
  const double n = ranks;
  switch (op) {
    case CollectiveOp::all_reduce: return 2.0 * (n - 1.0) / n;
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce: return 1.0;
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_to_all: return (n - 1.0) / n;
  }
  return 1.0;
}

// NCCL_VERSION_CODE as ncclGetVersion returns it (nccl.h): X*1000 + Y*100 + Z up to 2.8, X*10000 + Y*100 + Z from
// 2.9 on. RCCL returns NCCL's code of the version it follows.
inline std::string collective_version_text(int code) {
  int major = 0, minor = 0, patch = 0;
  if (code >= 10000) {
    major = code / 10000;
    minor = code % 10000 / 100;
    patch = code % 100;
  } else {
    major = code / 1000;
    minor = code % 1000 / 100;
    patch = code % 100;
  }
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace tk

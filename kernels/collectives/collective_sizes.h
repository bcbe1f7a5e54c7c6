// The sizes and bandwidths of the collective cases, as nccl-tests counts them (its README, "Performance"):
//
//   op              size (the `size` parameter)                   count passed to the library   bus factor
//   all_reduce      the buffer: count x elem                      count                         2(n-1)/n
//   all_gather      the gathered buffer: count x n x elem         count (per rank)              (n-1)/n
//   reduce_scatter  the send buffer: count x n x elem             count (per rank, received)    (n-1)/n
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

enum class CollectiveOp { all_reduce, all_gather, reduce_scatter };

inline const char* collective_op_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce: return "all_reduce";
    case CollectiveOp::all_gather: return "all_gather";
    case CollectiveOp::reduce_scatter: return "reduce_scatter";
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
  std::int64_t count = 0;            // elements passed to the library call (per rank for all_gather, reduce_scatter)
  bool rounded_up() const { return bytes != requested_bytes; }
};

// Throws std::invalid_argument naming `size` for a size below one element or above 2^40 bytes.
inline CollectiveSize collective_size(CollectiveOp op, std::int64_t requested_bytes, int element_bytes, int ranks) {
  if (requested_bytes <= 0 || requested_bytes > (std::int64_t{1} << 40)) {
    throw std::invalid_argument("size: must be from 1 B to 1 TiB, got " + std::to_string(requested_bytes));
  }
  if (element_bytes <= 0 || ranks <= 0) throw std::invalid_argument("size: no element size or ranks");
  // The unit the op splits the size into: one element, or one element on every rank.
  const std::int64_t unit = op == CollectiveOp::all_reduce ? element_bytes
                                                           : static_cast<std::int64_t>(element_bytes) * ranks;
  CollectiveSize size;
  size.requested_bytes = requested_bytes;
  size.bytes = (requested_bytes + unit - 1) / unit * unit;
  size.count = size.bytes / unit;
  return size;
}

// nccl-tests' bus-bandwidth factor for `ranks` ranks.
inline double collective_bus_factor(CollectiveOp op, int ranks) {
  const double n = ranks;
  return op == CollectiveOp::all_reduce ? 2.0 * (n - 1.0) / n : (n - 1.0) / n;
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

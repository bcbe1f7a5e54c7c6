#pragma once
// Bookkeeping of executed operations for conservation checks: bytes and byte ranges per
// (kind, issuer, owner, buffer), FLOPs per rank, waits and releases.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "untimed_run.h"
#include "workloads/trace/trace.h"

namespace tessera::workloads::patterns::test {

using Range = std::pair<std::int64_t, std::int64_t>;  // [lo, hi)

// True when `ranges` do not overlap and together are exactly [lo, hi).
inline bool partitions(std::vector<Range> ranges, std::int64_t lo, std::int64_t hi) {
  std::sort(ranges.begin(), ranges.end());
  std::int64_t at = lo;
  for (const Range& r : ranges) {
    if (r.first != at) return false;
    at = r.second;
  }
  return at == hi;
}

// True when no two ranges overlap.
inline bool disjoint(std::vector<Range> ranges) {
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].first < ranges[i - 1].second) return false;
  }
  return true;
}

// The bytes of the union of `ranges`.
inline std::int64_t union_bytes(std::vector<Range> ranges) {
  std::sort(ranges.begin(), ranges.end());
  std::int64_t total = 0;
  std::int64_t end = INT64_MIN;
  for (const Range& r : ranges) {
    const std::int64_t lo = std::max(r.first, end);
    if (r.second > lo) total += r.second - lo;
    end = std::max(end, r.second);
  }
  return total;
}

class Ledger {
 public:
  explicit Ledger(const trace::Trace& t) : t_(t) {}

  void add(const ExecutedOp& e) {
    const trace::Op& op = e.op;
    switch (op.kind) {
      case trace::OpKind::kLoad:
      case trace::OpKind::kLoadAsync:
      case trace::OpKind::kStore:
      case trace::OpKind::kAtomicAddRange: {
        // A load_async moves what a load does: counted as one.
        const trace::OpKind kind = trace::is_load(op.kind) ? trace::OpKind::kLoad : op.kind;
        const Key key{kind, e.rank, static_cast<std::uint32_t>(op.rank()), t_.buffers[op.buffer].name};
        bytes_[key] += static_cast<std::uint64_t>(op.bytes());
        ranges_[key].push_back({op.offset(), op.offset() + op.bytes()});
        break;
      }
      case trace::OpKind::kCompute: flops_[e.rank] += static_cast<double>(op.flops()); break;
      case trace::OpKind::kRelease: releases_.insert({op.flag_rank(), op.flag_id(), op.value()}); break;
      case trace::OpKind::kWait: waits_.insert({op.flag_rank(), op.flag_id(), op.value()}); break;
      default: break;
    }
  }

  // Bytes of `kind` on `buffer` issued by `issuer` into the copy of `owner`.
  std::uint64_t bytes(trace::OpKind kind, std::uint32_t issuer, std::uint32_t owner, const std::string& buffer) const {
    auto it = bytes_.find({kind, issuer, owner, buffer});
    return it == bytes_.end() ? 0 : it->second;
  }
  std::vector<Range> ranges(trace::OpKind kind, std::uint32_t issuer, std::uint32_t owner,
                            const std::string& buffer) const {
    auto it = ranges_.find({kind, issuer, owner, buffer});
    return it == ranges_.end() ? std::vector<Range>{} : it->second;
  }
  // Bytes of `kind` on `buffer` of `owner` issued by any other rank.
  std::uint64_t remote_bytes_into(trace::OpKind kind, std::uint32_t owner, const std::string& buffer) const {
    std::uint64_t total = 0;
    for (std::uint32_t r = 0; r < t_.ranks; ++r) {
      if (r != owner) total += bytes(kind, r, owner, buffer);
    }
    return total;
  }
  // Bytes of `kind` issued by `issuer` on any other rank's copy of `buffer`.
  std::uint64_t remote_bytes_by(trace::OpKind kind, std::uint32_t issuer, const std::string& buffer) const {
    std::uint64_t total = 0;
    for (std::uint32_t r = 0; r < t_.ranks; ++r) {
      if (r != issuer) total += bytes(kind, issuer, r, buffer);
    }
    return total;
  }
  // Every (rank, flag, value) waited on has a release of that flag with that value.
  bool waits_released() const {
    for (const auto& w : waits_) {
      if (!releases_.count(w)) return false;
    }
    return true;
  }
  std::size_t num_waits() const { return waits_.size(); }
  double flops(std::uint32_t rank) const {
    auto it = flops_.find(rank);
    return it == flops_.end() ? 0 : it->second;
  }

 private:
  using Key = std::tuple<trace::OpKind, std::uint32_t, std::uint32_t, std::string>;
  const trace::Trace& t_;
  std::map<Key, std::uint64_t> bytes_;
  std::map<Key, std::vector<Range>> ranges_;
  std::map<std::uint32_t, double> flops_;
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> releases_;
  std::multiset<std::tuple<std::int64_t, std::int64_t, std::int64_t>> waits_;
};

}  // namespace tessera::workloads::patterns::test

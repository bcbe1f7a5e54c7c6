#include "workloads/replay/dataflow.h"

#include <algorithm>

namespace tessera::workloads::replay {

namespace {

// Calls f(chunk, lo, hi) for each chunk [address, address + bytes) touches, with the touched
// bytes [lo, hi) relative to the chunk's start.
template <class F>
void for_each_chunk(std::uint64_t address, std::uint64_t bytes, F&& f) {
  constexpr std::uint64_t kChunk = DataflowRecorder::kChunkBytes;
  const std::uint64_t end = address + bytes;
  for (std::uint64_t chunk = address / kChunk; chunk * kChunk < end; ++chunk) {
    const std::uint64_t base = chunk * kChunk;
    f(chunk, static_cast<std::uint32_t>(std::max(address, base) - base),
      static_cast<std::uint32_t>(std::min(end, base + kChunk) - base));
  }
}

}  // namespace

void DataflowRecorder::write_completed(const AccessInstance& store, std::uint32_t owner, std::uint64_t address,
                                       std::uint64_t bytes, bool accumulate) {
  const auto id = static_cast<std::uint32_t>(graph_.store_ids.size());
  if (!graph_.store_ids.emplace(store, id).second) return;  // completes once; defensive
  for_each_chunk(address, bytes, [&](std::uint64_t chunk, std::uint32_t lo, std::uint32_t hi) {
    std::vector<Writer>& writers = writers_[chunk_key(owner, chunk)];
    if (!accumulate) {
      // A plain store replaces every earlier write it covers entirely: a later read needs only it.
      std::erase_if(writers, [lo, hi](const Writer& w) { return w.lo >= lo && w.hi <= hi; });
    }
    writers.push_back({id, lo, hi});
  });
}

void DataflowRecorder::read_issued(const AccessInstance& read, std::uint32_t owner, std::uint64_t address,
                                   std::uint64_t bytes) {
  scratch_.clear();
  for_each_chunk(address, bytes, [&](std::uint64_t chunk, std::uint32_t lo, std::uint32_t hi) {
    const auto found = writers_.find(chunk_key(owner, chunk));
    if (found == writers_.end()) return;
    for (const Writer& w : found->second) {
      if (w.lo < hi && lo < w.hi) scratch_.push_back(w.store);
    }
  });
  if (scratch_.empty()) return;
  std::sort(scratch_.begin(), scratch_.end());
  scratch_.erase(std::unique(scratch_.begin(), scratch_.end()), scratch_.end());
  graph_.reads[read] = {graph_.producers.size(), static_cast<std::uint32_t>(scratch_.size())};
  graph_.producers.insert(graph_.producers.end(), scratch_.begin(), scratch_.end());
}

DataflowGate::DataflowGate(const DataflowGraph& graph, sim::Engine& engine, models::machine::MemorySystem& memory)
    : graph_(graph),
      engine_(engine),
      memory_(memory),
      completed_(graph.store_ids.size(), 0),
      waiting_on_(graph.store_ids.size()) {}

std::uint32_t DataflowGate::add_waiter(const AccessInstance& read, Waiter waiter) {
  const auto found = graph_.reads.find(read);
  if (found == graph_.reads.end()) return kNone;
  const DataflowGraph::Reads& r = found->second;
  for (std::uint64_t i = r.first; i < r.first + r.count; ++i) waiter.missing += completed_[graph_.producers[i]] == 0;
  if (waiter.missing == 0) return kNone;
  std::uint32_t index = 0;
  if (free_waiters_.empty()) {
    index = static_cast<std::uint32_t>(waiters_.size());
    waiters_.push_back(std::move(waiter));
  } else {
    index = free_waiters_.back();
    free_waiters_.pop_back();
    waiters_[index] = std::move(waiter);
  }
  for (std::uint64_t i = r.first; i < r.first + r.count; ++i) {
    const std::uint32_t producer = graph_.producers[i];
    if (completed_[producer] == 0) waiting_on_[producer].push_back(index);
  }
  return index;
}

void DataflowGate::access(const AccessInstance& read, const models::machine::MemoryAccess& access, sim::Handler on_done,
                          sim::Payload payload) {
  if (add_waiter(read, Waiter{0, access, on_done, payload}) == kNone) memory_.access(access, on_done, payload);
}

bool DataflowGate::ready_or_wait(const AccessInstance& read, sim::Handler on_ready, sim::Payload payload) {
  return add_waiter(read, Waiter{0, std::nullopt, on_ready, payload}) == kNone;
}

void DataflowGate::write_completed(const AccessInstance& store) {
  const auto found = graph_.store_ids.find(store);
  if (found == graph_.store_ids.end()) return;
  const std::uint32_t id = found->second;
  completed_[id] = 1;
  std::vector<std::uint32_t> released;
  released.swap(waiting_on_[id]);
  for (const std::uint32_t index : released) {
    Waiter& w = waiters_[index];
    if (--w.missing > 0) continue;
    if (w.access) {
      memory_.access(*w.access, w.handler, w.payload);
    } else {
      engine_.schedule(0, w.handler, w.payload);
    }
    free_waiters_.push_back(index);
  }
}

}  // namespace tessera::workloads::replay

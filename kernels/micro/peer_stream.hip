// remote_load, remote_store, all_load, all_store: GPUs stream peer memory over the GPU-GPU links with loads or
// stores issued by their own workgroups (Tessera: microbench ops of the same names).
//
// - remote_load: rank 0 reads `bytes` from a buffer on rank 1; rank 1 enqueues nothing.
// - remote_store: rank 0 writes `bytes` into a buffer on rank 1; rank 1 enqueues nothing.
// - all_load: every rank reads `bytes` from each of its peers at once (one source buffer per rank).
// - all_store: every rank writes `bytes` into each of its peers at once (one inbox per (receiver, writer)).
//
// The kernels are the chunk streams of micro/chunk_stream.hip, with Tessera's order: the peers are the segments, in
// ascending rank order without the rank itself, and chunk k of the pass goes to peer k mod (number of peers), so every
// workgroup spreads its accesses over all peers. Loads accumulate per-workgroup sums that are checked exactly;
// stores write a pattern that names the writer and the word, checked on the receiver. Bandwidth per GPU counts
// bytes x peers over the slowest rank's time, as Tessera does.
#include <stdexcept>

#include "harness/device_data.h"
#include "harness/timing.h"
#include "micro/micro_cases.h"

namespace tk {

namespace {

constexpr std::uint64_t kCheckWordBudget = std::uint64_t{32} << 20;  // words regenerated on the host per check
constexpr std::size_t kCheckWindowWords = std::size_t{16} << 10;     // 64 KiB windows of a sampled store check

enum class Direction { load, store };

class PeerStream final : public Case {
 public:
  PeerStream(const Params& params, int ranks, Direction direction, bool all_ranks)
      : direction_(direction), all_ranks_(all_ranks), ranks_(ranks),
        requested_workgroups_(params.integer("workgroups")) {
    validate_stream_params(params);
    stream_.segment_bytes = static_cast<std::size_t>(params.integer("bytes"));
    stream_.chunk_bytes = static_cast<std::size_t>(params.integer("chunk"));
    stream_.passes = 1;
    stream_.threads = static_cast<int>(params.integer("threads"));
    if (ranks < 2 || ranks - 1 > kMaxStreamSegments) throw std::invalid_argument("ranks: 2 to 8");
  }

  void setup(Context& context) override {
    stream_.workgroups = bandwidth_workgroups(requested_workgroups_, context.device(0));
    seed_ = context.seed();
    sources_.assign(ranks_, nullptr);
    sums_.assign(ranks_, nullptr);
    inboxes_.assign(ranks_, std::vector<std::uint32_t*>(ranks_, nullptr));
    const std::size_t words = stream_.segment_bytes / 4;
    for (int rank = 0; rank < ranks_; ++rank) {
      for (int peer : peers_of(rank)) {
        if (direction_ == Direction::load) {
          if (sources_[peer] == nullptr) {
            sources_[peer] = context.allocate<float>(peer, words);
            fill_uniform(context, peer, sources_[peer], words, rank_seed(context.seed(), peer), -1.0f, 1.0f);
          }
        } else {
          inboxes_[peer][rank] = context.allocate<std::uint32_t>(peer, words);
        }
      }
      if (direction_ == Direction::load && is_active(rank)) {
        sums_[rank] = context.allocate<std::uint32_t>(rank, stream_.workgroups);
      }
    }
  }

  void poison_outputs(Context& context) override {
    for (int rank = 0; rank < ranks_; ++rank) {
      if (sums_[rank] != nullptr) poison(context, rank, sums_[rank], stream_.workgroups * sizeof(std::uint32_t));
      for (int writer = 0; writer < ranks_; ++writer) {
        if (inboxes_[rank][writer] != nullptr) poison(context, rank, inboxes_[rank][writer], stream_.segment_bytes);
      }
    }
  }

  void enqueue(Context& context, int rank) override {
    if (!is_active(rank)) return;  // remote_*: the peer only holds the buffer
    const std::vector<int> peers = peers_of(rank);
    ChunkStream stream = stream_;
    stream.segments = static_cast<int>(peers.size());
    if (direction_ == Direction::load) {
      std::vector<const void*> sources;
      for (int peer : peers) sources.push_back(sources_[peer]);
      launch_chunk_read_sums(stream, sources, sums_[rank], context.stream(rank));
    } else {
      std::vector<void*> destinations;
      std::vector<std::uint32_t> salts;
      for (int peer : peers) {
        destinations.push_back(inboxes_[peer][rank]);
        salts.push_back(salt(rank, peer));
      }
      launch_chunk_store_pattern(stream, destinations, salts, context.stream(rank));
    }
  }

  CheckResult check(Context& context) override {
    return direction_ == Direction::load ? check_loads(context) : check_stores(context);
  }

  void derive_metrics(const Context& /*context*/, const Timing& timing, nlohmann::json& metrics) const override {
    const double counted = static_cast<double>(stream_.segment_bytes) * static_cast<double>(peers_of(0).size());
    metrics["counted_bytes"] = counted;  // per GPU
    metrics["chunk_bytes"] = stream_.chunk_bytes;
    metrics["workgroups"] = stream_.workgroups;
    metrics["bandwidth_GBps_median"] = counted / timing.median_ns;
    metrics["bandwidth_GBps_mean"] = counted / timing.mean_ns;
  }

 private:
  // remote_*: only rank 0 issues; all_*: every rank.
  bool is_active(int rank) const { return all_ranks_ || rank == 0; }
  // The GPUs `rank` reads from or writes to, in Tessera's segment order (ascending, itself left out).
  std::vector<int> peers_of(int rank) const {
    std::vector<int> peers;
    if (!is_active(rank)) return peers;
    if (!all_ranks_) return {1};
    for (int peer = 0; peer < ranks_; ++peer) {
      if (peer != rank) peers.push_back(peer);
    }
    return peers;
  }
  // Per (writer, receiver) and per run seed, so that a store into the wrong inbox or a stale buffer fails.
  std::uint32_t salt(int writer, int receiver) const {
    return static_cast<std::uint32_t>(rank_seed(seed_, writer * 64 + receiver) >> 17);
  }

  CheckResult check_loads(Context& context) {
    int readers = 0;
    for (int rank = 0; rank < ranks_; ++rank) readers += is_active(rank) ? 1 : 0;
    CheckResult all_checks;
    bool first = true;
    std::size_t sampled = 0;
    for (int rank = 0; rank < ranks_; ++rank) {
      if (!is_active(rank)) continue;
      const std::vector<int> peers = peers_of(rank);
      ChunkStream stream = stream_;
      stream.segments = static_cast<int>(peers.size());
      std::vector<std::uint64_t> seeds;
      for (int peer : peers) seeds.push_back(rank_seed(context.seed(), peer));
      const std::vector<int> checked = sampled_workgroups(stream, kCheckWordBudget / readers);
      sampled += checked.size();
      const std::vector<std::uint32_t> all = copy_words_to_host(context, rank, sums_[rank], stream_.workgroups);
      std::vector<std::uint32_t> got;
      for (int w : checked) got.push_back(all[w]);
      const CheckResult one = compare_exact(got, expected_read_sums(stream, seeds, checked),
                                            "rank " + std::to_string(rank) + " per-workgroup sums of loaded words");
      all_checks = first ? one : combine(all_checks, one);
      first = false;
    }
    if (all_checks.passed) {
      all_checks.detail = "per-workgroup sums of the loaded words equal the host's: " + std::to_string(sampled) +
                          " workgroups of " + std::to_string(readers * stream_.workgroups) +
                          " (sampled evenly when the reference would be too costly)";
    }
    return all_checks;
  }

  CheckResult check_stores(Context& context) {
    int inboxes = 0;
    for (const auto& row : inboxes_) {
      for (const std::uint32_t* inbox : row) inboxes += inbox != nullptr ? 1 : 0;
    }
    const std::size_t budget = static_cast<std::size_t>(kCheckWordBudget / static_cast<std::uint64_t>(inboxes));
    const std::size_t words = stream_.segment_bytes / 4;
    CheckResult all_checks;
    bool first = true;
    std::size_t checked = 0;
    for (int receiver = 0; receiver < ranks_; ++receiver) {
      for (int writer = 0; writer < ranks_; ++writer) {
        const std::uint32_t* inbox = inboxes_[receiver][writer];
        if (inbox == nullptr) continue;
        std::vector<std::uint32_t> got, expected;
        for (const Window& window : sampled_windows(words, kCheckWindowWords, budget)) {
          const std::vector<std::uint32_t> part = copy_words_to_host(context, receiver, inbox + window.start,
                                                                     window.count);
          got.insert(got.end(), part.begin(), part.end());
          for (std::size_t i = 0; i < window.count; ++i) {
            expected.push_back(store_pattern(salt(writer, receiver), window.start + i));
          }
        }
        checked += got.size();
        const CheckResult one = compare_exact(got, expected, "inbox on rank " + std::to_string(receiver) +
                                                                 " from rank " + std::to_string(writer));
        all_checks = first ? one : combine(all_checks, one);
        first = false;
      }
    }
    if (all_checks.passed) {
      all_checks.detail = "stored words equal the pattern: " + std::to_string(checked) + " words of " +
                          std::to_string(static_cast<std::size_t>(inboxes) * words) + " in " +
                          std::to_string(inboxes) + " inboxes (64 KiB windows spread evenly when larger than " +
                          std::to_string(budget) + " words)";
    }
    return all_checks;
  }

  Direction direction_;
  bool all_ranks_;
  int ranks_;
  std::int64_t requested_workgroups_;
  ChunkStream stream_;
  std::uint64_t seed_ = 0;
  std::vector<float*> sources_;                        // loads: rank r's source buffer, on rank r
  std::vector<std::uint32_t*> sums_;                   // loads: rank r's per-workgroup sums, on rank r
  std::vector<std::vector<std::uint32_t*>> inboxes_;   // stores: [receiver][writer], on the receiver
};

std::vector<ParamSpec> stream_params(const char* bytes_meaning) {
  return {{"bytes", ParamType::integer, "256 MiB", bytes_meaning},
          {"workgroups", ParamType::integer, "0", "workgroups per GPU; 0: 4 per CU/SM"},
          {"chunk", ParamType::integer, "16 KiB",
           "bytes a workgroup moves per step (Tessera's chunk): workgroup w takes chunks w, w + W, ..."},
          {"threads", ParamType::integer, "512", "threads per workgroup (a power of two)"}};
}

CaseInfo peer_stream_case(const char* name, const char* description, Direction direction, bool all_ranks) {
  CaseInfo info;
  info.name = name;
  info.kind = "microbenchmark";
  info.description = description;
  info.min_ranks = 2;
  info.max_ranks = all_ranks ? kMaxStreamSegments + 1 : 2;
  info.params = stream_params(all_ranks ? "bytes per peer (a multiple of 16 B)" : "buffer size (a multiple of 16 B)");
  info.make = [direction, all_ranks](const Params& params, int ranks) {
    return std::make_unique<PeerStream>(params, ranks, direction, all_ranks);
  };
  const std::string op = name;
  info.tessera_workload = [op, all_ranks](const Params& params, int) {
    nlohmann::json workload{{"kind", "microbench"},
                            {"op", op},
                            {"bytes", bytes_text(params.integer("bytes"))},
                            {"workgroups", bandwidth_workgroups(params.integer("workgroups"), current_device())},
                            {"chunk", bytes_text(params.integer("chunk"))}};
    if (!all_ranks) {
      workload["gpu"] = 0;
      workload["peer"] = 1;
    }
    return workload;
  };
  return info;
}

}  // namespace

CaseInfo remote_load_case() {
  return peer_stream_case("remote_load", "rank 0 reads a buffer on rank 1 with loads; GB/s counts bytes",
                          Direction::load, false);
}
CaseInfo remote_store_case() {
  return peer_stream_case("remote_store", "rank 0 writes a buffer on rank 1 with stores; GB/s counts bytes",
                          Direction::store, false);
}
CaseInfo all_load_case() {
  return peer_stream_case("all_load", "every rank reads `bytes` from each peer at once; GB/s per GPU counts bytes x peers",
                          Direction::load, true);
}
CaseInfo all_store_case() {
  return peer_stream_case("all_store", "every rank writes `bytes` into each peer at once; GB/s per GPU counts bytes x peers",
                          Direction::store, true);
}

}  // namespace tk

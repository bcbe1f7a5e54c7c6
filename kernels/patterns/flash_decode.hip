// flash_decode: distributed split-KV decode (Tessera kind `flash_decode`, docs/workloads.md; Iris
// examples/13_flash_decode). One query token per (sequence, q head), GQA; the KV cache of every sequence is sharded
// along the sequence over the ranks (rank r holds tokens [r * kv_len_per_rank, (r + 1) * kv_len_per_rank)). Each
// rank: split_kv over kv_splits splits of its shard -> combine of the splits -> exchange of the per-(batch, head)
// records (output, log-sum-exp) -> global reduce into O on every rank. Variants (Tessera's `variant`):
//   bsp           combine into `combined`, Tessera's one-shot all-gather kernel, then global_reduce: stream order
//                 and the all-gather's own flags are the only synchronisation;
//   fused_coarse  combine_push stores into every rank's `gathered`; the source's last workgroup releases one flag
//                 per (destination, source); global_reduce waits per source;
//   fused         combine_push releases flag (destination, source, batch, head) right after each store;
//                 global_reduce spins on each of them.
// All kernels of a rank run on its stream 0 in that order (as Tessera and Iris launch them). The only kernels that
// wait on other ranks (all_gather, global_reduce) use small grids, so ranks sharing one GPU (--devices 0,0) still
// finish: the waiting workgroups never occupy the GPU that another rank's producers need.
// Buffers and kernels: patterns/flash_decode_kernels.h.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/device_data.h"
#include "harness/timing.h"
#include "patterns/attention_cases.h"
#include "patterns/attention_reference.h"
#include "patterns/flash_decode_kernels.h"

namespace tk {

namespace {

enum class Variant { bsp, fused_coarse, fused };

CombineDelivery delivery_of(Variant variant) {
  switch (variant) {
    case Variant::bsp: return CombineDelivery::local;
    case Variant::fused_coarse: return CombineDelivery::push_coarse;
    case Variant::fused: return CombineDelivery::push_per_tile;
  }
  return CombineDelivery::local;
}

// The host reference's budget: multiply-adds of the (batch, KV head) groups checked, each over all ranks' tokens
// and all q heads of the group (about a second on one host core).
constexpr double kReferenceMacs = 1.5e9;
constexpr float kQRange = 4.0f;  // Q in [-4, 4): a peaked softmax (scores of std ~1.3), K and V in [-1, 1)

class FlashDecode final : public Case {
 public:
  FlashDecode(const Params& params, int ranks) {
    const std::string& variant = params.text("variant");
    if (variant == "bsp") variant_ = Variant::bsp;
    else if (variant == "fused_coarse") variant_ = Variant::fused_coarse;
    else if (variant == "fused") variant_ = Variant::fused;
    else throw std::invalid_argument("variant: bsp, fused_coarse or fused, not '" + variant + "'");
    const std::string& order = params.text("peer_order");
    if (order != "natural" && order != "staggered") {
      throw std::invalid_argument("peer_order: natural or staggered, not '" + order + "'");
    }
    staggered_ = order == "staggered";
    const auto in_range = [&](const char* key, std::int64_t low, std::int64_t high) {
      const std::int64_t value = params.integer(key);
      if (value < low || value > high) {
        throw std::invalid_argument(std::string(key) + ": " + std::to_string(low) + " to " + std::to_string(high));
      }
      return static_cast<int>(value);
    };
    shape_.batch = in_range("batch", 1, 1024);
    shape_.q_heads = in_range("q_heads", 1, 4096);
    shape_.kv_heads = in_range("kv_heads", 1, 4096);
    shape_.head_dim = in_range("head_dim", 64, 128);
    shape_.splits = in_range("kv_splits", 1, 65535);
    shape_.kv_len = in_range("kv_len_per_rank", kFlashDecodeBlockN, 1 << 24);
    shape_.ranks = ranks;
    collective_workgroups_ = in_range("collective_workgroups", 1, 1024);
    reduce_workgroups_ = in_range("reduce_workgroups", 1, 1024);
    if (shape_.head_dim != 64 && shape_.head_dim != 128) throw std::invalid_argument("head_dim: 64 or 128");
    if (shape_.q_heads % shape_.kv_heads != 0) {
      throw std::invalid_argument("kv_heads: must divide q_heads (each KV head serves a GQA group of q heads)");
    }
    if (shape_.group() > kFlashDecodeBlockH && shape_.group() % kFlashDecodeBlockH != 0) {
      throw std::invalid_argument("kv_heads: a GQA group (q_heads / kv_heads) above 16 must be a multiple of 16 "
                                  "(a workgroup takes block_h = 16 heads of one KV head)");
    }
    if (shape_.kv_len % (static_cast<std::int64_t>(shape_.splits) * kFlashDecodeBlockN) != 0) {
      throw std::invalid_argument("kv_len_per_rank: a multiple of kv_splits x 64 (every split streams whole "
                                  "64-token KV blocks)");
    }
    if (ranks < 1 || ranks > kFlashDecodeMaxRanks) throw std::invalid_argument("ranks: 1 to 8");
  }

  void setup(Context& context) override {
    const int ranks = shape_.ranks;
    const std::size_t tiles = static_cast<std::size_t>(shape_.tiles());
    const std::size_t record = static_cast<std::size_t>(shape_.record_elements());
    shard_bytes_ = tiles * record * sizeof(__half);
    channels_ = all_gather_channels(shard_bytes_, collective_workgroups_);
    // Flags of one rank, one allocation: [ranks][tiles] per-tile flags (fused), [ranks] pair flags and the arrival
    // counter (fused_coarse), [ranks][channels] all-gather flags (bsp).
    tile_flags_offset_ = 0;
    pair_flags_offset_ = static_cast<std::size_t>(ranks) * tiles;
    counter_offset_ = pair_flags_offset_ + ranks;
    gather_flags_offset_ = counter_offset_ + 1;
    sync_ints_ = gather_flags_offset_ + static_cast<std::size_t>(ranks) * channels_;
    buffers_.resize(ranks);
    for (int rank = 0; rank < ranks; ++rank) {
      RankBuffers& buffers = buffers_[rank];
      buffers.q = context.allocate<__half>(rank, tiles * shape_.head_dim);
      buffers.k = context.allocate<__half>(rank, shape_.kv_elements());
      buffers.v = context.allocate<__half>(rank, shape_.kv_elements());
      buffers.partials = context.allocate<__half>(rank, tiles * shape_.splits * record);
      buffers.combined = context.allocate<__half>(rank, tiles * record);
      buffers.gathered = context.allocate<__half>(rank, static_cast<std::size_t>(ranks) * tiles * record);
      buffers.o = context.allocate<__half>(rank, tiles * shape_.head_dim);
      buffers.sync = context.allocate<int>(rank, sync_ints_);
      // The same query on every rank; each rank its own shard of K and V.
      fill_uniform(context, rank, buffers.q, tiles * shape_.head_dim, q_seed(context), -kQRange, kQRange);
      fill_uniform(context, rank, buffers.k, shape_.kv_elements(), k_seed(context, rank), -1.0f, 1.0f);
      fill_uniform(context, rank, buffers.v, shape_.kv_elements(), v_seed(context, rank), -1.0f, 1.0f);
      context.use(rank);
      prepare_flash_decode_kernels(shape_.head_dim);
    }
    for (int rank = 0; rank < ranks; ++rank) {
      gathered_.at[rank] = buffers_[rank].gathered;
      tile_flags_.at[rank] = buffers_[rank].sync + tile_flags_offset_;
      pair_flags_.at[rank] = buffers_[rank].sync + pair_flags_offset_;
      gather_flags_.at[rank] = buffers_[rank].sync + gather_flags_offset_;
    }
  }

  void poison_outputs(Context& context) override {
    const std::size_t tiles = static_cast<std::size_t>(shape_.tiles());
    const std::size_t record = static_cast<std::size_t>(shape_.record_elements());
    for (int rank = 0; rank < shape_.ranks; ++rank) {
      const RankBuffers& buffers = buffers_[rank];
      poison(context, rank, buffers.o, tiles * shape_.head_dim * sizeof(__half));
      poison(context, rank, buffers.partials, tiles * shape_.splits * record * sizeof(__half));
      poison(context, rank, buffers.combined, tiles * record * sizeof(__half));
      poison(context, rank, buffers.gathered, shape_.ranks * tiles * record * sizeof(__half));
    }
  }

  // Flags and the arrival counter back to 0 (the harness then waits for every GPU before enqueueing).
  void reset(Context& context) override {
    for (int rank = 0; rank < shape_.ranks; ++rank) {
      context.use(rank);
      HIP_CHECK(hipMemsetAsync(buffers_[rank].sync, 0, sync_ints_ * sizeof(int), context.stream(rank)));
    }
  }

  void enqueue(Context& context, int rank) override {
    const hipStream_t stream = context.stream(rank);
    const RankBuffers& buffers = buffers_[rank];
    const CombineDelivery delivery = delivery_of(variant_);
    launch_split_kv(shape_, buffers.q, buffers.k, buffers.v, buffers.partials, stream);
    launch_combine(shape_, delivery, rank, staggered_, buffers.partials, buffers.combined, gathered_, tile_flags_,
                   pair_flags_, buffers.sync + counter_offset_, stream);
    if (variant_ == Variant::bsp) {
      launch_all_gather_one_shot(rank, shape_.ranks, buffers.combined, shard_bytes_, gathered_, gather_flags_,
                                 channels_, stream);
    }
    launch_global_reduce(shape_, delivery, rank, staggered_, buffers.gathered, buffers.sync + tile_flags_offset_,
                         buffers.sync + pair_flags_offset_, buffers.o, reduce_workgroups_, stream);
  }

  // Every rank's O for the q heads of a spread of (batch, KV head) groups (all of them when the reference is
  // affordable) against softmax(q K^T / sqrt(d)) V in double over the whole sequence: all ranks' shards in order.
  CheckResult check(Context& context) override {
    const int ranks = shape_.ranks;
    const int dim = shape_.head_dim;
    const int group = shape_.group();
    const std::size_t kv_len = static_cast<std::size_t>(shape_.kv_len);
    const std::size_t tiles = static_cast<std::size_t>(shape_.tiles());
    std::vector<std::vector<float>> outputs;
    for (int rank = 0; rank < ranks; ++rank) {
      outputs.push_back(copy_to_host(context, rank, buffers_[rank].o, tiles * dim));
    }

    const int groups = shape_.batch * shape_.kv_heads;
    const double macs_per_group = 2.0 * static_cast<double>(ranks) * static_cast<double>(kv_len) * group * dim;
    const int checked = static_cast<int>(std::clamp(kReferenceMacs / macs_per_group, 1.0, static_cast<double>(groups)));
    const double scale = 1.0 / std::sqrt(static_cast<double>(dim));
    std::vector<float> got;
    std::vector<double> expected;
    std::vector<double> reference(static_cast<std::size_t>(dim));
    std::vector<float> keys(static_cast<std::size_t>(ranks) * kv_len * dim);
    std::vector<float> values(keys.size());
    for (int i = 0; i < checked; ++i) {
      const int g = static_cast<int>(static_cast<std::int64_t>(i) * groups / checked);  // b * kv_heads + kv head
      const int b = g / shape_.kv_heads;
      const int kv_head = g % shape_.kv_heads;
      const std::size_t first = static_cast<std::size_t>(g) * kv_len * dim;
      for (int rank = 0; rank < ranks; ++rank) {
        const std::vector<float> k = copy_to_host(context, rank, buffers_[rank].k + first, kv_len * dim);
        const std::vector<float> v = copy_to_host(context, rank, buffers_[rank].v + first, kv_len * dim);
        std::copy(k.begin(), k.end(), keys.begin() + static_cast<std::ptrdiff_t>(rank * kv_len * dim));
        std::copy(v.begin(), v.end(), values.begin() + static_cast<std::ptrdiff_t>(rank * kv_len * dim));
      }
      const std::size_t first_tile =
          static_cast<std::size_t>(b) * shape_.q_heads + static_cast<std::size_t>(kv_head) * group;  // q head
      const std::vector<float> q =
          copy_to_host(context, 0, buffers_[0].q + first_tile * dim, static_cast<std::size_t>(group) * dim);
      for (int h = 0; h < group; ++h) {
        reference_attention_row(q.data() + static_cast<std::size_t>(h) * dim, keys.data(), values.data(),
                                static_cast<std::size_t>(ranks) * kv_len, dim, scale, reference.data());
        for (int rank = 0; rank < ranks; ++rank) {
          const float* row = outputs[rank].data() + (first_tile + h) * dim;
          got.insert(got.end(), row, row + dim);
          expected.insert(expected.end(), reference.begin(), reference.end());
        }
      }
    }
    // Inputs are exact in both. The kernel's errors, relative to the largest output: P rounded to fp16 (2^-11 per
    // weight, averaging down over the tokens); partial and combined records stored in fp16 as Iris and Tessera
    // store them: values to 2^-11 relative, and the log-sum-exp (8 to 16 here) to +-2^-8 absolute, a weight error
    // of up to 0.4% per record at each of the two merges, which moves the output by that fraction of the spread
    // between the partial outputs (a partial over 1/n of the tokens spreads ~sqrt(n) times wider than the output);
    // the fp16 output (2^-11). Measured on an H200: 1.3e-3 (1 rank, 16K tokens) to 4.3e-3 (2 ranks, 128K tokens),
    // growing slowly with ranks and tokens; 2e-2 keeps margin for 8 ranks x 512K, while a lost rank, a wrong head
    // or a broken rescale still moves outputs by their own size.
    CheckResult result = compare_relative(got, expected, 2e-2, "O");
    result.detail = std::to_string(checked) + " of " + std::to_string(groups) + " (batch, KV head) groups (" +
                    std::to_string(checked * group) + " q heads x " + std::to_string(dim) + " values) on each of " +
                    std::to_string(ranks) + " ranks vs double softmax over all " +
                    std::to_string(static_cast<std::size_t>(ranks) * kv_len) + " tokens; " + result.detail;
    return result;
  }

  void derive_metrics(const Context& /*context*/, const Timing& timing, nlohmann::json& metrics) const override {
    const double kv_bytes = 2.0 * static_cast<double>(shape_.kv_elements()) * sizeof(__half);  // K and V, per rank
    const double record_bytes = static_cast<double>(shape_.record_elements()) * sizeof(__half);
    const double pushed = static_cast<double>(shape_.ranks) * (shape_.ranks - 1) * shape_.tiles() * record_bytes;
    const double useful_flops =
        4.0 * shape_.head_dim * static_cast<double>(shape_.kv_len) * shape_.tiles() * shape_.ranks;
    metrics["kv_bytes_per_rank_bytes"] = kv_bytes;
    metrics["kv_read_GBps_per_rank_median"] = kv_bytes / timing.median_ns;
    metrics["kv_read_GBps_per_rank_mean"] = kv_bytes / timing.mean_ns;
    metrics["exchanged_bytes"] = pushed;  // records that cross between ranks, all ranks together
    metrics["useful_flops"] = useful_flops;
    metrics["useful_TFLOPs_median"] = useful_flops / timing.median_ns * 1e-3;
    metrics["time_median_ns"] = timing.median_ns;
    metrics["split_kv_workgroups"] = shape_.batch * shape_.head_groups() * shape_.splits;
    metrics["global_reduce_workgroups"] = global_reduce_grid(shape_, reduce_workgroups_);
    if (variant_ == Variant::bsp) metrics["all_gather_workgroups"] = channels_;
  }

 private:
  struct RankBuffers {
    __half* q = nullptr;
    __half* k = nullptr;
    __half* v = nullptr;
    __half* partials = nullptr;  // [batch][q_heads][splits] records
    __half* combined = nullptr;  // [batch][q_heads] records (bsp)
    __half* gathered = nullptr;  // [ranks][batch][q_heads] records
    __half* o = nullptr;         // [batch][q_heads][head_dim]
    int* sync = nullptr;         // flags and counter (setup says where)
  };
  static std::uint64_t q_seed(const Context& context) { return context.seed() * 64 + 1; }
  static std::uint64_t k_seed(const Context& context, int rank) { return context.seed() * 64 + 2 + rank; }
  static std::uint64_t v_seed(const Context& context, int rank) { return context.seed() * 64 + 2 + 8 + rank; }

  FlashDecodeShape shape_;
  Variant variant_ = Variant::bsp;
  bool staggered_ = false;
  int collective_workgroups_ = 16;
  int reduce_workgroups_ = 64;
  int channels_ = 1;
  std::size_t shard_bytes_ = 0;
  std::size_t tile_flags_offset_ = 0, pair_flags_offset_ = 0, counter_offset_ = 0, gather_flags_offset_ = 0;
  std::size_t sync_ints_ = 0;
  std::vector<RankBuffers> buffers_;
  PerRank<__half*> gathered_;
  PerRank<int*> tile_flags_;
  PerRank<int*> pair_flags_;
  PerRank<int*> gather_flags_;
};

}  // namespace

CaseInfo flash_decode_case() {
  CaseInfo info;
  info.name = "flash_decode";
  info.kind = "pattern";
  info.description =
      "distributed split-KV decode (GQA, KV sharded along the sequence): split_kv -> combine -> bsp all-gather, "
      "or fused push with flags per rank pair / per (source, batch, head) -> global reduce";
  info.min_ranks = 1;
  info.max_ranks = kFlashDecodeMaxRanks;
  info.params = {
      {"variant", ParamType::text, "bsp", "bsp, fused_coarse or fused (Tessera flash_decode variants)"},
      {"batch", ParamType::integer, "4", "sequences, one query token each"},
      {"q_heads", ParamType::integer, "96", "query heads"},
      {"kv_heads", ParamType::integer, "12", "K/V heads; q_heads / kv_heads is the GQA group"},
      {"head_dim", ParamType::integer, "128", "elements per head: 64 or 128"},
      {"kv_len_per_rank", ParamType::integer, "16384", "KV tokens of every sequence on each rank; a multiple of "
                                                       "kv_splits x 64"},
      {"kv_splits", ParamType::integer, "32", "splits of each rank's KV per (sequence, KV head)"},
      {"peer_order", ParamType::text, "natural",
       "natural: destinations and sources 0, 1, ...; staggered: rank, rank + 1, ... (mod ranks)"},
      {"collective_workgroups", ParamType::integer, "16", "bsp: workgroups (channels) of the one-shot all-gather"},
      {"reduce_workgroups", ParamType::integer, "64",
       "most workgroups of the global reduce (8 waves each, a wave per (batch, head)); kept small so that a "
       "spinning reduce never fills the GPU"}};
  info.make = [](const Params& params, int ranks) { return std::make_unique<FlashDecode>(params, ranks); };
  info.tessera_workload = [](const Params& params, int ranks) {
    nlohmann::json workload{{"kind", "flash_decode"},
                            {"variant", params.text("variant")},
                            {"batch", params.integer("batch")},
                            {"q_heads", params.integer("q_heads")},
                            {"kv_heads", params.integer("kv_heads")},
                            {"head_dim", params.integer("head_dim")},
                            {"kv_len_per_rank", params.integer("kv_len_per_rank")},
                            {"kv_splits", params.integer("kv_splits")},
                            {"ranks", ranks},
                            {"dtype", "fp16"},
                            {"block_n", kFlashDecodeBlockN},
                            {"block_h", kFlashDecodeBlockH},
                            {"shared_kv", false},
                            {"peer_order", params.text("peer_order")}};
    if (params.text("variant") == "bsp") {
      workload["collective"] = "one_shot";
      workload["collective_workgroups"] = params.integer("collective_workgroups");
    }
    return workload;
  };
  return info;
}

}  // namespace tk

// decode (pattern, 1 rank): one decode step of a transformer on one GPU, Tessera's kind `decode`
// (workloads/patterns/decode.h, docs/workloads.md): `batch` sequences each produce one token, attending to `context`
// cached tokens and their new one, through `layers` decoder layers of the given shapes (defaults: Qwen3-8B's, four
// layers). The operators and their tasks are decode_step.h's (patterns/decode_kernels.h lists them); the LM head is
// left out (the workload says lm_head: false). Variants (Tessera's `variant`):
//   kernel_per_op  a kernel per operator and layer, grid = its tasks, back to back on the stream;
//   megakernel     one persistent kernel of workers_per_cu workers per SM/CU; each operator's tasks dealt in task
//                  order (task t to worker t mod W); a task waits for its producers' counters, publishes its own;
//   chiplet_tasks  as megakernel, an operator's column tiles dealt to the dies round robin and each die's tasks to
//                  its workers (dies: NVIDIA's two L2 partitions, AMD's XCDs; decode_kernels.hip says how a worker
//                  finds its die).
// fp16 everywhere, fp32 accumulation. Inputs are uniform random values scaled so that activations stay O(1) over the
// layers, and the attention is peaked enough (q-norm weights near 3) that the new token, a split or a head going
// missing moves the outputs by more than fp16 rounding does.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/device_data.h"
#include "harness/half.h"
#include "harness/hip_check.h"
#include "harness/timing.h"
#include "patterns/attention_reference.h"
#include "patterns/decode_cases.h"
#include "patterns/decode_kernels.h"
#include "patterns/gemm_tile_order.h"

namespace tk {

namespace {

enum class Variant { kernel_per_op, megakernel, chiplet_tasks };

// The host reference's budget: multiply-adds of the checked sequences' layers (weights dominate), about a second
// on one host core. The first and the last sequence (the last row block) are always checked.
constexpr double kReferenceMacs = 1.5e9;

// The shapes the parameters give, and what follows from them (Tessera's decode_step.cc does the same arithmetic).
struct Shape {
  int hidden = 4096;
  int heads = 32;
  int kv_heads = 8;
  int head_dim = 128;
  int intermediate = 12288;
  int layers = 4;
  bool qk_norm = true;
  int batch = 1;
  int context = 1024;
  int kv_partition = 512;

  int group() const { return heads / kv_heads; }
  int partition() const { return std::min(kv_partition, context); }  // Tessera: min(kv_partition, context)
  int splits() const { return (context + partition() - 1) / partition(); }
  int tiles_m() const { return (batch + kDecodeBlockM - 1) / kDecodeBlockM; }
  std::size_t q_width() const { return static_cast<std::size_t>(heads) * head_dim; }
  std::size_t kv_width() const { return static_cast<std::size_t>(kv_heads) * head_dim; }
  std::size_t qkv_width() const { return q_width() + 2 * kv_width(); }
  // The embedding table's rows: sequence b reads row b (as Tessera's trace does), so at least the batch; a multiple
  // of 16 as Tessera requires of every linear's outputs (the LM head's, were it there).
  int vocab() const { return std::max(16, (batch + 15) / 16 * 16); }
  // Multiply-adds of one sequence through the layers' four linears.
  double linear_macs() const {
    const double h = hidden;
    return static_cast<double>(layers) *
           (static_cast<double>(qkv_width()) * h + h * static_cast<double>(q_width()) + 3.0 * h * intermediate);
  }
};

// Seeds of the inputs (offsets of context.seed() * 64).
enum Seed : std::uint64_t {
  kSeedEmbedding = 1,
  kSeedNorms,
  kSeedQNorm,
  kSeedKNorm,
  kSeedQkv,
  kSeedO,
  kSeedGateUp,
  kSeedDown,
  kSeedKCache,
  kSeedVCache
};

// ---- the host reference -----------------------------------------------------------------------------------------

std::vector<std::uint16_t> copy_bits(Context& context, const __half* data, std::size_t count) {
  context.use(0);
  std::vector<std::uint16_t> bits(count);
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(bits.data(), data, count * sizeof(std::uint16_t), hipMemcpyDeviceToHost));
  return bits;
}

// fp16 bits -> float, every value once (the weights are converted row by row through it).
const std::vector<float>& half_table() {
  static const std::vector<float> table = [] {
    std::vector<float> values(65536);
    for (std::size_t bits = 0; bits < values.size(); ++bits) {
      values[bits] = half_bits_to_float(static_cast<std::uint16_t>(bits));
    }
    return values;
  }();
  return table;
}

// The value as the GPU stores it: rounded to fp16.
float stored(double value) { return half_rounded(static_cast<float>(value)); }

// Products of two fp16 values are exact in double; four partial sums let the compiler vectorise.
double dot(const float* a, const float* b, std::size_t count) {
  double sums[4] = {0, 0, 0, 0};
  for (std::size_t i = 0; i < count; i += 4) {
    for (std::size_t j = 0; j < 4; ++j) sums[j] += static_cast<double>(a[i + j]) * static_cast<double>(b[i + j]);
  }
  return (sums[0] + sums[1]) + (sums[2] + sums[3]);
}

// y[s][j] = x[s] . weight row j (n rows of k fp16 values) for every checked sequence s.
std::vector<std::vector<double>> reference_linear(const std::vector<std::uint16_t>& weight, std::size_t n,
                                                  std::size_t k, const std::vector<std::vector<float>>& x) {
  const std::vector<float>& table = half_table();
  std::vector<std::vector<double>> y(x.size(), std::vector<double>(n));
  std::vector<float> row(k);
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint16_t* bits = weight.data() + j * k;
    for (std::size_t i = 0; i < k; ++i) row[i] = table[bits[i]];
    for (std::size_t s = 0; s < x.size(); ++s) y[s][j] = dot(row.data(), x[s].data(), k);
  }
  return y;
}

// RMSNorm of a row with its weight, stored as fp16.
std::vector<float> reference_rms_norm(const std::vector<float>& x, const float* weight) {
  double squares = 0;
  for (float value : x) squares += static_cast<double>(value) * value;
  const double scale = 1.0 / std::sqrt(squares / static_cast<double>(x.size()) + kDecodeRmsEps);
  std::vector<float> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = stored(x[i] * scale * weight[i]);
  return out;
}

// A head's [RMSNorm with `weight`, then] rotary embedding at `position` (pairs i, i + dim/2), stored as fp16.
void reference_norm_rope(const float* x, const float* weight, int dim, int position, float* out) {
  std::vector<double> values(x, x + dim);
  if (weight != nullptr) {
    double squares = 0;
    for (double value : values) squares += value * value;
    const double scale = 1.0 / std::sqrt(squares / dim + kDecodeRmsEps);
    for (int i = 0; i < dim; ++i) values[i] *= scale * weight[i];
  }
  const int half_dim = dim / 2;
  for (int i = 0; i < half_dim; ++i) {
    const double angle = position * std::pow(kDecodeRopeTheta, -2.0 * i / dim);
    const double c = std::cos(angle), s = std::sin(angle);
    out[i] = stored(values[i] * c - values[i + half_dim] * s);
    out[i + half_dim] = stored(values[i + half_dim] * c + values[i] * s);
  }
}

// ---- the case ---------------------------------------------------------------------------------------------------

class Decode final : public Case {
 public:
  explicit Decode(const Params& params) {
    const std::string& variant = params.text("variant");
    if (variant == "kernel_per_op") variant_ = Variant::kernel_per_op;
    else if (variant == "megakernel") variant_ = Variant::megakernel;
    else if (variant == "chiplet_tasks") variant_ = Variant::chiplet_tasks;
    else throw std::invalid_argument("variant: kernel_per_op, megakernel or chiplet_tasks, not '" + variant + "'");
    const auto in_range = [&](const char* key, std::int64_t low, std::int64_t high) {
      const std::int64_t value = params.integer(key);
      if (value < low || value > high) {
        throw std::invalid_argument(std::string(key) + ": " + std::to_string(value) + " is outside " +
                                    std::to_string(low) + " .. " + std::to_string(high));
      }
      return static_cast<int>(value);
    };
    const auto multiple_of_16 = [](const char* key, int value) {
      if (value % 16 != 0) {
        throw std::invalid_argument(std::string(key) + ": " + std::to_string(value) +
                                    " is not a multiple of 16 (a linear layer's narrowest tile, as in Tessera)");
      }
    };
    shape_.hidden = in_range("hidden", 16, 1 << 20);
    shape_.heads = in_range("heads", 1, 1024);
    shape_.kv_heads = in_range("kv_heads", 1, 1024);
    shape_.head_dim = in_range("head_dim", 64, 128);
    shape_.intermediate = in_range("intermediate", 16, 1 << 20);
    shape_.layers = in_range("layers", 1, 1024);
    shape_.qk_norm = in_range("qk_norm", 0, 1) == 1;
    shape_.batch = in_range("batch", 1, 1024);
    shape_.context = in_range("context", 1, 1 << 20);
    shape_.kv_partition = in_range("kv_partition", 1, 1 << 20);
    workers_per_cu_ = in_range("workers_per_cu", 1, 64);
    multiple_of_16("hidden", shape_.hidden);
    multiple_of_16("intermediate", shape_.intermediate);
    if (shape_.head_dim != 64 && shape_.head_dim != 128) throw std::invalid_argument("head_dim: 64 or 128");
    if (shape_.heads % shape_.kv_heads != 0) {
      throw std::invalid_argument("kv_heads: " + std::to_string(shape_.heads) + " query heads are not a multiple of " +
                                  std::to_string(shape_.kv_heads) + " KV heads");
    }
    if (shape_.group() > kDecodeMaxGroup) {
      throw std::invalid_argument("kv_heads: at most 16 query heads per KV head (an attention task holds its group "
                                  "in one 16-row matrix tile)");
    }
  }

  void setup(Context& context) override {
    context.use(0);
    int compute_units = 0, max_shared = 0;
    HIP_CHECK(hipDeviceGetAttribute(&compute_units, hipDeviceAttributeMultiprocessorCount, context.device(0)));
    HIP_CHECK(hipDeviceGetAttribute(&max_shared, hipDeviceAttributeMaxSharedMemoryPerBlock, context.device(0)));
    plan(compute_units);
    allocate_and_fill(context);

    shared_bytes_ = decode_megakernel_shared_bytes(args_);
    if (shared_bytes_ > static_cast<std::size_t>(max_shared)) {
      throw std::runtime_error("decode: a task needs " + std::to_string(shared_bytes_) +
                               " bytes of shared memory; this GPU gives a workgroup " + std::to_string(max_shared));
    }
    prepare_decode_kernels(shape_.head_dim, shared_bytes_);
    if (variant_ != Variant::kernel_per_op) {
      // A persistent kernel's workers wait for each other: all of them must be resident at once.
      const int per_cu = decode_megakernel_per_cu(shape_.head_dim, shared_bytes_);
      if (per_cu < workers_per_cu_) {
        throw std::runtime_error("workers_per_cu: " + std::to_string(workers_per_cu_) +
                                 " workers per SM/CU, but one holds only " + std::to_string(per_cu) +
                                 " megakernel workgroups (" + std::to_string(shared_bytes_) +
                                 " bytes of shared memory each): the workers could not all be resident");
      }
      workers_ = compute_units * workers_per_cu_;
      if (variant_ == Variant::chiplet_tasks && workers_ < args_.dies) {
        throw std::runtime_error("chiplet_tasks: fewer workers than dies");
      }
    }
  }

  void poison_outputs(Context& context) override {
    const Shape& s = shape_;
    const std::size_t b = static_cast<std::size_t>(s.batch);
    const std::size_t new_elements = static_cast<std::size_t>(s.layers) * b * s.kv_width();
    poison(context, 0, args_.hidden, b * s.hidden * 2);
    poison(context, 0, args_.xn, b * s.hidden * 2);
    poison(context, 0, args_.qkv, b * s.qkv_width() * 2);
    poison(context, 0, args_.q, b * s.q_width() * 2);
    if (args_.partials != nullptr) poison(context, 0, args_.partials, partials_elements() * 2);
    poison(context, 0, args_.attn_out, b * s.q_width() * 2);
    poison(context, 0, args_.gate_up, b * 2 * s.intermediate * 2);
    poison(context, 0, args_.act, b * s.intermediate * 2);
    poison(context, 0, args_.k_new, new_elements * 2);
    poison(context, 0, args_.v_new, new_elements * 2);
  }

  // The persistent kernels' counters and the dies' registry back to 0 (kernel_per_op has none).
  void reset(Context& context) override {
    if (variant_ == Variant::kernel_per_op) return;
    context.use(0);
    HIP_CHECK(hipMemsetAsync(args_.counters, 0, static_cast<std::size_t>(decode_sync_ints(args_.dies)) * sizeof(int),
                             context.stream(0)));
  }

  void enqueue(Context& context, int /*rank*/) override {
    const hipStream_t stream = context.stream(0);
    if (variant_ != Variant::kernel_per_op) {
      launch_decode_megakernel(args_, variant_ == Variant::chiplet_tasks, workers_, shared_bytes_, stream);
      return;
    }
    launch_decode_op(args_, DecodeOp::embedding, 0, stream);
    for (int layer = 0; layer < shape_.layers; ++layer) {
      for (int op = static_cast<int>(DecodeOp::rms_norm_attn); op < kDecodeOps; ++op) {
        if (args_.tasks[op] > 0) launch_decode_op(args_, static_cast<DecodeOp>(op), layer, stream);
      }
    }
  }

  // The final hidden rows of a spread of sequences (the first and the last always), and the last layer's attention
  // output of the same sequences, against the step computed on the host in double precision from the same inputs,
  // with every value the GPU stores in fp16 (hidden, xn, qkv, q, k, attn_out, gate_up, act) rounded to fp16 where
  // it stores it.
  CheckResult check(Context& context) override {
    const Shape& s = shape_;
    const std::vector<int> sequences = checked_sequences();
    const std::size_t count = sequences.size();
    const std::size_t h = static_cast<std::size_t>(s.hidden);
    const std::size_t i_size = static_cast<std::size_t>(s.intermediate);
    const int dim = s.head_dim;
    const int group = s.group();

    std::vector<std::vector<float>> hidden(count);
    for (std::size_t c = 0; c < count; ++c) {
      hidden[c] = copy_to_host(context, 0, args_.embedding + static_cast<std::size_t>(sequences[c]) * h, h);
    }
    std::vector<std::vector<double>> attention(count, std::vector<double>(s.q_width()));
    for (int layer = 0; layer < s.layers; ++layer) {
      const std::size_t l = static_cast<std::size_t>(layer);
      const std::vector<float> norms = copy_to_host(context, 0, args_.norms + l * 2 * h, 2 * h);
      std::vector<float> qk_norms;
      if (s.qk_norm) {
        qk_norms = copy_to_host(context, 0, args_.qk_norms + l * 2 * dim, 2 * static_cast<std::size_t>(dim));
      }

      std::vector<std::vector<float>> xn(count);
      for (std::size_t c = 0; c < count; ++c) xn[c] = reference_rms_norm(hidden[c], norms.data());
      const std::vector<std::vector<double>> qkv = reference_linear(
          copy_bits(context, args_.qkv_proj.weight + l * s.qkv_width() * h, s.qkv_width() * h), s.qkv_width(), h, xn);

      std::vector<std::vector<float>> attention_in(count, std::vector<float>(s.q_width()));
      for (std::size_t c = 0; c < count; ++c) {
        std::vector<float> row(s.qkv_width());
        for (std::size_t j = 0; j < row.size(); ++j) row[j] = stored(qkv[c][j]);
        std::vector<float> q(s.q_width());
        for (int head = 0; head < s.heads; ++head) {
          reference_norm_rope(row.data() + static_cast<std::size_t>(head) * dim, s.qk_norm ? qk_norms.data() : nullptr,
                              dim, s.context, q.data() + static_cast<std::size_t>(head) * dim);
        }
        const std::size_t tokens = static_cast<std::size_t>(s.context) + 1;
        std::vector<float> keys(tokens * dim), values(tokens * dim);
        for (int kv_head = 0; kv_head < s.kv_heads; ++kv_head) {
          // The context's cached K and V of (layer, sequence, KV head), then the new token's.
          const std::size_t first =
              ((l * s.batch + static_cast<std::size_t>(sequences[c])) * s.kv_heads + kv_head) * s.context * dim;
          const std::size_t cached = static_cast<std::size_t>(s.context) * dim;
          const std::vector<float> k = copy_to_host(context, 0, args_.k_cache + first, cached);
          const std::vector<float> v = copy_to_host(context, 0, args_.v_cache + first, cached);
          std::copy(k.begin(), k.end(), keys.begin());
          std::copy(v.begin(), v.end(), values.begin());
          const float* new_k = row.data() + s.q_width() + static_cast<std::size_t>(kv_head) * dim;
          reference_norm_rope(new_k, s.qk_norm ? qk_norms.data() + dim : nullptr, dim, s.context, keys.data() + cached);
          std::copy(new_k + s.kv_width(), new_k + s.kv_width() + dim,
                    values.begin() + static_cast<std::ptrdiff_t>(cached));
          for (int g = 0; g < group; ++g) {
            const std::size_t head = static_cast<std::size_t>(kv_head) * group + g;
            double* out = attention[c].data() + head * dim;
            reference_attention_row(q.data() + head * dim, keys.data(), values.data(), tokens, dim,
                                    1.0 / std::sqrt(static_cast<double>(dim)), out);
            for (int d = 0; d < dim; ++d) attention_in[c][head * dim + d] = stored(out[d]);
          }
        }
      }
      const std::vector<std::vector<double>> o = reference_linear(
          copy_bits(context, args_.o_proj.weight + l * h * s.q_width(), h * s.q_width()), h, s.q_width(), attention_in);
      for (std::size_t c = 0; c < count; ++c) {
        for (std::size_t j = 0; j < h; ++j) hidden[c][j] = stored(hidden[c][j] + o[c][j]);
        xn[c] = reference_rms_norm(hidden[c], norms.data() + h);
      }
      const std::vector<std::vector<double>> gate_up = reference_linear(
          copy_bits(context, args_.gate_up_proj.weight + l * 2 * i_size * h, 2 * i_size * h), 2 * i_size, h, xn);
      std::vector<std::vector<float>> act(count, std::vector<float>(i_size));
      for (std::size_t c = 0; c < count; ++c) {
        for (std::size_t j = 0; j < i_size; ++j) {
          const double gate = stored(gate_up[c][j]);
          act[c][j] = stored(gate / (1.0 + std::exp(-gate)) * stored(gate_up[c][i_size + j]));
        }
      }
      const std::vector<std::vector<double>> down =
          reference_linear(copy_bits(context, args_.down_proj.weight + l * h * i_size, h * i_size), h, i_size, act);
      for (std::size_t c = 0; c < count; ++c) {
        for (std::size_t j = 0; j < h; ++j) hidden[c][j] = stored(hidden[c][j] + down[c][j]);
      }
    }

    std::vector<float> got_hidden, got_attention;
    std::vector<double> expected_hidden, expected_attention;
    for (std::size_t c = 0; c < count; ++c) {
      const std::size_t b = static_cast<std::size_t>(sequences[c]);
      const std::vector<float> row = copy_to_host(context, 0, args_.hidden + b * h, h);
      got_hidden.insert(got_hidden.end(), row.begin(), row.end());
      expected_hidden.insert(expected_hidden.end(), hidden[c].begin(), hidden[c].end());
      const std::vector<float> out = copy_to_host(context, 0, args_.attn_out + b * s.q_width(), s.q_width());
      got_attention.insert(got_attention.end(), out.begin(), out.end());
      expected_attention.insert(expected_attention.end(), attention[c].begin(), attention[c].end());
    }
    // Both sides round the same values to fp16 at the same places, so what differs is the GPU's fp32 sums (against
    // double), its fp16 softmax weights P and, with several splits, its fp16 partial records: the log-sum-exp (about
    // 8 to 12 here) to +-2^-8, a weight error of up to 0.4% between two splits' outputs; and every difference may
    // flip an fp16 rounding (2^-11 of a value) that the next layers carry on. Estimated: a few 1e-3 of the largest
    // attention output, about 1e-3 of the largest hidden value. A head, split, token or row block gone missing or
    // misplaced moves either by far more than the tolerances (2e-2, as flash_decode's records; 1e-2).
    CheckResult attention_result = compare_relative(got_attention, expected_attention, 2e-2, "attn_out");
    CheckResult hidden_result = compare_relative(got_hidden, expected_hidden, 1e-2, "hidden");
    CheckResult result = combine(hidden_result, attention_result);
    std::string which;
    for (int b : sequences) which += (which.empty() ? "" : ", ") + std::to_string(b);
    result.detail = "sequences " + which + " of " + std::to_string(s.batch) + ": final hidden (" +
                    std::to_string(s.hidden) + " values each) and the last layer's attn_out (" +
                    std::to_string(s.q_width()) + ") vs the step in double on the host over all " +
                    std::to_string(s.layers) + " layers; " + hidden_result.detail + "; " + attention_result.detail;
    return result;
  }

  void derive_metrics(const Context& /*context*/, const Timing& timing, nlohmann::json& metrics) const override {
    const Shape& s = shape_;
    const double h = s.hidden;
    const double weight_bytes =
        2.0 * s.layers *
        (static_cast<double>(s.qkv_width()) * h + h * static_cast<double>(s.q_width()) + 3.0 * h * s.intermediate);
    const double kv_bytes = 2.0 * 2.0 * s.layers * s.batch * static_cast<double>(s.kv_width()) * s.context;
    metrics["weight_bytes"] = weight_bytes;
    metrics["kv_cache_bytes"] = kv_bytes;
    metrics["streamed_GBps_median"] = (weight_bytes + kv_bytes) / timing.median_ns;
    metrics["streamed_GBps_mean"] = (weight_bytes + kv_bytes) / timing.mean_ns;
    metrics["time_median_ns"] = timing.median_ns;
    metrics["splits"] = s.splits();
    metrics["kv_partition_tokens"] = s.partition();
    metrics["shared_memory_bytes"] = shared_bytes_;
    for (DecodeOp op : {DecodeOp::qkv_proj, DecodeOp::o_proj, DecodeOp::gate_up, DecodeOp::down}) {
      metrics[std::string("block_n_") + decode_op_name(op)] = linear(op).block_n;
    }
    int kernels = 1;
    if (variant_ == Variant::kernel_per_op) {
      int per_layer = 0;
      for (int op = static_cast<int>(DecodeOp::rms_norm_attn); op < kDecodeOps; ++op) per_layer += args_.tasks[op] > 0;
      kernels += s.layers * per_layer;
    } else {
      metrics["workers"] = workers_;
      if (variant_ == Variant::chiplet_tasks) metrics["dies"] = args_.dies;
    }
    metrics["kernels"] = kernels;
  }

 private:
  const DecodeLinear& linear(DecodeOp op) const {
    return op == DecodeOp::qkv_proj  ? args_.qkv_proj
           : op == DecodeOp::o_proj  ? args_.o_proj
           : op == DecodeOp::gate_up ? args_.gate_up_proj
                                     : args_.down_proj;
  }

  std::size_t partials_elements() const {
    return static_cast<std::size_t>(shape_.batch) * shape_.heads * shape_.splits() * (shape_.head_dim + 1);
  }

  // Shapes, tiles and task counts (decode_step.cc's plan_decode_step), block_n for this GPU's compute units.
  void plan(int compute_units) {
    const Shape& s = shape_;
    DecodeArgs& a = args_;
    a.batch = s.batch;
    a.hidden_size = s.hidden;
    a.heads = s.heads;
    a.kv_heads = s.kv_heads;
    a.head_dim = s.head_dim;
    a.intermediate = s.intermediate;
    a.layers = s.layers;
    a.context = s.context;
    a.partition = s.partition();
    a.splits = s.splits();
    a.qk_norm = s.qk_norm ? 1 : 0;
    a.tiles_m = s.tiles_m();
    a.dies = gemm::default_remap_dies();
    const auto set_linear = [&](DecodeLinear& op, DecodeOp which, std::size_t n, std::size_t k, bool residual) {
      op.n = static_cast<int>(n);
      op.k = static_cast<int>(k);
      op.block_n = decode_block_n(op.n, a.tiles_m, compute_units);
      op.residual = residual ? 1 : 0;
      a.tasks[static_cast<int>(which)] = a.tiles_m * (op.n / op.block_n);
    };
    set_linear(a.qkv_proj, DecodeOp::qkv_proj, s.qkv_width(), s.hidden, false);
    set_linear(a.o_proj, DecodeOp::o_proj, s.hidden, s.q_width(), true);
    set_linear(a.gate_up_proj, DecodeOp::gate_up, 2 * static_cast<std::size_t>(s.intermediate), s.hidden, false);
    set_linear(a.down_proj, DecodeOp::down, s.hidden, s.intermediate, true);
    const auto set_tasks = [&](DecodeOp op, int tasks) { a.tasks[static_cast<int>(op)] = tasks; };
    set_tasks(DecodeOp::embedding, s.batch);
    set_tasks(DecodeOp::rms_norm_attn, s.batch);
    set_tasks(DecodeOp::rope_q, s.batch * s.heads);
    set_tasks(DecodeOp::kv_write, s.batch * s.kv_heads);
    set_tasks(DecodeOp::attention, s.batch * s.kv_heads * s.splits());
    set_tasks(DecodeOp::attn_combine, s.splits() > 1 ? s.batch * s.heads : 0);
    set_tasks(DecodeOp::rms_norm_mlp, s.batch);
    set_tasks(DecodeOp::act, s.batch);
  }

  void allocate_and_fill(Context& context) {
    const Shape& s = shape_;
    DecodeArgs& a = args_;
    const std::size_t b = static_cast<std::size_t>(s.batch);
    const std::size_t h = static_cast<std::size_t>(s.hidden);
    const std::size_t i_size = static_cast<std::size_t>(s.intermediate);
    const std::size_t l = static_cast<std::size_t>(s.layers);
    const std::size_t dim = static_cast<std::size_t>(s.head_dim);
    const std::size_t cache = l * b * s.kv_width() * s.context;
    const std::uint64_t seed = context.seed() * 64;
    const auto weights = [&](std::size_t n, std::size_t k, Seed which) {
      __half* w = context.allocate<__half>(0, l * n * k);
      // Uniform in +-1/sqrt(k): an output of k products of O(1) inputs stays O(1) (variance 1/3 of the inputs').
      const float bound = static_cast<float>(1.0 / std::sqrt(static_cast<double>(k)));
      fill_uniform(context, 0, w, l * n * k, seed + which, -bound, bound);
      return w;
    };

    __half* embedding = context.allocate<__half>(0, static_cast<std::size_t>(s.vocab()) * h);
    fill_uniform(context, 0, embedding, static_cast<std::size_t>(s.vocab()) * h, seed + kSeedEmbedding, -1.0f, 1.0f);
    a.embedding = embedding;
    __half* norms = context.allocate<__half>(0, l * 2 * h);
    fill_uniform(context, 0, norms, l * 2 * h, seed + kSeedNorms, 0.8f, 1.2f);
    a.norms = norms;
    if (s.qk_norm) {
      // q-norm weights near 3 make the scores' spread ~1.7 against the cache (whose keys have rms 0.58): a softmax
      // over some tens of tokens, in which every token, the new one included, weighs visibly.
      // Each layer's two vectors have their own seeds, above every other seed of this run.
      __half* qk_norms = context.allocate<__half>(0, l * 2 * dim);
      for (std::size_t layer = 0; layer < l; ++layer) {
        fill_uniform(context, 0, qk_norms + layer * 2 * dim, dim, (seed + kSeedQNorm) * 4096 + layer, 2.5f, 3.5f);
        fill_uniform(context, 0, qk_norms + (layer * 2 + 1) * dim, dim, (seed + kSeedKNorm) * 4096 + layer, 0.8f, 1.2f);
      }
      a.qk_norms = qk_norms;
    }
    a.qkv_proj.weight = weights(s.qkv_width(), h, kSeedQkv);
    a.o_proj.weight = weights(h, s.q_width(), kSeedO);
    a.gate_up_proj.weight = weights(2 * i_size, h, kSeedGateUp);
    a.down_proj.weight = weights(h, i_size, kSeedDown);
    __half* k_cache = context.allocate<__half>(0, cache);
    __half* v_cache = context.allocate<__half>(0, cache);
    fill_uniform(context, 0, k_cache, cache, seed + kSeedKCache, -1.0f, 1.0f);
    fill_uniform(context, 0, v_cache, cache, seed + kSeedVCache, -1.0f, 1.0f);
    a.k_cache = k_cache;
    a.v_cache = v_cache;

    a.hidden = context.allocate<__half>(0, b * h);
    a.xn = context.allocate<__half>(0, b * h);
    a.qkv = context.allocate<__half>(0, b * s.qkv_width());
    a.q = context.allocate<__half>(0, b * s.q_width());
    if (s.splits() > 1) a.partials = context.allocate<__half>(0, partials_elements());
    a.attn_out = context.allocate<__half>(0, b * s.q_width());
    a.gate_up = context.allocate<__half>(0, b * 2 * i_size);
    a.act = context.allocate<__half>(0, b * i_size);
    a.k_new = context.allocate<__half>(0, l * b * s.kv_width());
    a.v_new = context.allocate<__half>(0, l * b * s.kv_width());
    a.counters = context.allocate<int>(0, static_cast<std::size_t>(decode_sync_ints(a.dies)));
    a.registry = a.counters + kDecodeOps * kDecodeCounterStride;

    a.qkv_proj.input = a.xn;
    a.qkv_proj.output = a.qkv;
    a.o_proj.input = a.attn_out;
    a.o_proj.output = a.hidden;
    a.gate_up_proj.input = a.xn;
    a.gate_up_proj.output = a.gate_up;
    a.down_proj.input = a.act;
    a.down_proj.output = a.hidden;
  }

  // As many sequences as the reference budget affords, spread over the batch, the first and the last always.
  std::vector<int> checked_sequences() const {
    const int batch = shape_.batch;
    const int affordable = static_cast<int>(kReferenceMacs / shape_.linear_macs());
    const int count = std::min(batch, std::max(2, affordable));
    if (count == 1) return {0};
    std::vector<int> sequences;
    for (int i = 0; i < count; ++i) {
      sequences.push_back(static_cast<int>(static_cast<std::int64_t>(i) * (batch - 1) / (count - 1)));
    }
    return sequences;
  }

  Shape shape_;
  Variant variant_ = Variant::kernel_per_op;
  int workers_per_cu_ = 1;
  int workers_ = 0;
  std::size_t shared_bytes_ = 0;
  DecodeArgs args_;
};

}  // namespace

CaseInfo decode_case() {
  CaseInfo info;
  info.name = "decode";
  info.kind = "pattern";
  info.description =
      "one transformer decode step on one GPU (Qwen3-8B shapes): a kernel per operator, a persistent megakernel with "
      "per-operator counters, or chiplet-scoped tasks (a weight tile's row blocks on one die)";
  info.params = {
      {"variant", ParamType::text, "kernel_per_op",
       "kernel_per_op, megakernel or chiplet_tasks (Tessera decode variants)"},
      {"hidden", ParamType::integer, "4096", "hidden size; a multiple of 16"},
      {"heads", ParamType::integer, "32", "query heads"},
      {"kv_heads", ParamType::integer, "8", "key/value heads; heads / kv_heads (at most 16) query heads share one"},
      {"head_dim", ParamType::integer, "128", "elements per head: 64 or 128"},
      {"intermediate", ParamType::integer, "12288",
       "MLP intermediate size (of the gate, of the up projection); a "
       "multiple of 16"},
      {"layers", ParamType::integer, "4", "decoder layers"},
      {"qk_norm", ParamType::integer, "1", "1: an RMSNorm over each query and key head before RoPE (Qwen3); 0: none"},
      {"batch", ParamType::integer, "1", "sequences, one new token each"},
      {"context", ParamType::integer, "1024", "cached tokens per sequence before this step"},
      {"kv_partition", ParamType::integer, "512", "cached tokens per attention split (the last may hold fewer)"},
      {"workers_per_cu", ParamType::integer, "1", "megakernel, chiplet_tasks: persistent workers per SM/CU"}};
  info.make = [](const Params& params, int) { return std::make_unique<Decode>(params); };
  info.tessera_workload = [](const Params& params, int) {
    Shape shape;
    shape.batch = static_cast<int>(params.integer("batch"));
    return nlohmann::json{{"kind", "decode"},
                          {"model", "custom"},
                          {"hidden", params.integer("hidden")},
                          {"heads", params.integer("heads")},
                          {"kv_heads", params.integer("kv_heads")},
                          {"head_dim", params.integer("head_dim")},
                          {"intermediate", params.integer("intermediate")},
                          {"layers", params.integer("layers")},
                          {"vocab", shape.vocab()},
                          {"qk_norm", params.integer("qk_norm") != 0},
                          {"batch", params.integer("batch")},
                          {"context", params.integer("context")},
                          {"kv_partition", params.integer("kv_partition")},
                          {"dtype", "fp16"},
                          {"variant", params.text("variant")},
                          {"workers_per_cu", params.integer("workers_per_cu")},
                          {"block_m", kDecodeBlockM},
                          {"lm_head", false}};
  };
  return info;
}

void append_decode_cases(std::vector<CaseInfo>& cases) { cases.push_back(decode_case()); }

}  // namespace tk

// nccl_all_reduce, nccl_all_gather, nccl_reduce_scatter, nccl_broadcast, nccl_reduce, nccl_all_to_all: the vendor
// library's collective on every rank of this one process, one communicator per GPU (ncclCommInitAll), every call of
// an iteration inside one ncclGroupStart / ncclGroupEnd, as nccl-tests runs several GPUs from one thread (its -g
// option). Broadcast and reduce have root 0 (nccl-tests' default, -r 0); all-to-all is nccl-tests' send/receive
// form (src/alltoall.cu, for NCCL before 2.28): each rank an ncclSend and an ncclRecv of size / n to and from every
// rank, itself included, all inside the group.
//
// Sizes, algbw and busbw follow nccl-tests (collectives/collective_sizes.h). Timing follows nccl-tests too, not the
// harness's flushed, gated iterations: `--warmup` collectives, then `--repeats` samples, each `iters` collectives
// back to back on every rank's stream between two device events; a sample is the slowest rank's event time over
// `iters`, so timing.mean_ns is the mean time of one collective (nccl-tests' "time").
//
// Whether that time is the host's pace or the GPUs' is not in it, so two host times are recorded beside it (the
// steady clock around the host's loop of `iters` collectives, per collective): `host_issue_us` during the timed
// samples, and `host_issue_held_us` with every GPU held at a start gate until the loop has returned (nothing runs on
// a GPU, so the host's calls cannot wait for one: the host's own cost of a collective). Where the first equals the
// collective's time and the second is shorter, the host's calls wait for the GPUs.
//
// Inputs are uniform in [0.5, 1) from a seed per rank (positive, so that every partial sum of a reduction is at most
// the final one and the rounding bound below holds); the check compares a deterministic sample of every rank's
// output with a double-precision host reference.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "collectives/collective_cases.h"
#include "collectives/collective_library.h"
#include "collectives/collective_sizes.h"
#include "harness/device_data.h"
#include "harness/start_gate.h"
#include "harness/timing.h"
#include "micro/micro_cases.h"

extern char** environ;

namespace tk {

namespace {

constexpr float kLow = 0.5f;
constexpr float kHigh = 1.0f;
constexpr std::size_t kCheckWindow = 4096;         // elements per window when sampling
constexpr std::size_t kCheckBudget = 64 * 1024;    // elements of each rank's output checked at most
constexpr std::int64_t kMaxIters = 100000;

#if defined(TK_PLATFORM_AMD)
constexpr const char* kLibraryName = "RCCL";
std::vector<std::string> default_library_names() { return {"librccl.so", "librccl.so.1"}; }
#else
constexpr const char* kLibraryName = "NCCL";
std::vector<std::string> default_library_names() { return {"libnccl.so.2", "libnccl.so"}; }
#endif

// The environment that changes what the library does (NCCL_NVLS_ENABLE=0 and the like), recorded in every result.
nlohmann::json library_environment() {
  nlohmann::json out = nlohmann::json::object();
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const std::size_t equals = text.find('=');
    if (equals == std::string::npos) continue;
    const std::string key = text.substr(0, equals);
    for (const char* prefix : {"NCCL_", "RCCL_", "NVSHMEM_", "TORCH_SYMM_MEM_", "TESSERA_NCCL_LIB"}) {
      if (key.rfind(prefix, 0) == 0) {
        out[key] = text.substr(equals + 1);
        break;
      }
    }
  }
  return out;
}

// The variables that change the library's algorithm, protocol and channel choices (NCCL_ALGO, NCCL_PROTO,
// NCCL_MAX_NCHANNELS, NCCL_MIN_NCHANNELS), those that are set: library.env.
nlohmann::json choice_environment() {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : collective_choice_environment()) out[key] = value;
  return out;
}

class Collective final : public Case {
 public:
  Collective(CollectiveOp op, const Params& params, int ranks)
      : op_(op),
        dtype_(params.text("dtype")),
        element_bytes_(collective_element_bytes(dtype_)),
        size_(collective_size(op, params.integer("size"), element_bytes_, ranks)),
        iters_(params.integer("iters")) {
    if (iters_ < 1 || iters_ > kMaxIters) {
      throw std::invalid_argument("iters: must be from 1 to " + std::to_string(kMaxIters));
    }
  }

  ~Collective() override {
    if (library_ == nullptr) return;
    for (CollectiveLibrary::Comm comm : comms_) {
      if (comm != nullptr) (void)library_->comm_destroy(comm);  // destructors must not throw
    }
  }

  void check_prerequisites() override {
    try {
      library_ = &load_collective_library(kLibraryName, default_library_names());
    } catch (const CollectiveLibraryMissing& missing) {
      throw CaseSkipped(missing.what());
    }
  }

  void setup(Context& context) override {
    const std::size_t all = static_cast<std::size_t>(size_.bytes);
    const std::size_t one = static_cast<std::size_t>(size_.count) * element_bytes_;
    // Each rank's part (all_gather sends it, reduce_scatter receives it); every other op sends and receives the
    // whole size (broadcast's send buffer counts on the root alone and reduce's receive buffer on the root alone,
    // but every rank has both, as in nccl-tests).
    send_bytes_ = op_ == CollectiveOp::all_gather ? one : all;
    receive_bytes_ = op_ == CollectiveOp::reduce_scatter ? one : all;
    std::vector<int> devices;
    for (int rank = 0; rank < context.ranks(); ++rank) {
      seeds_.push_back(rank_seed(context.seed(), rank));
      send_.push_back(context.allocate_bytes(rank, send_bytes_));
      receive_.push_back(context.allocate_bytes(rank, receive_bytes_));
      const std::size_t elements = send_bytes_ / element_bytes_;
      if (element_bytes_ == 2) {
        fill_uniform(context, rank, static_cast<__half*>(send_[rank]), elements, seeds_[rank], kLow, kHigh);
      } else {
        fill_uniform(context, rank, static_cast<float*>(send_[rank]), elements, seeds_[rank], kLow, kHigh);
      }
      devices.push_back(context.device(rank));
    }
    comms_.assign(devices.size(), nullptr);
    library_->check(library_->comm_init_all(comms_.data(), static_cast<int>(devices.size()), devices.data()),
                    "ncclCommInitAll");
  }

  void poison_outputs(Context& context) override {
    for (int rank = 0; rank < context.ranks(); ++rank) poison(context, rank, receive_[rank], receive_bytes_);
  }

  void enqueue(Context& /*context*/, int /*rank*/) override {
    throw std::logic_error("a collective is issued for every rank at once (enqueue_all)");
  }

  void enqueue_all(Context& context) override { issue(context); }

  bool times_itself() const override { return true; }

  void time_itself(Context& context, const TimingOptions& options, Timing& timing) override {
    const int ranks = context.ranks();
    timing.iterations_per_sample = static_cast<int>(iters_);
    for (int i = 0; i < options.warmup; ++i) issue(context);
    context.synchronize_all();
    std::vector<hipEvent_t> starts(ranks), stops(ranks);
    for (int rank = 0; rank < ranks; ++rank) {
      context.use(rank);
      HIP_CHECK(hipEventCreate(&starts[rank]));
      HIP_CHECK(hipEventCreate(&stops[rank]));
    }
    for (int sample = 0; sample < options.repeats; ++sample) {
      for (int rank = 0; rank < ranks; ++rank) {
        context.use(rank);
        HIP_CHECK(hipEventRecord(starts[rank], context.stream(rank)));
      }
      host_issue_ns_.push_back(issue_loop_ns(context));
      for (int rank = 0; rank < ranks; ++rank) {
        context.use(rank);
        HIP_CHECK(hipEventRecord(stops[rank], context.stream(rank)));
      }
      double slowest_ns = 0;
      for (int rank = 0; rank < ranks; ++rank) {
        context.use(rank);
        HIP_CHECK(hipEventSynchronize(stops[rank]));
        float elapsed_ms = 0;
        HIP_CHECK(hipEventElapsedTime(&elapsed_ms, starts[rank], stops[rank]));
        slowest_ns = std::max(slowest_ns, static_cast<double>(elapsed_ms) * 1e6);
      }
      timing.samples_ns.push_back(slowest_ns / static_cast<double>(iters_));
    }
    for (int rank = 0; rank < ranks; ++rank) {
      context.use(rank);
      HIP_CHECK(hipEventDestroy(starts[rank]));
      HIP_CHECK(hipEventDestroy(stops[rank]));
    }
    // The host's own cost: every GPU held at a gate while the host issues a sample's collectives.
    StartGate gate(context);
    for (int sample = 0; sample < options.repeats; ++sample) {
      gate.close();
      for (int rank = 0; rank < ranks; ++rank) gate.hold(context, rank);
      const double ns = issue_loop_ns(context);
      gate.release();
      context.synchronize_all();
      host_issue_held_ns_.push_back(ns);
    }
  }

  CheckResult check(Context& context) override {
    const int ranks = context.ranks();
    const std::size_t count = static_cast<std::size_t>(size_.count);
    const std::size_t elements = receive_bytes_ / element_bytes_;
    // Each rounding of a sum of positive values errs by at most u times that partial sum, at most the final sum:
    // n - 1 additions err by at most (n - 1) u of the largest reference value. Twice that; a copy is exact.
    const double unit_roundoff = element_bytes_ == 2 ? 1.0 / 2048 : 1.0 / 16777216;
    const bool sums = op_ == CollectiveOp::all_reduce || op_ == CollectiveOp::reduce_scatter ||
                      op_ == CollectiveOp::reduce;
    const double tolerance = sums ? 2.0 * (ranks - 1) * unit_roundoff : 0.0;
    auto input = [&](int rank, std::size_t index) -> double {
      const float value = uniform_value(seeds_[rank], index, kLow, kHigh);
      return element_bytes_ == 2 ? half_rounded(value) : value;
    };
    CheckResult all;
    std::size_t checked = 0;
    const std::vector<Window> windows = sampled_windows(elements, kCheckWindow, kCheckBudget);
    int ranks_checked = 0;
    for (int rank = 0; rank < ranks; ++rank) {
      // Reduce defines the root's output alone.
      if (op_ == CollectiveOp::reduce && rank != kCollectiveRoot) continue;
      std::vector<float> got;
      std::vector<double> expected;
      for (const Window& window : windows) {
        const std::vector<float> part =
            element_bytes_ == 2
                ? copy_to_host(context, rank, static_cast<const __half*>(receive_[rank]) + window.start, window.count)
                : copy_to_host(context, rank, static_cast<const float*>(receive_[rank]) + window.start, window.count);
        got.insert(got.end(), part.begin(), part.end());
        for (std::size_t i = window.start; i < window.start + window.count; ++i) {
          double reference = 0;
          switch (op_) {
            case CollectiveOp::all_reduce:
              for (int source = 0; source < ranks; ++source) reference += input(source, i);
              break;
            case CollectiveOp::all_gather:
              reference = input(static_cast<int>(i / count), i % count);
              break;
            case CollectiveOp::reduce_scatter:
              for (int source = 0; source < ranks; ++source) reference += input(source, rank * count + i);
              break;
            case CollectiveOp::broadcast:
              reference = input(kCollectiveRoot, i);
              break;
            case CollectiveOp::reduce:
              for (int source = 0; source < ranks; ++source) reference += input(source, i);
              break;
            case CollectiveOp::all_to_all:
              // The i-th value of rank `rank`'s receive buffer came from peer i / count, from that peer's part
              // for `rank`.
              reference = input(static_cast<int>(i / count), rank * count + i % count);
              break;
          }
          expected.push_back(reference);
        }
      }
      const CheckResult one = compare_relative(got, expected, tolerance, "rank " + std::to_string(rank));
      all = ranks_checked == 0 ? one : combine(all, one);
      checked += got.size();
      ++ranks_checked;
    }
    const std::string root =
        collective_has_root(op_) ? ", root " + std::to_string(kCollectiveRoot) +
                                       (op_ == CollectiveOp::reduce ? " (the only output reduce defines)" : "")
                                 : "";
    all.detail += " (" + std::string(collective_op_name(op_)) + root + ", " + dtype_ + ": " +
                  std::to_string(checked) + " output values over " + std::to_string(ranks_checked) +
                  " ranks, of " + std::to_string(elements) +
                  " per rank, in windows of " + std::to_string(kCheckWindow) +
                  " spread evenly when larger than " + std::to_string(kCheckBudget) +
                  "; inputs uniform in [0.5, 1) with a seed per rank; reference in double)";
    return all;
  }

  void derive_metrics(const Context& context, const Timing& timing, nlohmann::json& metrics) const override {
    const double bytes = static_cast<double>(size_.bytes);
    const double factor = collective_bus_factor(op_, context.ranks());
    metrics["size_bytes"] = size_.bytes;
    metrics["size_requested_bytes"] = size_.requested_bytes;
    metrics["size_rounded_up"] = size_.rounded_up();
    metrics["count"] = size_.count;
    if (collective_has_root(op_)) metrics["root"] = kCollectiveRoot;
    metrics["dtype"] = dtype_;
    metrics["ranks"] = context.ranks();
    metrics["bus_factor"] = factor;
    metrics["iterations_per_sample"] = iters_;
    // nccl-tests' columns, from the mean time of one collective (timing.mean_ns).
    metrics["time_us"] = timing.mean_ns / 1e3;
    metrics["algbw_GBps"] = bytes / timing.mean_ns;
    metrics["busbw_GBps"] = bytes / timing.mean_ns * factor;
    metrics["time_us_median"] = timing.median_ns / 1e3;
    metrics["algbw_GBps_median"] = bytes / timing.median_ns;
    metrics["busbw_GBps_median"] = bytes / timing.median_ns * factor;
    // The suite's bandwidth names (counted bytes over the timed span, as p2p_copy): algbw.
    metrics["host_issue_us"] = mean_of(host_issue_ns_) / 1e3;
    metrics["host_issue_held_us"] = mean_of(host_issue_held_ns_) / 1e3;
    metrics["counted_bytes"] = bytes;
    metrics["bandwidth_GBps_mean"] = bytes / timing.mean_ns;
    metrics["bandwidth_GBps_median"] = bytes / timing.median_ns;
  }

  void describe(nlohmann::json& result) const override {
    nlohmann::json library{{"name", kLibraryName}, {"loaded", library_ != nullptr}};
    if (library_ != nullptr) {
      library["version"] = library_->version;
      library["version_code"] = library_->version_code;
      library["path"] = library_->path;
    }
    // The variables that change the library's choices, those set (NCCL_ALGO, NCCL_PROTO, NCCL_MAX_NCHANNELS,
    // NCCL_MIN_NCHANNELS); `environment` below lists every NCCL_* variable.
    library["env"] = choice_environment();
    result["library"] = library;
    result["environment"] = library_environment();
  }

 private:
  int data_type() const { return element_bytes_ == 2 ? CollectiveLibrary::kFloat16 : CollectiveLibrary::kFloat32; }

  // The host's time per collective of a loop of `iters` collectives (steady clock, ns).
  double issue_loop_ns(Context& context) {
    const auto start = std::chrono::steady_clock::now();
    for (std::int64_t i = 0; i < iters_; ++i) issue(context);
    const std::chrono::duration<double, std::nano> spent = std::chrono::steady_clock::now() - start;
    return spent.count() / static_cast<double>(iters_);
  }

  static double mean_of(const std::vector<double>& values) {
    double sum = 0;
    for (double v : values) sum += v;
    return values.empty() ? 0.0 : sum / static_cast<double>(values.size());
  }

  // One collective on every rank: one call per communicator inside one group (a single thread drives every GPU);
  // all_to_all: an ncclSend and an ncclRecv per rank and peer, all in the group.
  void issue(Context& context) {
    const CollectiveLibrary& lib = *library_;
    lib.check(lib.group_start(), "ncclGroupStart");
    CollectiveLibrary::Result first_error = CollectiveLibrary::kSuccess;
    const char* failed_call = "";
    const std::size_t count = static_cast<std::size_t>(size_.count);
    for (int rank = 0; rank < context.ranks(); ++rank) {
      void* stream = static_cast<void*>(context.stream(rank));
      CollectiveLibrary::Result result = CollectiveLibrary::kSuccess;
      const char* call = "";
      switch (op_) {
        case CollectiveOp::all_reduce:
          call = "ncclAllReduce";
          result = lib.all_reduce(send_[rank], receive_[rank], count, data_type(), CollectiveLibrary::kSum,
                                  comms_[rank], stream);
          break;
        case CollectiveOp::all_gather:
          call = "ncclAllGather";
          result = lib.all_gather(send_[rank], receive_[rank], count, data_type(), comms_[rank], stream);
          break;
        case CollectiveOp::reduce_scatter:
          call = "ncclReduceScatter";
          result = lib.reduce_scatter(send_[rank], receive_[rank], count, data_type(), CollectiveLibrary::kSum,
                                      comms_[rank], stream);
          break;
        case CollectiveOp::broadcast:
          call = "ncclBroadcast";
          result = lib.broadcast(send_[rank], receive_[rank], count, data_type(), kCollectiveRoot, comms_[rank],
                                 stream);
          break;
        case CollectiveOp::reduce:
          call = "ncclReduce";
          result = lib.reduce(send_[rank], receive_[rank], count, data_type(), CollectiveLibrary::kSum,
                              kCollectiveRoot, comms_[rank], stream);
          break;
        case CollectiveOp::all_to_all: {
          // nccl-tests' alltoall: to and from every rank r (itself included) the r-th part, in rank order.
          const std::size_t part = count * element_bytes_;
          for (int peer = 0; peer < context.ranks() && result == CollectiveLibrary::kSuccess; ++peer) {
            call = "ncclSend";
            result = lib.send(static_cast<const char*>(send_[rank]) + peer * part, count, data_type(), peer,
                              comms_[rank], stream);
            if (result != CollectiveLibrary::kSuccess) break;
            call = "ncclRecv";
            result = lib.receive(static_cast<char*>(receive_[rank]) + peer * part, count, data_type(), peer,
                                 comms_[rank], stream);
          }
          break;
        }
      }
      if (result != CollectiveLibrary::kSuccess && first_error == CollectiveLibrary::kSuccess) {
        first_error = result;
        failed_call = call;
      }
    }
    // The group is closed even after a failed call, so that a later run of this process starts outside it.
    const CollectiveLibrary::Result end = lib.group_end();
    lib.check(first_error, failed_call);
    lib.check(end, "ncclGroupEnd");
  }

  CollectiveOp op_;
  std::string dtype_;
  int element_bytes_;
  CollectiveSize size_;
  std::int64_t iters_;
  const CollectiveLibrary* library_ = nullptr;
  std::vector<CollectiveLibrary::Comm> comms_;
  std::vector<std::uint64_t> seeds_;
  std::vector<void*> send_, receive_;
  std::size_t send_bytes_ = 0;
  std::size_t receive_bytes_ = 0;
  std::vector<double> host_issue_ns_, host_issue_held_ns_;  // per sample, per collective
};

CaseInfo collective_case(CollectiveOp op, const std::string& what, const std::string& size_meaning) {
  CaseInfo info;
  info.name = std::string("nccl_") + collective_op_name(op);
  info.kind = "microbenchmark";
  info.description = what + ", by the vendor library (NCCL; RCCL on AMD, loaded at run time), one communicator per "
                     "GPU of this process; nccl-tests sizes and timing: time_us, algbw_GBps, busbw_GBps";
  info.min_ranks = 2;
  info.max_ranks = 8;
  info.params = {
      {"size", ParamType::integer, "32 MiB",
       "bytes as nccl-tests counts them: " + size_meaning + " (rounded up to whole elements per rank)"},
      {"dtype", ParamType::text, "fp16", "fp16 or fp32"},
      {"iters", ParamType::integer, "20",
       "collectives back to back per timed sample (nccl-tests -n); --warmup collectives before, --repeats samples"}};
  info.make = [op](const Params& params, int ranks) { return std::make_unique<Collective>(op, params, ranks); };
  info.tessera_workload = [op](const Params& params, int ranks) {
    const std::string dtype = params.text("dtype");
    const CollectiveSize size = collective_size(op, params.integer("size"), collective_element_bytes(dtype), ranks);
    // No Tessera workload runs a vendor collective: calibrate lists these results as unused (no fit reads them).
    nlohmann::json workload{{"kind", "collective"},
                            {"op", collective_op_name(op)},
                            {"bytes", bytes_text(size.bytes)},
                            {"dtype", dtype},
                            {"library", kLibraryName}};
    if (collective_has_root(op)) workload["root"] = kCollectiveRoot;
    return workload;
  };
  return info;
}

}  // namespace

CaseInfo nccl_all_reduce_case() {
  return collective_case(CollectiveOp::all_reduce, "all-reduce (sum) of a buffer on every rank",
                         "the buffer on each rank");
}

CaseInfo nccl_all_gather_case() {
  return collective_case(CollectiveOp::all_gather, "all-gather of every rank's 1/n into the gathered buffer",
                         "the gathered (receive) buffer, n x each rank's part");
}

CaseInfo nccl_reduce_scatter_case() {
  return collective_case(CollectiveOp::reduce_scatter,
                         "reduce-scatter (sum) of a buffer, rank r keeping the r-th 1/n of the sum",
                         "the send buffer, n x each rank's result");
}

CaseInfo nccl_broadcast_case() {
  return collective_case(CollectiveOp::broadcast, "broadcast of rank 0's buffer to every rank",
                         "the buffer (root 0's send buffer, every rank's receive buffer)");
}

CaseInfo nccl_reduce_case() {
  return collective_case(CollectiveOp::reduce, "reduce (sum) of every rank's buffer into rank 0's",
                         "the buffer on each rank (the sum lands on root 0)");
}

CaseInfo nccl_all_to_all_case() {
  return collective_case(CollectiveOp::all_to_all,
                         "all-to-all: every rank sends its r-th 1/n to rank r (ncclSend/ncclRecv in one group, as "
                         "nccl-tests' alltoall)",
                         "each rank's whole send buffer, n x each peer's part");
}

void append_collective_cases(std::vector<CaseInfo>& cases) {
  cases.push_back(nccl_all_reduce_case());
  cases.push_back(nccl_all_gather_case());
  cases.push_back(nccl_reduce_scatter_case());
  cases.push_back(nccl_broadcast_case());
  cases.push_back(nccl_reduce_case());
  cases.push_back(nccl_all_to_all_case());
}

}  // namespace tk

// link: transfers between GPUs over several sizes: remote_load, remote_store (one GPU and one
// peer), all_load, all_store (every GPU with every peer at once) and p2p_copy (a copy engine).
//   time = a_case + bytes_per_link x (1 / link_bandwidth)
// with bytes_per_link = bytes moved by one GPU / the links that carry them (one peer's share of
// a full mesh, every link of a direct bundle or switch port). The slope is shared by all cases;
// each case with two sizes or more has its own intercept a_case; a case with one size uses the
// intercept the system already implies (its kernel overhead and link latency). The intercepts are
// reported, not fitted: like a copy's intercept in HBM (hbm_fit), a bulk transfer's mixes ramp-up
// and drain with the latency (on two H100s they came out 6.0-12.9 us, against a remote atomic's
// ~0.9 us round trip), so interconnect.link_latency comes from the atomics fit instead.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "sim/app/calibration/fits.h"
#include "sim/app/calibration/model_refinement.h"
#include "sim/app/calibration/system_figures.h"
#include "workloads/microbench/microbench_params.h"

namespace tessera::app::calibration {
namespace {

constexpr const char* kBandwidth = "interconnect.link_bandwidth";

struct CaseShape {
  bool all_peers;      // all_load, all_store
  double hops;         // link crossings on the critical path of the last access
  bool kernel;         // a kernel (launch overhead) rather than a copy engine
  double hbm_latencies;  // HBM latencies on that path
};

CaseShape shape_of(const std::string& name) {
  if (name == "remote_load") return {false, 2, true, 1};
  if (name == "all_load") return {true, 2, true, 1};
  if (name == "all_store") return {true, 1, true, 1};
  if (name == "p2p_copy") return {false, 1, false, 2};
  return {false, 1, true, 1};  // remote_store
}

FitOutcome fit(const FitInputs& in) {
  FitOutcome out;
  out.fit = "link";
  out.model = "time = a_case + bytes per link / link_bandwidth";
  out.unit = "ns";
  const auto all = points_of(in, {"remote_load", "remote_store", "all_load", "all_store", "p2p_copy"});
  if (all.empty() || in.system.num_gpus < 2 || links_to_one_peer(in.system) <= 0) {
    const std::string why = in.system.num_gpus < 2 ? "the system has one GPU"
                                                    : "no passed remote_load, remote_store, all_load, all_store or p2p_copy results";
    out.not_fitted = {{kBandwidth, why}};
    return out;
  }
  out.files = files_of(all);
  const auto direct_points = bandwidth_bound(in.system, all);
  const double n_gpus = in.system.num_gpus;
  const double hbm_ns = static_cast<double>(in.system.gpu.memory.hbm_latency_ps) / 1e3;
  const double link_ns = static_cast<double>(in.system.interconnect.link_latency_ps) / 1e3;
  // Per point: bytes per link, measured time, the part of the intercept the system implies.
  std::vector<double> x, y, known_ns;
  std::map<std::string, std::vector<std::size_t>> by_case;
  for (std::size_t i = 0; i < direct_points.size(); ++i) {
    const CalibrationPoint& p = *direct_points[i];
    const auto& mb = p.run->workload.params<workloads::microbench::MicrobenchParams>();
    const CaseShape shape = shape_of(p.source->case_name);
    const double links = shape.all_peers ? links_of_one_gpu(in.system) : links_to_one_peer(in.system);
    x.push_back(static_cast<double>(mb.bytes) * (shape.all_peers ? n_gpus - 1 : 1.0) / links);
    y.push_back(p.measured);
    const std::uint64_t workgroups = mb.workgroups == 0 ? default_stream_workgroups(in.system) : mb.workgroups;
    known_ns.push_back((shape.kernel ? kernel_overhead_ps(in.system, workgroups) / 1e3 : 0.0) + shape.hbm_latencies * hbm_ns +
                       shape.hops * link_ns);
    by_case[p.source->case_name].push_back(i);
  }
  // Columns: one intercept per case measured at two sizes or more, then the shared slope.
  std::vector<std::string> intercept_cases;
  for (const auto& [name, rows] : by_case) {
    std::vector<double> sizes;
    for (std::size_t i : rows) sizes.push_back(x[i]);
    if (distinct_values(sizes) >= 2) intercept_cases.push_back(name);
  }
  const auto n = static_cast<Eigen::Index>(direct_points.size());
  const auto columns = static_cast<Eigen::Index>(intercept_cases.size() + 1);
  Eigen::MatrixXd design = Eigen::MatrixXd::Zero(n, columns);
  Eigen::VectorXd rhs(n), weights(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const auto it = std::find(intercept_cases.begin(), intercept_cases.end(), direct_points[ui]->source->case_name);
    const bool own_intercept = it != intercept_cases.end();
    if (own_intercept) design(i, it - intercept_cases.begin()) = 1.0;
    design(i, columns - 1) = x[ui];
    rhs(i) = y[ui] - (own_intercept ? 0.0 : known_ns[ui]);
    weights(i) = 1.0 / y[ui];
  }
  const Eigen::VectorXd b = solve_weighted_least_squares(design, rhs, weights).coefficients;
  const double slope = b(columns - 1);
  std::vector<double> model;
  for (Eigen::Index i = 0; i < n; ++i) model.push_back(y[static_cast<std::size_t>(i)] - rhs(i) + design.row(i).dot(b));
  out.direct = residual_of(y, model);
  if (!(slope > 0)) {
    out.not_fitted = {{kBandwidth, "the measured time does not grow with the bytes moved"}};
    return out;
  }
  out.values.push_back({&calibration_key(kBandwidth), 1e9 / slope, 0, ""});
  for (std::size_t c = 0; c < intercept_cases.size(); ++c) {
    out.notes.push_back(fmt::format("{} intercept {:.1f} ns (not a latency: ramp-up and drain)", intercept_cases[c],
                                    b(static_cast<Eigen::Index>(c))));
  }
  for (FittedValue& v : out.values) v.value = v.direct;
  refine_and_check(in, all, out);
  return out;
}

}  // namespace

FitUnit link_fit() { return {"link", "remote_load, remote_store, all_load, all_store, p2p_copy", fit}; }

}  // namespace tessera::app::calibration

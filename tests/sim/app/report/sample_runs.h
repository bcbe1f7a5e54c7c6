#pragma once
// Synthetic run summaries (read into results as summary.json is) and activity logs for the report tests: small, hand-checked, and
// independent of the replay (they only follow the summary schema and activity_log.h).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/app/report/category_style.h"
#include "sim/app/report/compare_html.h"
#include "sim/app/report/labeled_run.h"
#include "workloads/replay/activity_log.h"

namespace tessera::app::report::testing {

using workloads::replay::ActivityLog;
using workloads::replay::TimeCategory;

// A tile-level summary on 2 GPUs with 2 XCDs each. Every scope's seven parts sum to its span:
// total 1000 ns; each GPU's span is the makespan (GPU 1 idles after its last kernel ends at 960 ns);
// kernels as listed.
inline nlohmann::json attributed_summary(const std::string& variant, double stretch = 1.0) {
  auto parts = [stretch](double compute, double memory, double comm, double idle, double bsp, double locality,
                         double launch) {
    return std::pair{nlohmann::json{{"compute", compute * stretch},
                                    {"memory", memory * stretch},
                                    {"communication", comm * stretch},
                                    {"idle", idle * stretch}},
                     nlohmann::json{{"bulk_synchronous", bsp * stretch},
                                    {"inter_kernel_locality", locality * stretch},
                                    {"launch_overhead", launch * stretch}}};
  };
  nlohmann::json s;
  s["tessera_version"] = "0.1.0";
  s["system"] = "mi300x-8";
  s["workload"] = "ag_gemm";
  s["variant"] = variant;
  s["seed"] = 1;
  s["complete"] = true;
  s["events"] = 12345;
  s["wall_s"] = 0.5;
  s["makespan_ns"] = 1000.0 * stretch;
  auto [work, taxes] = parts(400, 150, 100, 50, 200, 60, 40);
  s["work_ns"] = work;
  s["taxes_ns"] = taxes;
  auto [w0, t0] = parts(420, 140, 110, 30, 180, 70, 50);
  auto [w1, t1] = parts(380, 160, 90, 110, 170, 50, 40);
  s["per_gpu"] = nlohmann::json::array({{{"rank", 0}, {"span_ns", 1000.0 * stretch}, {"work_ns", w0}, {"taxes_ns", t0}},
                                        {{"rank", 1}, {"span_ns", 1000.0 * stretch}, {"work_ns", w1}, {"taxes_ns", t1}}});
  s["gpus"] = nlohmann::json::array({{{"rank", 0}, {"start_ns", 0.0}, {"end_ns", 1000.0 * stretch}},
                                     {{"rank", 1}, {"start_ns", 0.0}, {"end_ns", 960.0 * stretch}}});
  auto [kw0, kt0] = parts(0, 100, 150, 0, 40, 0, 10);    // all_gather on GPU 0: 300 ns
  auto [kw1, kt1] = parts(400, 50, 0, 0, 160, 60, 30);   // gemm on GPU 0: 700 ns
  auto [kw2, kt2] = parts(380, 160, 90, 0, 170, 50, 40);  // gemm on GPU 1: 890 ns
  s["kernels"] = nlohmann::json::array({
      {{"name", "all_gather"}, {"rank", 0}, {"stream", 0}, {"grid", 16}, {"launch_ns", 0.0}, {"start_ns", 10.0 * stretch},
       {"end_ns", 300.0 * stretch}, {"completed", true}, {"work_ns", kw0}, {"taxes_ns", kt0}},
      {{"name", "gemm"}, {"rank", 0}, {"stream", 0}, {"grid", 304}, {"launch_ns", 300.0 * stretch},
       {"start_ns", 330.0 * stretch}, {"end_ns", 1000.0 * stretch}, {"completed", true}, {"work_ns", kw1}, {"taxes_ns", kt1}},
      {{"name", "gemm"}, {"rank", 1}, {"stream", 0}, {"grid", 304}, {"launch_ns", 70.0 * stretch},
       {"start_ns", 110.0 * stretch}, {"end_ns", 960.0 * stretch}, {"completed", true}, {"work_ns", kw2}, {"taxes_ns", kt2}},
  });
  s["l2_hit_rate"] = 0.75;
  s["l2_hit_rate_per_xcd"] = nlohmann::json::array({nlohmann::json::array({0.8, 0.7}), nlohmann::json::array({0.6, nullptr})});
  s["mall_hit_rate"] = 0.5;
  s["link_class_bytes"] = {{"xgmi", 117440512}, {"hbm", 813694976}, {"pcie", 0}};
  s["zero_latency_keys"] = nlohmann::json::array({"interconnect.link_latency"});
  s["link_utilisation"] = nlohmann::json::array({
      {{"link", "gpu0->gpu1 xgmi"}, {"class", "xgmi"}, {"samples", {{0.0, 0.5}, {100.0 * stretch, 1.0}, {600.0 * stretch, 0.0}}}},
      {{"link", "gpu1->gpu0 xgmi"}, {"class", "xgmi"}, {"samples", {{50.0 * stretch, 0.25}, {700.0 * stretch, 0.0}}}},
      {{"link", "gpu0 hbm"}, {"class", "hbm"}, {"samples", {{0.0, 0.1}, {400.0 * stretch, 0.9}}}},
  });
  return s;
}

// A microbenchmark summary: no attribution at all.
inline nlohmann::json microbench_summary() {
  return {{"tessera_version", "0.1.0"}, {"system", "h200-2"}, {"workload", "microbench"}, {"seed", 1},
          {"complete", true}, {"makespan_ns", 1234.5}, {"events", 99}, {"bandwidth_GBps", 480.0},
          {"link_class_bytes", {{"nvlink", 268435456}}}};
}

// An activity log matching attributed_summary(): GPU 0 has XCD 0 (CUs 0, 1) and XCD 1 (CU 40);
// GPU 1 has XCD 0 (CU 3). CU 1 runs two workgroups at once in slots 0 and 1.
inline ActivityLog sample_log() {
  ActivityLog log;
  using C = TimeCategory;
  auto add = [&log](std::uint32_t kernel, std::uint64_t wg, std::uint32_t rank, std::uint32_t die, std::uint32_t cu,
                    std::uint32_t slot, C category, std::uint64_t start_ps, std::uint64_t end_ps) {
    log.slices.push_back({kernel, wg, rank, die, cu, slot, category, start_ps, end_ps});
  };
  // GPU 0, XCD 0, CU 0: the all_gather's workgroup 0, then a gemm workgroup.
  add(0, 0, 0, 0, 0, 0, C::kCommunication, 10'000, 160'000);
  add(0, 0, 0, 0, 0, 0, C::kBulkSynchronous, 160'000, 300'000);
  add(1, 0, 0, 0, 0, 0, C::kLaunchOverhead, 330'000, 340'000);
  add(1, 0, 0, 0, 0, 0, C::kCompute, 340'000, 740'000);
  add(1, 0, 0, 0, 0, 0, C::kInterKernelLocality, 740'000, 800'000);
  add(1, 0, 0, 0, 0, 0, C::kMemory, 800'000, 850'000);
  // CU 1, two slots at once; one slice of a picosecond at an odd time (exact printing).
  add(1, 1, 0, 0, 1, 0, C::kCompute, 340'000, 1'234'567);
  add(1, 1, 0, 0, 1, 0, C::kMemory, 1'234'567, 1'234'568);
  add(1, 2, 0, 0, 1, 1, C::kCompute, 350'000, 700'000);
  add(1, 2, 0, 0, 1, 1, C::kIdle, 700'000, 700'000);  // zero length is legal
  // GPU 0, XCD 1, CU 40.
  add(1, 3, 0, 1, 40, 0, C::kMemory, 345'000, 600'000);
  // GPU 1, XCD 0, CU 3 (kernel 2 is the gemm on GPU 1).
  add(2, 0, 1, 0, 3, 0, C::kCompute, 110'000, 490'000);
  add(2, 0, 1, 0, 3, 0, C::kCommunication, 490'000, 580'000);
  // Flags: GPU 0 CU 0 releases, GPU 1 CU 3 acquires; and back; and two at the same instant on
  // one CU (their anchors overlap, so one moves to an overlap lane).
  log.flags.push_back({0, 0, 160'000, 1, 3, 200'000});
  log.flags.push_back({1, 3, 580'000, 0, 1, 600'000});
  log.flags.push_back({0, 40, 600'000, 1, 3, 650'000});
  log.flags.push_back({0, 40, 600'000, 1, 7, 650'500});  // CU 7 of GPU 1 has no slices: its XCD is unknown
  log.links.push_back({"gpu0->gpu1 xgmi", "xgmi", 64e9});
  log.links.push_back({"gpu1->gpu0 xgmi", "xgmi", 64e9});
  // Out of time order on purpose; two samples at one instant (the later one holds).
  log.link_samples.push_back({0, 100'000, 1.0});
  log.link_samples.push_back({0, 0, 0.5});
  log.link_samples.push_back({1, 50'000, 0.25});
  log.link_samples.push_back({0, 600'000, 0.2});
  log.link_samples.push_back({0, 600'000, 0.0});
  return log;
}

// The summaries as the typed results the outputs are drawn from (read as summary.json is).
inline run::RunResult attributed_run(const std::string& variant, double stretch = 1.0) {
  return run::run_result_from_json(attributed_summary(variant, stretch));
}
inline run::RunResult microbench_run() { return run::run_result_from_json(microbench_summary()); }

inline std::vector<LabeledRun> sample_runs() {
  return {
      {"bsp", attributed_run("bsp", 1.0), "system: mi300x-8\nworkload: {kind: ag_gemm, variant: bsp}\n"},
      {"push", attributed_run("push", 0.8), "system: mi300x-8\nworkload: {kind: ag_gemm, variant: push}\n"},
      {"micro", microbench_run(), "system: h200-2\nworkload: {kind: microbench, op: remote_load}\n"},
  };
}

// The inputs of a sample compare.html: A is the bsp run, B the push run 90 times slower (so that
// the bars need a log scale), the configs differ in two keys, one with text to escape; B's xGMI
// links are the busiest resource, A records none.
struct SampleCompare {
  CompareSide a;
  CompareSide b;
  std::vector<run::ConfigDifference> differences;
  std::vector<CompareQuantity> quantities;
};

inline SampleCompare sample_compare() {
  nlohmann::json b_summary = attributed_summary("push", 90.0);
  b_summary["resource_utilisation"] = {
      {"xgmi", {{"bytes", 117440512}, {"mean_utilisation", 0.4}, {"busiest_utilisation", 0.973}, {"busiest_resource", "gpu[0]->gpu[1]"}}},
      {"hbm", {{"bytes", 813694976}, {"mean_utilisation", 0.2}, {"busiest_utilisation", 0.5}, {"busiest_resource", "gpu[1] hbm"}}}};
  SampleCompare c{{"configs/a.yaml", attributed_run("bsp")},
                  {"configs/b <fast>.yaml", run::run_result_from_json(b_summary)},
                  {{"system.interconnect.link_bandwidth", "64 GB/s", "8 GB/s"}, {"workload.variant", "bsp", "push <&>"}},
                  {}};
  const auto& ta = c.a.result.result.breakdown->times;
  const auto& tb = c.b.result.result.breakdown->times;
  c.quantities.push_back({"makespan", false, c.a.result.makespan_ns(), c.b.result.makespan_ns()});
  for (const TimeCategory cat : kAllCategories) {
    c.quantities.push_back({std::string(workloads::replay::to_string(cat)), workloads::replay::is_tax(cat),
                            run::category_ns(ta, cat), run::category_ns(tb, cat)});
  }
  return c;
}

}  // namespace tessera::app::report::testing

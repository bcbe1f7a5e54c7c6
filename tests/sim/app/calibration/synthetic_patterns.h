#pragma once
// A SYNTHETIC folder of pattern results for the validate tests: small gemm and ag_gemm cases
// whose "measured" times the test makes up from Tessera's own predictions times chosen factors,
// so that every error, the MAPE and the order agreement are known in advance.
#include <map>
#include <string>
#include <vector>

#include "sim/app/measured/case_run_spec.h"
#include "sim/app/run/run_workload.h"
#include "synthetic_results.h"

namespace tessera::test {

struct SyntheticPattern {
  std::string file;
  std::string case_name;
  nlohmann::json workload;
  unsigned ranks;
  double predicted_ns = 0;  // Tessera's makespan on the system
  double measured_ns = 0;   // made up
};

// Tessera's makespan of a workload map on a system, as validate runs it.
inline double predicted_makespan_ns(const std::string& case_name, const nlohmann::json& workload, unsigned ranks, const std::string& system) {
  const nlohmann::json doc = synthetic_result(case_name, "pattern", workload, ranks, 1.0);
  const auto parsed = app::measured::parse_measured_case(doc, "probe.json", "probe.json");
  return app::run::run_workload(app::measured::case_run_spec(parsed.result, system)).makespan_ns();
}

// On h200-2: gemm at two sizes (measured 10% slower and 20% faster than predicted), and ag_gemm in
// its three variants at two sizes: at m = 128 measured as predicted (the order agrees); at m = 256
// the variant Tessera predicts slowest is made the fastest by far (the order disagrees, gap > 5%).
inline std::vector<SyntheticPattern> write_synthetic_patterns(const std::filesystem::path& dir) {
  const std::string system = "h200-2";
  std::vector<SyntheticPattern> cases;
  const auto add = [&](const std::string& file, const std::string& case_name, nlohmann::json workload, unsigned ranks) {
    SyntheticPattern p{file, case_name, std::move(workload), ranks, 0, 0};
    p.predicted_ns = predicted_makespan_ns(case_name, p.workload, ranks, system);
    cases.push_back(std::move(p));
    return &cases.back();
  };
  cases.reserve(8);  // the pointers add() returns stay valid
  SyntheticPattern* slower = add("gemm.m-256.r1.json", "gemm", {{"kind", "gemm"}, {"m", 256}, {"n", 256}, {"k", 256}}, 1);
  slower->measured_ns = slower->predicted_ns * 1.1;
  SyntheticPattern* faster = add("gemm.m-512.r1.json", "gemm", {{"kind", "gemm"}, {"m", 512}, {"n", 256}, {"k", 256}}, 1);
  faster->measured_ns = faster->predicted_ns * 0.8;
  std::vector<SyntheticPattern*> agrees, disagrees;
  for (const char* variant : {"bsp", "pull", "push"}) {
    agrees.push_back(add(fmt::format("ag/ag_gemm.m-128.variant-{}.r2.json", variant), "ag_gemm",
                         {{"kind", "ag_gemm"}, {"m", 128}, {"n", 512}, {"k", 1024}, {"variant", variant}}, 2));
    agrees.back()->measured_ns = agrees.back()->predicted_ns;
  }
  for (const char* variant : {"bsp", "pull", "push"}) {
    disagrees.push_back(add(fmt::format("ag/ag_gemm.m-256.variant-{}.r2.json", variant), "ag_gemm",
                            {{"kind", "ag_gemm"}, {"m", 256}, {"n", 512}, {"k", 1024}, {"variant", variant}}, 2));
  }
  // Measured: each as predicted, except that the predicted slowest is measured at half the predicted fastest.
  double fastest = disagrees[0]->predicted_ns;
  SyntheticPattern* slowest = disagrees[0];
  for (SyntheticPattern* p : disagrees) {
    p->measured_ns = p->predicted_ns;
    fastest = std::min(fastest, p->predicted_ns);
    if (p->predicted_ns > slowest->predicted_ns) slowest = p;
  }
  slowest->measured_ns = 0.5 * fastest;
  for (const SyntheticPattern& p : cases) write_json(dir / p.file, synthetic_result(p.case_name, "pattern", p.workload, p.ranks, p.measured_ns));
  // Calibration data, a failed run and a run on more GPUs than h200-2 has: never validated.
  write_json(dir / "ag_gemm.r8.json", synthetic_result("ag_gemm", "pattern", {{"kind", "ag_gemm"}, {"ranks", 8}}, 8, 1e5));
  write_json(dir / "hbm_stream.r1.json",
             synthetic_result("hbm_stream", "microbenchmark", {{"kind", "microbench"}, {"op", "hbm_stream"}}, 1, 2e5));
  write_json(dir / "failed.json", {{"schema", "tessera-kernels-result/1"}, {"case", "ag_gemm"}, {"kind", "pattern"}, {"status", "failed"}});
  return cases;
}

// The MAPE the validation must report: the mean of |predicted / measured - 1|, in percent.
inline double expected_mape_percent(const std::vector<SyntheticPattern>& cases) {
  double sum = 0;
  for (const SyntheticPattern& p : cases) sum += std::abs(p.predicted_ns / p.measured_ns - 1);
  return 100 * sum / static_cast<double>(cases.size());
}

}  // namespace tessera::test

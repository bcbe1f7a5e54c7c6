// Each fit unit against analytic data: SYNTHETIC points made by the test from known parameters
// with the fit's own linear model; the direct fit must recover the parameters exactly. Then the
// refinement on Tessera's own predictions, on points Tessera itself generated.
#include <doctest/doctest.h>

#include <deque>
#include <map>

#include "models/system/system_loader.h"
#include "sim/app/calibration/fits.h"
#include "sim/app/calibration/model_refinement.h"
#include "sim/app/measured/case_run_spec.h"
#include "sim/app/measured/measured_data_error.h"
#include "sim/app/run/run_config_loader.h"
#include "sim/app/run/run_workload.h"
#include "synthetic_results.h"

using namespace tessera;
using namespace tessera::app::calibration;
using app::measured::MeasuredCase;

namespace {

constexpr const char* kSystem = "h200-2";  // 2 dies x 25 MiB of L2, 18 NVLinks (base_system zeroes its latencies)

// Synthetic results and their points; a deque keeps the results where the points point.
struct SyntheticPoints {
  std::deque<MeasuredCase> results;
  std::vector<CalibrationPoint> points;

  void add(const std::string& case_name, const nlohmann::json& workload, unsigned ranks, double measured,
           const nlohmann::json& params = nlohmann::json::object(), const nlohmann::json& metrics = nlohmann::json::object()) {
    const std::string name = fmt::format("synthetic/{}.{}.json", case_name, results.size());
    results.push_back(app::measured::parse_measured_case(test::synthetic_result(case_name, "microbenchmark", workload, ranks, measured,
                                                                                 params, metrics),
                                                         name, name)
                          .result);
    CalibrationPoint p{&results.back(), app::measured::case_quantity(case_name), measured, std::nullopt};
    if (p.quantity->tessera_figure != app::measured::TesseraFigure::kNone) p.run = app::measured::case_run_spec(results.back(), kSystem);
    points.push_back(std::move(p));
  }
};

const FittedValue& value_of(const FitOutcome& out, std::string_view key) {
  for (const FittedValue& v : out.values) {
    if (v.key->path == key) return v;
  }
  FAIL("no fitted value ", std::string(key));
  return out.values.front();
}

// The shipped file with every latency a fit finds set to 0 (all but hbm_latency 400 ns), so that each fit
// is checked against the analytic value alone.
models::SystemSpec base_system() {
  models::SystemSpec s = models::load_system_spec(kSystem);
  s.gpu.dispatch = {s.gpu.dispatch.policy, s.gpu.dispatch.chunk, 0, 0, 0};
  s.gpu.atomics = {};
  s.interconnect.link_latency_ps = 0;
  return s;
}

const RefineOptions kDirectOnly{false, 2};

nlohmann::json microbench(const std::string& op, const nlohmann::json& more = nlohmann::json::object()) {
  nlohmann::json w{{"kind", "microbench"}, {"op", op}};
  w.update(more);
  return w;
}

}  // namespace

TEST_CASE("launch: per kernel = launch latency + ceil(workgroups / dies) x dispatch") {
  SyntheticPoints s;
  for (const int workgroups : {1, 64, 264}) {  // 1, 32 and 132 per die on 2 dies
    const double per_die = std::ceil(workgroups / 2.0);
    s.add("launch_latency", microbench("launch_latency", {{"workgroups", workgroups}}), 1, 2500.0 + per_die * 20.0, {{"iterations", 1}});
  }
  const models::SystemSpec system = base_system();
  const FitOutcome out = launch_fit().fit(FitInputs{system, s.points, kDirectOnly});
  CHECK(value_of(out, "gpu.dispatch.kernel_launch_latency").value == doctest::Approx(2.5e6));  // ps
  CHECK(value_of(out, "gpu.dispatch.workgroup_dispatch").value == doctest::Approx(20e3));
  CHECK(out.direct.points == 3);
  CHECK(out.direct.relative_rms < 1e-9);
  CHECK(out.files.size() == 3);
  // Tessera's launch_latency op is this model exactly.
  REQUIRE(out.tessera);
  CHECK(out.tessera->mape < 1e-6);
}

TEST_CASE("launch: one workgroup count fits the launch latency alone and says why the dispatch is not fitted") {
  SyntheticPoints s;
  s.add("launch_latency", microbench("launch_latency"), 1, 3000.0, {{"iterations", 1}});
  s.add("launch_latency", microbench("launch_latency"), 1, 3000.0, {{"iterations", 1}});
  const models::SystemSpec system = base_system();
  const FitOutcome out = launch_fit().fit(FitInputs{system, s.points, kDirectOnly});
  REQUIRE(out.values.size() == 1);
  CHECK(out.values[0].value == doctest::Approx(3e6));
  REQUIRE(out.not_fitted.size() == 1);
  CHECK(out.not_fitted[0].key == "gpu.dispatch.workgroup_dispatch");
}

TEST_CASE("launch: with the dispatch measured on the GPU's timer, the launch latency alone takes the rest") {
  SyntheticPoints s;
  for (const int workgroups : {1, 64, 264}) {  // 1, 32 and 132 per die on 2 dies
    const double per_die = std::ceil(workgroups / 2.0);
    s.add("launch_latency", microbench("launch_latency", {{"workgroups", workgroups}}), 1, 2500.0 + 900.0 + per_die * 0.5,
          {{"iterations", 1}});
  }
  models::SystemSpec system = base_system();
  system.gpu.dispatch.workgroup_dispatch_ps = 500;
  system.gpu.dispatch.kernel_teardown_ps = 900'000;
  app::measured::KernelBoundaries measured;
  measured.dispatch = {{66, 40}, {264, 90}};  // two counts per die: the boundaries fit has a line
  const std::vector<app::measured::KernelBoundaries> boundaries{measured};
  const FitOutcome out = launch_fit().fit(FitInputs{system, s.points, kDirectOnly, {}, nullptr, &boundaries});
  REQUIRE(out.values.size() == 1);
  CHECK(out.values[0].key->path == "gpu.dispatch.kernel_launch_latency");
  CHECK(out.values[0].value == doctest::Approx(2.5e6));
  CHECK(out.not_fitted.empty());
  CHECK(out.direct.relative_rms < 1e-9);
  // Without the measurement the same points would give a line: the dispatch is fitted, not kept.
  const FitOutcome line = launch_fit().fit(FitInputs{system, s.points, kDirectOnly});
  CHECK(line.values.size() == 2);
}

TEST_CASE("hbm: time = a + 2 bytes / bandwidth gives the bandwidth, copies within the L2's reach are left out") {
  SyntheticPoints s;
  const double bytes_per_ns = 4100.0;  // 4.1 TB/s
  for (const double bytes : {256.0 * (1 << 20), 512.0 * (1 << 20), 1024.0 * (1 << 20), 2048.0 * (1 << 20)}) {
    s.add("hbm_stream", microbench("hbm_stream", {{"bytes", fmt::format("{:.0f} B", bytes)}}), 1, 650.0 + 2 * bytes / bytes_per_ns);
  }
  s.add("hbm_stream", microbench("hbm_stream", {{"bytes", "64 MiB"}}), 1, 1e5);  // below 4 x 50 MiB of L2: not HBM-bound
  const models::SystemSpec system = base_system();
  const FitOutcome out = hbm_fit().fit(FitInputs{system, s.points, kDirectOnly});
  CHECK(value_of(out, "gpu.memory.hbm_bandwidth").value == doctest::Approx(4.1e12).epsilon(1e-9));
  CHECK(out.direct.points == 4);
  // The intercept is reported (650 ns: no launch cost on the base), never written as the HBM latency.
  REQUIRE(out.notes.size() == 2);
  CHECK(out.notes[0].find("1 hbm_stream result(s) below 4 x the L2") != std::string::npos);
  CHECK(out.notes[1].find("intercept 650.0 ns") != std::string::npos);
  REQUIRE(out.not_fitted.size() == 1);
  CHECK(out.not_fitted[0].key == "gpu.memory.hbm_latency");
}

TEST_CASE("l2: time = a + bytes x iterations / (dies x l2.bandwidth) at working sets that fit the L2") {
  SyntheticPoints s;
  for (const double mib : {4.0, 8.0, 16.0, 32.0}) {
    const double bytes = mib * (1 << 20);
    s.add("l2_bandwidth", microbench("l2_bandwidth", {{"bytes", fmt::format("{:.0f} B", bytes)}, {"iterations", 50}}), 1,
          2000.0 + bytes * 50 / (2 * 3500.0));  // 3.5 TB/s per die, 2 dies
  }
  s.add("l2_bandwidth", microbench("l2_bandwidth", {{"bytes", "48 MiB"}, {"iterations", 50}}), 1, 1e6);  // over 75% of 50 MiB
  const models::SystemSpec system = base_system();
  const FitOutcome out = l2_fit().fit(FitInputs{system, s.points, kDirectOnly});
  CHECK(value_of(out, "gpu.memory.l2.bandwidth").value == doctest::Approx(3.5e12).epsilon(1e-9));
  CHECK(out.direct.points == 4);
  CHECK(out.notes.front().find("1 l2_bandwidth result(s) above 0.75 of the L2") != std::string::npos);
}

TEST_CASE("link: a shared slope per link, the intercepts are reported, never written as the link latency") {
  SyntheticPoints s;
  const double links = 18, per_link_bytes_per_ns = 21.0;  // 21 GB/s per link
  const double hbm_ns = 400, link_ns = 900;               // the base's HBM latency; a link latency the data contain
  for (const double mib : {64.0, 256.0, 1024.0}) {
    const double bytes = mib * (1 << 20);
    const nlohmann::json size{{"bytes", fmt::format("{:.0f} B", bytes)}};
    // A store crosses the link once and ends in HBM; a load's round trip crosses it twice.
    s.add("remote_store", microbench("remote_store", size), 2, hbm_ns + link_ns + bytes / links / per_link_bytes_per_ns);
    s.add("remote_load", microbench("remote_load", size), 2, hbm_ns + 2 * link_ns + bytes / links / per_link_bytes_per_ns);
  }
  const models::SystemSpec system = base_system();
  const FitOutcome out = link_fit().fit(FitInputs{system, s.points, kDirectOnly});
  CHECK(value_of(out, "interconnect.link_bandwidth").value == doctest::Approx(21e9).epsilon(1e-9));
  CHECK(out.direct.relative_rms < 1e-9);
  for (const FittedValue& v : out.values) CHECK(v.key->path != "interconnect.link_latency");
  // Each case's intercept is a note: 400 + 900 ns for the store, 400 + 1800 ns for the load.
  REQUIRE(out.notes.size() == 2);
  CHECK(out.notes[0].find("remote_load intercept 2200.0 ns") != std::string::npos);
  CHECK(out.notes[1].find("remote_store intercept 1300.0 ns") != std::string::npos);
}

TEST_CASE("link: a case measured at one size takes the intercept the system implies, its link latency included") {
  SyntheticPoints s;
  const double links = 18, per_link_bytes_per_ns = 21.0, hbm_ns = 400, link_ns = 900;
  models::SystemSpec system = base_system();
  system.interconnect.link_latency_ps = 900'000;
  const double bytes = 256.0 * (1 << 20);
  s.add("remote_store", microbench("remote_store", {{"bytes", fmt::format("{:.0f} B", bytes)}}), 2,
        hbm_ns + link_ns + bytes / links / per_link_bytes_per_ns);
  system.gpu.dispatch.kernel_launch_latency_ps = 0;
  system.gpu.dispatch.workgroup_dispatch_ps = 0;
  system.gpu.dispatch.kernel_teardown_ps = 0;
  const FitOutcome out = link_fit().fit(FitInputs{system, s.points, kDirectOnly});
  CHECK(value_of(out, "interconnect.link_bandwidth").value == doctest::Approx(21e9).epsilon(1e-9));
}

TEST_CASE("atomics: remote against local atomics of one device give the link latency, remote_latency = local_latency") {
  SyntheticPoints s;
  const models::SystemSpec system = base_system();  // a direct bundle: a round trip crosses it twice
  for (const char* op : {"atomic_add", "atomic_xchg"}) {
    s.add(op, microbench(op, {{"peer", 0}}), 1, 700.0, {{"iterations", 1}});
    s.add(op, microbench(op, {{"peer", 1}}), 2, 700.0 + 2 * 900.0, {{"iterations", 1}});
  }
  const FitOutcome out = atomic_fit().fit(FitInputs{system, s.points, kDirectOnly});
  CHECK(value_of(out, "gpu.atomics.local_latency").value == doctest::Approx(700e3));
  CHECK(value_of(out, "interconnect.link_latency").value == doctest::Approx(900e3));
  CHECK(value_of(out, "gpu.atomics.remote_latency").value == doctest::Approx(700e3));
  // Tessera's dependent atomics take exactly these latencies.
  REQUIRE(out.tessera);
  CHECK(out.tessera->mape < 1e-9);
}

TEST_CASE("atomics: remote atomics of a device with no local ones leave remote_latency beyond the system's round trip") {
  SyntheticPoints s;
  models::SystemSpec system = base_system();
  system.interconnect.link_latency_ps = 900'000;  // a round trip of 1.8 us, as the system file has it
  for (const char* op : {"atomic_add", "atomic_xchg"}) {
    s.add(op, microbench(op, {{"peer", 0}}), 1, 700.0, {{"iterations", 1}});
    s.add(op, microbench(op, {{"peer", 1}}), 2, 1200.0 + 1800.0, {{"iterations", 1}});
    s.results.back().device = "another device";  // measured on another machine: no same-device difference
  }
  const FitOutcome out = atomic_fit().fit(FitInputs{system, s.points, kDirectOnly});
  CHECK(value_of(out, "gpu.atomics.local_latency").value == doctest::Approx(700e3));
  CHECK(value_of(out, "gpu.atomics.remote_latency").value == doctest::Approx(1200e3));
  for (const FittedValue& v : out.values) CHECK(v.key->path != "interconnect.link_latency");
  REQUIRE(out.tessera);
  CHECK(out.tessera->mape < 1e-9);
}

TEST_CASE("flag: the poll interval from the one-way ping-pong latency") {
  SyntheticPoints s;
  models::SystemSpec system = base_system();
  system.interconnect.link_latency_ps = 900'000;
  system.gpu.atomics.local_latency_ps = 700'000;
  system.gpu.atomics.remote_latency_ps = 1'200'000;
  // one way = (1200 + 1800) / 2 + 700 / 2 + 1500 / 2
  s.add("flag_pingpong", microbench("flag_pingpong"), 2, 1500.0 + 350.0 + 750.0, {{"iterations", 1}});
  const FitOutcome out = flag_fit().fit(FitInputs{system, s.points, kDirectOnly});
  CHECK(value_of(out, "gpu.atomics.poll_interval").value == doctest::Approx(1.5e6));
}

TEST_CASE("matrix: efficiency = achieved rate / peak per data type and unknown types are errors naming the file") {
  SyntheticPoints s;
  const nlohmann::json any = microbench("hbm_stream");  // matrix_rate is not simulated: its workload is not read
  // H200: 4096 FLOP/clk/SM x 1.83 GHz x 132 SMs = 989.44 TFLOP/s fp16.
  const double peak = 4096 * 1.83e9 * 132;
  s.add("matrix_rate", any, 1, 0.72 * peak, {{"dtype", "fp16"}}, {{"tflops", 0.72 * peak / 1e12}});
  s.add("matrix_rate", any, 1, 0.70 * peak, {{"dtype", "bf16"}}, {{"tflops", 0.70 * peak / 1e12}});
  const models::SystemSpec system = base_system();
  const FitOutcome out = matrix_fit().fit(FitInputs{system, s.points, kDirectOnly});
  CHECK(value_of(out, "gpu.compute.matrix_efficiency.fp16").value == doctest::Approx(0.72));
  CHECK(value_of(out, "gpu.compute.matrix_efficiency.bf16").value == doctest::Approx(0.70));
  CHECK_FALSE(out.tessera);

  SyntheticPoints bad;
  bad.add("matrix_rate", any, 1, 1e14, {{"dtype", "int4"}}, {{"tflops", 100.0}});
  CHECK_THROWS_WITH_AS(matrix_fit().fit(FitInputs{system, bad.points, kDirectOnly}),
                       doctest::Contains("matrix_rate.0.json: params.dtype: unknown data type 'int4'"),
                       app::measured::MeasuredDataError);
}

TEST_CASE("kernel_efficiency: one curve per named kernel by workgroups per CU, interpolated, untagged points stay matrix_efficiency points") {
  SyntheticPoints s;
  const double peak = 4096 * 1.83e9 * 132;
  const auto tile_loop = [](const std::string& kernels) {
    return nlohmann::json{{"kind", "matrix_rate"}, {"dtype", "fp16"}, {"kernel", kernels}};
  };
  // gemm at 1 and 3 workgroups per SM (2 interpolated); two kernels share one tile loop; attention_step.
  s.add("matrix_rate", tile_loop("gemm"), 1, 0.50 * peak, nlohmann::json::object(), {{"matrix_TFLOPs_mean", 0.50 * peak / 1e12}, {"workgroups", 132}});
  s.add("matrix_rate", tile_loop("gemm"), 1, 0.62 * peak, nlohmann::json::object(), {{"matrix_TFLOPs_mean", 0.62 * peak / 1e12}, {"workgroups", 396}});
  s.add("matrix_rate", tile_loop("fused,fused_wgs"), 1, 0.40 * peak, nlohmann::json::object(),
        {{"matrix_TFLOPs_mean", 0.40 * peak / 1e12}, {"workgroups", 132}});
  s.add("attention_step", tile_loop("attention"), 1, 0.16 * peak, nlohmann::json::object(), {{"matrix_TFLOPs_mean", 0.16 * peak / 1e12}, {"workgroups", 132}});
  // Not whole waves: left out with a note. Untagged: the default matrix_efficiency's point only.
  s.add("matrix_rate", tile_loop("gemm"), 1, 0.9 * peak, nlohmann::json::object(), {{"matrix_TFLOPs_mean", 0.9 * peak / 1e12}, {"workgroups", 200}});
  s.add("matrix_rate", nlohmann::json{{"kind", "matrix_rate"}}, 1, 0.55 * peak, nlohmann::json::object(), {{"matrix_TFLOPs_mean", 0.55 * peak / 1e12}});
  const models::SystemSpec system = base_system();
  const FitOutcome out = kernel_efficiency_fit().fit(FitInputs{system, s.points, kDirectOnly});
  REQUIRE(out.kernel_efficiency.size() == 4);
  std::map<std::string, std::vector<double>> curves;
  for (const FittedKernelEfficiency& k : out.kernel_efficiency) {
    CHECK(k.entry.dtype == "fp16");
    curves[k.entry.kernel] = k.entry.efficiency;
  }
  CHECK(curves["gemm"] == std::vector<double>{0.5, 0.56, 0.62});
  CHECK(curves["fused"] == std::vector<double>{0.4});
  CHECK(curves["fused_wgs"] == std::vector<double>{0.4});
  CHECK(curves["attention"] == std::vector<double>{0.16});
  CHECK(out.files.size() == 4);
  REQUIRE(out.notes.size() == 1);
  CHECK(out.notes[0].find("not whole waves") != std::string::npos);

  const FitOutcome matrix = matrix_fit().fit(FitInputs{system, s.points, kDirectOnly});
  CHECK(value_of(matrix, "gpu.compute.matrix_efficiency.fp16").value == doctest::Approx(0.55));
  CHECK(matrix.files.size() == 1);
}

TEST_CASE("kstep: one-pass points give the loaded hit_latency = ns_per_step - larger block / port (A and B together), resident points are a check only") {
  SyntheticPoints s;
  const nlohmann::json kstep{{"kind", "kstep_load"}};  // not simulated: the workload is not read
  const models::SystemSpec system = base_system();
  const double port_bytes_per_ns = system.gpu.fabric.cu_port_bytes_per_clock * system.gpu.compute.clock_hz / 1e9;
  const double loaded_ns = 600;  // the loaded hit latency the points are made with
  // (block_m, block_n) with block_k = 32, fp16: the larger block is max(block_m, block_n) x 32 x 2 bytes.
  for (auto [bm, bn] : {std::pair{64, 64}, std::pair{128, 64}, std::pair{128, 128}}) {
    const double bytes = (bm + bn) * 32.0 * 2;
    const double step = loaded_ns + std::max(bm, bn) * 32.0 * 2 / port_bytes_per_ns;
    s.add("kstep_load", kstep, 1, step, {{"passes", 1}, {"block_m", bm}, {"block_n", bn}, {"block_k", 32}},
          {{"ns_per_step_mean", step}, {"step_bytes", bytes}, {"working_set_bytes", 128.0 * 1024 * 1024}});
  }
  // Without the block parameters each block counts as half the step's bytes.
  const double no_blocks_step = loaded_ns + 4096 / port_bytes_per_ns;
  s.add("kstep_load", kstep, 1, no_blocks_step, {{"passes", 1}},
        {{"ns_per_step_mean", no_blocks_step}, {"step_bytes", 8192.0}, {"working_set_bytes", 128.0 * 1024 * 1024}});
  // Inside the L2 (several passes over 4 MiB): not fitted, compared with hit_latency + larger block / port in a note.
  s.add("kstep_load", kstep, 1, 500, {{"passes", 32}, {"block_m", 128}, {"block_n", 64}, {"block_k", 32}},
        {{"ns_per_step_mean", 500.0}, {"step_bytes", 12288.0}, {"working_set_bytes", 4.0 * 1024 * 1024}});
  const FitOutcome out = kstep_fit().fit(FitInputs{system, s.points, kDirectOnly});
  CHECK(value_of(out, "gpu.memory.l2.hit_latency").value == doctest::Approx(loaded_ns * 1e3));
  CHECK(out.direct.mape == doctest::Approx(0.0).epsilon(1e-9));
  CHECK(out.files.size() == 4);
  CHECK_FALSE(out.tessera);
  bool checked = false;
  for (const std::string& note : out.notes) {
    if (note.find(fmt::format("{:.1f} ns", loaded_ns + 8192.0 / port_bytes_per_ns)) != std::string::npos) checked = true;
  }
  CHECK(checked);

  SyntheticPoints resident_only;
  resident_only.add("kstep_load", kstep, 1, 500, {{"passes", 32}},
                    {{"ns_per_step_mean", 500.0}, {"step_bytes", 12288.0}, {"working_set_bytes", 4.0 * 1024 * 1024}});
  const FitOutcome none = kstep_fit().fit(FitInputs{system, resident_only.points, kDirectOnly});
  CHECK(none.values.empty());
  REQUIRE(none.not_fitted.size() == 1);
  CHECK(none.not_fitted[0].key == "gpu.memory.l2.hit_latency");
}

TEST_CASE("fits without data write nothing and name each key they leave out") {
  const std::vector<CalibrationPoint> none;
  const models::SystemSpec system = base_system();
  for (const FitUnit& unit : fit_units()) {
    const FitOutcome out = unit.fit(FitInputs{system, none, kDirectOnly});
    CHECK(out.values.empty());
    CHECK_FALSE(out.not_fitted.empty());
  }
}

TEST_CASE("refinement: on points Tessera generated it never leaves Tessera's residual worse than the direct values") {
  // "Measured" by Tessera itself with known HBM figures: the direct line misses the model's
  // scheduling tail; the refinement moves the keys until Tessera reproduces the points.
  models::SystemSpec truth = base_system();
  truth.gpu.memory.hbm_bandwidth_bytes_per_s = 4.1e12;
  SyntheticPoints s;
  for (const char* bytes : {"256 MiB", "512 MiB", "1 GiB"}) {
    const nlohmann::json w = microbench("hbm_stream", {{"bytes", bytes}});
    SyntheticPoints probe;
    probe.add("hbm_stream", w, 1, 1.0);
    app::run::RunSpec run = *probe.points[0].run;
    run.system = truth;
    s.add("hbm_stream", w, 1, static_cast<double>(app::run::run_workload(run).result.measurement->timed_ps) / 1e3);
  }
  const models::SystemSpec system = base_system();
  const FitOutcome refined = hbm_fit().fit(FitInputs{system, s.points, RefineOptions{true, 2}});
  const FitOutcome direct = hbm_fit().fit(FitInputs{system, s.points, kDirectOnly});
  REQUIRE(refined.tessera);
  REQUIRE(direct.tessera);
  CHECK(refined.tessera->relative_rms <= direct.tessera->relative_rms);
  CHECK(refined.tessera->mape < 0.005);
  CHECK(value_of(refined, "gpu.memory.hbm_bandwidth").value == doctest::Approx(4.1e12).epsilon(0.01));
}

// Kernel boundaries measured on the GPU's timer (schema tessera-kernel-boundaries/1) on SYNTHETIC
// documents made up by the tests: how they are read (and refused), found in a folder beside the
// suite's results, carried over by a repeated --measured, and the boundaries fit
// (gpu.dispatch.kernel_teardown and workgroup_dispatch) against the values they were made from.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "models/system/system_loader.h"
#include "sim/app/calibration/fits.h"
#include "sim/app/measured/kernel_boundaries.h"
#include "sim/app/measured/measured_data_error.h"
#include "sim/app/measured/measured_set.h"

using namespace tessera;
using app::measured::KernelBoundaries;
using app::measured::parse_kernel_boundaries;

namespace {

// Direct and stream delays with the given means; W workgroups' start spans on a line of the given
// intercept and slope per workgroup per die (two dies, as the H200 is modelled).
nlohmann::json boundaries(double direct_ns, double stream_ns, double intercept_ns, double slope_ns) {
  nlohmann::json doc{{"schema", "tessera-kernel-boundaries/1"},
                     {"device", "NVIDIA H200"},
                     {"teardown", {{"direct", {{"mean_ns", direct_ns}}}, {"stream", {{"mean_ns", stream_ns}}}}},
                     {"queued", {{"median_ns", 1600.0}}},
                     {"dispatch", nlohmann::json::array()}};
  for (const int w : {66, 132, 264, 1056, 4224}) {
    doc["dispatch"].push_back({{"workgroups", w}, {"median_ns", intercept_ns + (std::ceil(w / 2.0) - 1) * slope_ns}});
  }
  return doc;
}

std::string error_of(const nlohmann::json& doc) {
  try {
    parse_kernel_boundaries(doc, "b.json");
  } catch (const app::measured::MeasuredDataError& e) {
    return e.what();
  }
  return "";
}

app::calibration::FitOutcome fit(const std::vector<KernelBoundaries>& measured) {
  static const std::vector<app::calibration::CalibrationPoint> no_points;
  const models::SystemSpec system = models::load_system_spec("h200-2");
  const app::calibration::RefineOptions options{false, 1};
  return app::calibration::boundaries_fit().fit(
      app::calibration::FitInputs{system, no_points, options, "h200-2", nullptr, &measured});
}

double value_ps(const app::calibration::FitOutcome& out, std::string_view key) {
  for (const auto& v : out.values) {
    if (v.key->path == key) return v.value;
  }
  FAIL("no fitted value ", std::string(key));
  return -1;
}

}  // namespace

TEST_CASE("kernel boundaries: the teardown is the stream delay less the direct one, and bad documents name the file and the key") {
  const KernelBoundaries b = parse_kernel_boundaries(boundaries(500, 1480, 30, 0.2), "b.json");
  CHECK(b.display_name == "b.json");
  CHECK(b.device == "NVIDIA H200");
  CHECK(b.teardown_ns == doctest::Approx(980));
  CHECK(b.queued_gap_ns == doctest::Approx(1600));
  REQUIRE(b.dispatch.size() == 5);
  CHECK(b.dispatch[1].workgroups == 132);
  CHECK(b.dispatch[1].span_ns == doctest::Approx(30 + 65 * 0.2));

  nlohmann::json doc = boundaries(500, 1480, 30, 0.2);
  doc["teardown"]["stream"].erase("mean_ns");
  CHECK(error_of(doc) == "b.json: teardown.stream.mean_ns: missing required key");
  doc = boundaries(500, 400, 30, 0.2);
  CHECK(error_of(doc).starts_with("b.json: teardown.stream.mean_ns: 400 ns is not above teardown.direct.mean_ns"));
  doc = boundaries(500, 1480, 30, 0.2);
  doc["dispatch"][2]["workgroups"] = 0;
  CHECK(error_of(doc) == "b.json: dispatch[2].workgroups: expected a count of workgroups (1..16777216), got 0");
  doc["dispatch"][2]["workgroups"] = "many";
  CHECK(error_of(doc) == "b.json: dispatch[2].workgroups: expected a count of workgroups, got \"many\"");
  doc = boundaries(500, 1480, 30, 0.2);
  doc["dispatch"][0]["median_ns"] = -3;
  CHECK(error_of(doc) == "b.json: dispatch[0].median_ns: expected a time in ns (0 or more), got -3");
  doc.erase("device");
  CHECK(error_of(doc) == "b.json: device: missing required key");
}

TEST_CASE("boundaries: teardown = the mean over files, dispatch = the slope of the span over ceil(W / dies) - 1") {
  const std::vector<KernelBoundaries> measured{parse_kernel_boundaries(boundaries(500, 1500, 32, 0.25), "a.json"),
                                               parse_kernel_boundaries(boundaries(480, 1440, 32, 0.25), "b.json")};
  const app::calibration::FitOutcome out = fit(measured);
  CHECK(value_ps(out, "gpu.dispatch.kernel_teardown") == doctest::Approx(980e3));  // (1000 + 960) / 2 ns
  CHECK(value_ps(out, "gpu.dispatch.workgroup_dispatch") == doctest::Approx(250));
  CHECK(out.direct.points == 10);
  CHECK(out.direct.relative_rms < 1e-9);
  CHECK(out.files == std::vector<std::string>{"a.json", "b.json"});
  CHECK(out.not_fitted.empty());

  const app::calibration::FitOutcome none = fit({});
  CHECK(none.values.empty());
  REQUIRE(none.not_fitted.size() == 2);
  CHECK(none.not_fitted[0].key == "gpu.dispatch.kernel_teardown");
  CHECK(none.not_fitted[1].key == "gpu.dispatch.workgroup_dispatch");
}

TEST_CASE("kernel boundaries: found in a folder beside results, and kept when --measured is repeated") {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / "tessera-boundaries-test";
  fs::remove_all(root);
  fs::create_directories(root / "one");
  fs::create_directories(root / "two");
  std::ofstream(root / "two" / "h200.run1.json") << boundaries(500, 1480, 30, 0.2).dump();
  app::measured::MeasuredSet set = app::measured::read_measured_folder(root / "one");
  CHECK(set.kernel_boundaries.empty());
  app::measured::MeasuredSet more = app::measured::read_measured_folder(root / "two");
  CHECK(more.skipped.empty());
  REQUIRE(more.kernel_boundaries.size() == 1);
  set.append(std::move(more));
  REQUIRE(set.kernel_boundaries.size() == 1);
  CHECK(set.kernel_boundaries[0].teardown_ns == doctest::Approx(980));
  fs::remove_all(root);
}

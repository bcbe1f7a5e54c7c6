#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "sample_runs.h"
#include "sim/app/report/category_style.h"
#include "sim/app/report/timeline_json.h"

using namespace tessera::app::report;
using namespace tessera::app::report::testing;
using nlohmann::json;

namespace {

json parse_timeline(const std::string& text) {
  json j = json::parse(text);  // throws (and fails the test) on invalid JSON
  REQUIRE(j.is_object());
  REQUIRE(j.contains("traceEvents"));
  REQUIRE(j["traceEvents"].is_array());
  return j;
}

// ps -> the integer picoseconds a ts/dur number stands for (6 decimals of a microsecond).
long long ps_of(const json& us) { return std::llround(us.get<double>() * 1e6); }

std::map<std::pair<long long, long long>, std::string> thread_names(const json& events) {
  std::map<std::pair<long long, long long>, std::string> names;
  for (const json& e : events) {
    if (e["ph"] == "M" && e["name"] == "thread_name") names[{e["pid"], e["tid"]}] = e["args"]["name"];
  }
  return names;
}

std::map<long long, std::string> process_names(const json& events) {
  std::map<long long, std::string> names;
  for (const json& e : events) {
    if (e["ph"] == "M" && e["name"] == "process_name") names[e["pid"]] = e["args"]["name"];
  }
  return names;
}

}  // namespace

TEST_CASE("timeline: valid trace-event JSON with the required fields on every event") {
  const json j = parse_timeline(timeline_json(attributed_run("bsp"), sample_log()));
  CHECK(j["displayTimeUnit"] == "ns");
  CHECK(j["metadata"].is_object());
  CHECK(j["metadata"]["activity_truncated"] == false);
  CHECK(j["metadata"]["variant"] == "bsp");
  const std::set<std::string> phases = {"X", "M", "C", "s", "f"};
  std::map<std::string, int> count;
  for (const json& e : j["traceEvents"]) {
    REQUIRE(e.is_object());
    REQUIRE(e.contains("ph"));
    const std::string ph = e["ph"];
    CHECK(phases.count(ph) == 1);
    ++count[ph];
    CHECK(e["pid"].is_number_integer());
    CHECK(e["tid"].is_number_integer());
    CHECK(e["name"].is_string());
    // Perfetto's tokenizer rejects a trace whose events hold an array at their top level.
    for (const auto& item : e.items()) CHECK_MESSAGE(!item.value().is_array(), item.key());
    if (ph == "M") {
      CHECK(e["args"].is_object());
      continue;
    }
    REQUIRE(e["ts"].is_number());
    CHECK(e["ts"].get<double>() >= 0.0);
    if (ph == "X") {
      REQUIRE(e["dur"].is_number());
      CHECK(e["dur"].get<double>() >= 0.0);
      CHECK(e["cat"].is_string());
      CHECK(e["cname"].is_string());
      CHECK(e["args"].is_object());
    }
    if (ph == "s" || ph == "f") {
      CHECK(e["id"].is_number_integer());
      CHECK(e["cat"] == "flag");
      CHECK(e["bp"] == "e");
    }
    if (ph == "C") {
      REQUIRE(e["args"].is_object());
      for (const auto& item : e["args"].items()) CHECK_MESSAGE(item.value().is_number(), item.key());
    }
  }
  // 13 workgroup slices, 3 kernels + 3 launches, 8 flag anchors.
  CHECK(count["X"] == 13 + 6 + 8);
  CHECK(count["s"] == 4);
  CHECK(count["f"] == 4);
  CHECK(count["C"] > 0);
}

TEST_CASE("timeline: timestamps never go back within a track, and slices of a track never overlap") {
  const json j = parse_timeline(timeline_json(attributed_run("bsp"), sample_log()));
  std::map<std::pair<long long, long long>, long long> last_ts;
  std::map<std::pair<long long, long long>, long long> last_slice_end;
  bool seen_non_metadata = false;
  for (const json& e : j["traceEvents"]) {
    if (e["ph"] == "M") {
      CHECK_MESSAGE(!seen_non_metadata, "metadata events come first");
      continue;
    }
    seen_non_metadata = true;
    const std::pair<long long, long long> track{e["pid"], e["tid"]};
    const long long ts = ps_of(e["ts"]);
    if (last_ts.count(track)) CHECK(ts >= last_ts[track]);
    last_ts[track] = ts;
    if (e["ph"] == "X") {
      if (last_slice_end.count(track)) CHECK(ts >= last_slice_end[track]);
      last_slice_end[track] = ts + ps_of(e["dur"]);
    }
  }
}

TEST_CASE("timeline: tracks per GPU, XCD, CU slot, stream and link, named and sorted") {
  const json j = parse_timeline(timeline_json(attributed_run("bsp"), sample_log()));
  const auto procs = process_names(j["traceEvents"]);
  std::set<std::string> proc_set;
  for (const auto& [pid, name] : procs) proc_set.insert(name);
  CHECK(proc_set == std::set<std::string>{"GPU 0", "GPU 1", "links"});
  std::set<std::string> names;
  for (const auto& [track, name] : thread_names(j["traceEvents"])) names.insert(procs.at(track.first) + ": " + name);
  for (const char* expected :
       {"GPU 0: kernels (stream 0)", "GPU 0: XCD 0 / CU 0", "GPU 0: XCD 0 / CU 1", "GPU 0: XCD 0 / CU 1 slot 1",
        "GPU 0: XCD 1 / CU 40", "GPU 0: XCD 0 / CU 0 flags", "GPU 0: XCD 1 / CU 40 flags",
        "GPU 0: XCD 1 / CU 40 flags (overlap 1)", "GPU 1: XCD 0 / CU 3", "GPU 1: XCD 0 / CU 3 flags", "GPU 1: CU 7 flags",
        "GPU 1: kernels (stream 0)"}) {
    CHECK_MESSAGE(names.count(expected) == 1, expected);
  }
  // Thread ids are unique across processes, and sort indices follow the display order.
  std::set<long long> tids;
  std::map<long long, std::vector<long long>> sort_by_pid;
  for (const json& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") CHECK(tids.insert(e["tid"].get<long long>()).second);
    if (e["ph"] == "M" && e["name"] == "thread_sort_index") sort_by_pid[e["pid"]].push_back(e["args"]["sort_index"]);
  }
  for (const auto& [pid, indices] : sort_by_pid) CHECK(std::is_sorted(indices.begin(), indices.end()));
  // In GPU 0: the kernels track first, then XCD 0 CU 0, CU 0 flags, CU 1, CU 1 slot 1, then XCD 1.
  std::vector<std::string> gpu0;
  long long gpu0_pid = -1;
  for (const auto& [pid, name] : procs) {
    if (name == "GPU 0") gpu0_pid = pid;
  }
  for (const json& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == gpu0_pid) gpu0.push_back(e["args"]["name"]);
  }
  CHECK(gpu0 == std::vector<std::string>{"kernels (stream 0)", "XCD 0 / CU 0", "XCD 0 / CU 0 flags", "XCD 0 / CU 1",
                                         "XCD 0 / CU 1 slot 1", "XCD 0 / CU 1 flags", "XCD 1 / CU 40",
                                         "XCD 1 / CU 40 flags", "XCD 1 / CU 40 flags (overlap 1)"});
}

TEST_CASE("timeline: workgroup slices carry category, colour, kernel and workgroup, times print exactly") {
  const std::string text = timeline_json(attributed_run("bsp"), sample_log());
  const json j = parse_timeline(text);
  int workgroup_slices = 0;
  for (const json& e : j["traceEvents"]) {
    if (e["ph"] != "X" || e["cat"] != "workgroup") continue;
    ++workgroup_slices;
    bool known = false;
    for (TimeCategory c : kAllCategories) {
      if (e["name"] == std::string(tessera::workloads::replay::to_string(c))) {
        known = true;
        CHECK(e["cname"] == std::string(category_style(c).trace_cname));
      }
    }
    CHECK_MESSAGE(known, e.dump());
    CHECK(e["args"]["kernel"].is_string());
    CHECK(e["args"]["workgroup"].is_number_integer());
  }
  CHECK(workgroup_slices == 13);
  // 1'234'567 ps prints as 1.234567 us; a 1 ps slice lasts 0.000001 us.
  CHECK(text.find(R"("ts":1.234567,"dur":0.000001,"name":"memory")") != std::string::npos);
  CHECK(text.find(R"("ts":0.340000,"dur":0.894567,"name":"compute")") != std::string::npos);
  // Taxes are warm, work is cool: the reserved names used.
  CHECK(std::string(category_style(TimeCategory::kBulkSynchronous).trace_cname) == "terrible");
  CHECK(std::string(category_style(TimeCategory::kCompute).trace_cname) == "thread_state_running");
}

TEST_CASE("timeline: kernel tracks hold the launch and the kernel, from the summary") {
  const json j = parse_timeline(timeline_json(attributed_run("bsp"), sample_log()));
  const auto threads = thread_names(j["traceEvents"]);
  std::vector<json> on_gpu0_stream;
  for (const json& e : j["traceEvents"]) {
    if (e["ph"] != "X" || e["cat"] != "kernel") continue;
    const auto it = threads.find({e["pid"], e["tid"]});
    REQUIRE(it != threads.end());
    if (it->second == "kernels (stream 0)" && e["pid"] == 1) on_gpu0_stream.push_back(e);
  }
  REQUIRE(on_gpu0_stream.size() == 4);
  CHECK(on_gpu0_stream[0]["name"] == "launch");
  CHECK(ps_of(on_gpu0_stream[0]["ts"]) == 0);
  CHECK(ps_of(on_gpu0_stream[0]["dur"]) == 10'000);
  CHECK(on_gpu0_stream[1]["name"] == "all_gather");
  CHECK(ps_of(on_gpu0_stream[1]["ts"]) == 10'000);
  CHECK(ps_of(on_gpu0_stream[1]["dur"]) == 290'000);
  CHECK(on_gpu0_stream[1]["args"]["taxes_ns"]["bulk_synchronous"] == 40.0);
  CHECK(on_gpu0_stream[2]["name"] == "launch");
  CHECK(on_gpu0_stream[2]["args"]["kernel"] == "gemm");
  CHECK(on_gpu0_stream[3]["name"] == "gemm");
  CHECK(on_gpu0_stream[3]["cname"] == "rail_response");
}

TEST_CASE("timeline: every flag edge is one flow from its release anchor to its acquire anchor") {
  const json j = parse_timeline(timeline_json(attributed_run("bsp"), sample_log()));
  std::map<std::pair<long long, long long>, std::vector<std::pair<long long, long long>>> slices;  // track -> [start, end)
  std::map<long long, std::vector<json>> flows;
  for (const json& e : j["traceEvents"]) {
    if (e["ph"] == "X") slices[{e["pid"], e["tid"]}].push_back({ps_of(e["ts"]), ps_of(e["ts"]) + ps_of(e["dur"])});
    if (e["ph"] == "s" || e["ph"] == "f") flows[e["id"]].push_back(e);
  }
  CHECK(flows.size() == 4);
  for (const auto& [id, ends] : flows) {
    REQUIRE(ends.size() == 2);
    CHECK(ends[0]["ph"] != ends[1]["ph"]);
    const json& s = ends[0]["ph"] == "s" ? ends[0] : ends[1];
    const json& f = ends[0]["ph"] == "f" ? ends[0] : ends[1];
    CHECK(ps_of(s["ts"]) <= ps_of(f["ts"]));
    // Each end lies inside a slice of its own track (the anchor it binds to).
    for (const json* end : {&s, &f}) {
      const long long ts = ps_of((*end)["ts"]);
      const auto& list = slices[{(*end)["pid"], (*end)["tid"]}];
      const bool enclosed = std::any_of(list.begin(), list.end(), [ts](auto r) { return r.first <= ts && ts < r.second; });
      CHECK_MESSAGE(enclosed, end->dump());
    }
  }
  // The first edge: GPU 0 CU 0 at 160 ns -> GPU 1 CU 3 at 200 ns.
  const json& first_s = flows[1][0]["ph"] == "s" ? flows[1][0] : flows[1][1];
  const json& first_f = flows[1][0]["ph"] == "f" ? flows[1][0] : flows[1][1];
  CHECK(ps_of(first_s["ts"]) == 160'000);
  CHECK(ps_of(first_f["ts"]) == 200'000);
  CHECK(first_s["pid"] != first_f["pid"]);
}

TEST_CASE("timeline: link utilisation as percent counters in time order, the last sample of an instant holding") {
  const json j = parse_timeline(timeline_json(attributed_run("bsp"), sample_log()));
  const auto procs = process_names(j["traceEvents"]);
  std::map<std::string, std::vector<std::pair<long long, double>>> series;
  std::map<std::string, std::vector<std::pair<long long, double>>> xcd_series;
  for (const json& e : j["traceEvents"]) {
    if (e["ph"] != "C") continue;
    const std::string proc = procs.at(e["pid"]);
    if (proc == "links") {
      series[e["name"]].push_back({ps_of(e["ts"]), e["args"]["utilisation_pct"].get<double>()});
    } else {
      xcd_series[proc + " " + e["name"].get<std::string>()].push_back({ps_of(e["ts"]), e["args"]["busy_slots"].get<double>()});
    }
  }
  REQUIRE(series.count("gpu0->gpu1 xgmi") == 1);
  CHECK(series["gpu0->gpu1 xgmi"] == std::vector<std::pair<long long, double>>{{0, 50.0}, {100'000, 100.0}, {600'000, 0.0}});
  CHECK(series["gpu1->gpu0 xgmi"] == std::vector<std::pair<long long, double>>{{50'000, 25.0}});
  // GPU 0 XCD 0: CU 0 busy from 10 ns, CU 1 slot 0 from 340 ns, slot 1 from 350 ns, ...
  const auto& xcd0 = xcd_series["GPU 0 XCD 0"];
  REQUIRE(xcd0.size() >= 3);
  CHECK(xcd0[0] == std::pair<long long, double>{10'000, 1.0});
  CHECK(xcd0[1] == std::pair<long long, double>{300'000, 0.0});
  CHECK(xcd0[2] == std::pair<long long, double>{330'000, 1.0});
  CHECK(xcd0.back().second == 0.0);
  const json& links = j["metadata"]["links"];
  REQUIRE(links.size() == 2);
  CHECK(links[0]["class"] == "xgmi");
}

TEST_CASE("timeline: same input, same bytes, the order of the log's entries does not matter") {
  const std::string a = timeline_json(attributed_run("bsp"), sample_log());
  CHECK(a == timeline_json(attributed_run("bsp"), sample_log()));
  ActivityLog reversed = sample_log();
  std::reverse(reversed.slices.begin(), reversed.slices.end());
  std::reverse(reversed.flags.begin(), reversed.flags.end());
  std::swap(reversed.link_samples[0], reversed.link_samples[2]);  // not the two at one instant
  CHECK(a == timeline_json(attributed_run("bsp"), reversed));
}

TEST_CASE("timeline: a truncated log says so, overlapping slices move to extra tracks") {
  ActivityLog log = sample_log();
  log.truncated = true;
  // A corrupt log: a slice overlapping another of the same slot.
  log.slices.push_back({1, 9, 0, 0, 0, 0, TimeCategory::kCompute, 500'000, 900'000});
  const json j = parse_timeline(timeline_json(attributed_run("bsp"), log));
  CHECK(j["metadata"]["activity_truncated"] == true);
  CHECK(j["metadata"]["activity_truncation"].get<std::string>().find("max_recorded") != std::string::npos);
  std::set<std::string> names;
  for (const auto& [track, name] : thread_names(j["traceEvents"])) names.insert(name);
  CHECK(names.count("XCD 0 / CU 0 (overlap 1)") == 1);
  std::map<std::pair<long long, long long>, long long> last_end;
  for (const json& e : j["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const std::pair<long long, long long> track{e["pid"], e["tid"]};
    if (last_end.count(track)) CHECK(ps_of(e["ts"]) >= last_end[track]);
    last_end[track] = ps_of(e["ts"]) + ps_of(e["dur"]);
  }
}

TEST_CASE("timeline: a summary without kernels and an empty log still make a valid trace") {
  const json j = parse_timeline(timeline_json(microbench_run(), ActivityLog{}));
  CHECK(j["metadata"]["workload"] == "microbench");
  CHECK(j["metadata"]["activity_truncated"] == false);
  for (const json& e : j["traceEvents"]) CHECK(e["ph"] == "M");
  // Odd names are escaped, not pasted.
  json s = attributed_summary("bsp");
  s["kernels"][0]["name"] = "quote\" backslash\\ <tag>";
  const json k = parse_timeline(timeline_json(tessera::app::run::run_result_from_json(s), sample_log()));
  bool found = false;
  for (const json& e : k["traceEvents"]) found = found || (e["ph"] == "X" && e["name"] == "quote\" backslash\\ <tag>");
  CHECK(found);
}

TEST_CASE("timeline: kernel detail draws the kernels and each GPU's breakdown, no CU tracks") {
  ActivityLog log = sample_log();
  using tessera::workloads::replay::GpuStretch;
  log.gpu_stretches = {GpuStretch{0, TimeCategory::kLaunchOverhead, 0, 10'000},
                       GpuStretch{0, TimeCategory::kCommunication, 10'000, 300'000},
                       GpuStretch{1, TimeCategory::kCompute, 0, 960'000}};
  const json j = parse_timeline(timeline_json(attributed_run("bsp"), log, tessera::workloads::replay::ActivityDetail::kKernels));
  std::vector<json> breakdown;
  bool cu_track = false;
  for (const json& e : j["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "breakdown") breakdown.push_back(e);
    if (e["ph"] == "X" && e["cat"] == "workgroup") cu_track = true;
  }
  CHECK_FALSE(cu_track);
  REQUIRE(breakdown.size() == 3);
  CHECK(breakdown[0]["name"] == "launch_overhead");
  CHECK(ps_of(breakdown[1]["ts"]) == 10'000);
  CHECK(ps_of(breakdown[1]["dur"]) == 290'000);
  CHECK(breakdown[2]["name"] == "compute");
  CHECK(breakdown[2]["pid"] != breakdown[0]["pid"]);  // GPU 1's process
  const auto names = thread_names(j["traceEvents"]);
  bool named = false;
  for (const auto& [key, name] : names) named = named || name == "where the time goes";
  CHECK(named);
  // The full detail has the CU tracks too.
  const json full = parse_timeline(timeline_json(attributed_run("bsp"), log));
  bool full_cu = false;
  for (const json& e : full["traceEvents"]) full_cu = full_cu || (e["ph"] == "X" && e["cat"] == "workgroup");
  CHECK(full_cu);
}

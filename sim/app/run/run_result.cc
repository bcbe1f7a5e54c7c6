#include "sim/app/run/run_result.h"

#include <cmath>

namespace tessera::app::run {
namespace {

using nlohmann::json;
using workloads::replay::CategoryTimes;
using workloads::replay::kNumTimeCategories;
using workloads::replay::TimeCategory;

double ns_of(sim::Tick ps) { return static_cast<double>(ps) / 1e3; }
sim::Tick ps_of(const json& ns) { return static_cast<sim::Tick>(std::llround(ns.get<double>() * 1e3)); }

// A scope's "taxes_ns" and "work_ns" back into one array; a category neither names stays 0.
CategoryTimes times_from(const json& scope) {
  CategoryTimes times{};
  for (std::size_t c = 0; c < kNumTimeCategories; ++c) {
    const auto category = static_cast<TimeCategory>(c);
    const auto group = scope.find(workloads::replay::is_tax(category) ? "taxes_ns" : "work_ns");
    if (group == scope.end() || !group->is_object()) continue;
    const auto value = group->find(std::string(to_string(category)));
    if (value != group->end() && value->is_number()) times[c] = ps_of(*value);
  }
  return times;
}

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(); }

std::optional<double> number_or_null(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

void breakdown_to_json(const workloads::Breakdown& b, sim::Tick makespan_ps, json& j) {
  json kernels = json::array();
  for (const workloads::KernelTiming& k : b.kernels) {
    kernels.push_back({{"name", k.name},
                       {"rank", k.rank},
                       {"stream", k.stream},
                       {"grid", k.grid},
                       {"launch_ns", ns_of(k.launch_ps)},
                       {"start_ns", ns_of(k.start_ps)},
                       {"end_ns", ns_of(k.end_ps)},
                       {"completed", k.completed},
                       {"taxes_ns", category_times_json(k.times, true)},
                       {"work_ns", category_times_json(k.times, false)}});
  }
  j["kernels"] = std::move(kernels);
  // Per GPU: the span of its kernels.
  std::map<std::uint32_t, std::pair<double, double>> span;
  for (const workloads::KernelTiming& k : b.kernels) {
    auto [it, inserted] = span.try_emplace(k.rank, ns_of(k.launch_ps), ns_of(k.end_ps));
    if (!inserted) {
      it->second.first = std::min(it->second.first, ns_of(k.launch_ps));
      it->second.second = std::max(it->second.second, ns_of(k.end_ps));
    }
  }
  json gpus = json::array();
  for (const auto& [rank, s] : span) gpus.push_back({{"rank", rank}, {"start_ns", s.first}, {"end_ns", s.second}});
  j["gpus"] = std::move(gpus);
  j["taxes_ns"] = category_times_json(b.times, true);
  j["work_ns"] = category_times_json(b.times, false);
  j["critical_rank"] = b.critical_rank;
  json per_gpu = json::array();
  for (std::uint32_t rank = 0; rank < b.gpu_times.size(); ++rank) {
    per_gpu.push_back({{"rank", rank},
                       {"span_ns", ns_of(makespan_ps)},
                       {"taxes_ns", category_times_json(b.gpu_times[rank], true)},
                       {"work_ns", category_times_json(b.gpu_times[rank], false)}});
  }
  j["per_gpu"] = std::move(per_gpu);
}

workloads::Breakdown breakdown_from_json(const json& j) {
  workloads::Breakdown b;
  for (const json& k : j.value("kernels", json::array())) {
    b.kernels.push_back({k.at("name").get<std::string>(), k.at("rank").get<std::uint32_t>(),
                         k.value("stream", std::uint32_t{0}), k.value("grid", std::uint64_t{0}), ps_of(k.at("launch_ns")),
                         ps_of(k.at("start_ns")), ps_of(k.at("end_ns")), k.value("completed", true), times_from(k)});
  }
  for (const json& g : j.value("per_gpu", json::array())) b.gpu_times.push_back(times_from(g));
  b.critical_rank = j.value("critical_rank", std::uint32_t{0});
  b.times = times_from(j);
  return b;
}

void traffic_to_json(const workloads::Traffic& t, json& j) {
  j["l2_hit_rate"] = optional_number(t.l2_hit_rate);
  j["mall_hit_rate"] = optional_number(t.mall_hit_rate);
  j["link_class_bytes"] = t.link_class_bytes;
  if (!t.resource_usage.empty()) {
    json usage = json::object();
    for (const auto& [cls, u] : t.resource_usage) {
      usage[cls] = {{"bytes", u.bytes},
                    {"mean_utilisation", u.mean_utilisation},
                    {"busiest_utilisation", u.busiest_utilisation},
                    {"busiest_resource", u.busiest_resource}};
    }
    j["resource_utilisation"] = std::move(usage);
  }
  if (t.l2_hit_rate_per_xcd) {
    json per_xcd = json::array();
    for (const auto& dies : *t.l2_hit_rate_per_xcd) {
      json row = json::array();
      for (const auto& v : dies) row.push_back(optional_number(v));
      per_xcd.push_back(std::move(row));
    }
    j["l2_hit_rate_per_xcd"] = std::move(per_xcd);
  }
  if (const auto& m = t.memory_bytes) {
    j["memory_bytes"] = {{"l2_hit_bytes", m->l2_hit_bytes},           {"mall_hit_bytes", m->mall_hit_bytes},
                         {"hbm_read_bytes", m->hbm_read_bytes},       {"hbm_write_bytes", m->hbm_write_bytes},
                         {"remote_load_bytes", m->remote_load_bytes}, {"remote_store_bytes", m->remote_store_bytes},
                         {"dma_bytes", m->dma_bytes}};
  }
  if (!t.link_utilisation.empty()) {
    json links = json::array();
    for (const workloads::LinkUtilisation& l : t.link_utilisation) {
      json samples = json::array();
      for (const auto& [t_ns, u] : l.samples) samples.push_back({t_ns, u});
      links.push_back({{"link", l.link}, {"class", l.link_class}, {"samples", std::move(samples)}});
    }
    j["link_utilisation"] = std::move(links);
  }
}

workloads::Traffic traffic_from_json(const json& j) {
  workloads::Traffic t;
  t.l2_hit_rate = number_or_null(j, "l2_hit_rate");
  t.mall_hit_rate = number_or_null(j, "mall_hit_rate");
  if (j.contains("link_class_bytes")) t.link_class_bytes = j["link_class_bytes"].get<std::map<std::string, std::uint64_t>>();
  const json usage = j.value("resource_utilisation", json::object());  // named: items() must not outlive it
  for (const auto& [cls, u] : usage.items()) {
    t.resource_usage[cls] = {u.at("bytes").get<std::uint64_t>(), u.at("mean_utilisation").get<double>(),
                             u.at("busiest_utilisation").get<double>(), u.at("busiest_resource").get<std::string>()};
  }
  if (const auto it = j.find("l2_hit_rate_per_xcd"); it != j.end() && it->is_array()) {
    auto& rows = t.l2_hit_rate_per_xcd.emplace();
    for (const json& dies : *it) {
      auto& row = rows.emplace_back();
      for (const json& v : dies) row.push_back(v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt);
    }
  }
  if (const auto it = j.find("memory_bytes"); it != j.end() && it->is_object()) {
    const json& m = *it;
    t.memory_bytes = workloads::MemoryBytes{m.at("l2_hit_bytes").get<std::uint64_t>(),  m.at("mall_hit_bytes").get<std::uint64_t>(),
                                            m.at("hbm_read_bytes").get<std::uint64_t>(), m.at("hbm_write_bytes").get<std::uint64_t>(),
                                            m.at("remote_load_bytes").get<std::uint64_t>(),
                                            m.at("remote_store_bytes").get<std::uint64_t>(), m.at("dma_bytes").get<std::uint64_t>()};
  }
  for (const json& l : j.value("link_utilisation", json::array())) {
    workloads::LinkUtilisation link{l.at("link").get<std::string>(), l.at("class").get<std::string>(), {}};
    for (const json& s : l.at("samples")) link.samples.emplace_back(s.at(0).get<double>(), s.at(1).get<double>());
    t.link_utilisation.push_back(std::move(link));
  }
  return t;
}

void measurement_to_json(const workloads::Measurement& m, json& j) {
  j["op"] = m.op;
  j["workgroups_per_gpu"] = m.workgroups_per_gpu;
  j["timed_ns"] = ns_of(m.timed_ps);
  if (m.counted_bytes_per_gpu) j["counted_bytes_per_gpu"] = *m.counted_bytes_per_gpu;
  if (m.bandwidth_GBps) j["bandwidth_GBps"] = *m.bandwidth_GBps;
  if (m.latency_ns) j["latency_ns"] = *m.latency_ns;
}

workloads::Measurement measurement_from_json(const json& j) {
  workloads::Measurement m;
  m.op = j.value("op", std::string());
  m.workgroups_per_gpu = j.value("workgroups_per_gpu", std::uint32_t{0});
  if (j.contains("timed_ns")) m.timed_ps = ps_of(j["timed_ns"]);
  if (j.contains("counted_bytes_per_gpu")) m.counted_bytes_per_gpu = j["counted_bytes_per_gpu"].get<std::uint64_t>();
  m.bandwidth_GBps = number_or_null(j, "bandwidth_GBps");
  m.latency_ns = number_or_null(j, "latency_ns");
  return m;
}

// nccl-tests' figures of a collective, as one object: its keys (`op` among them) stay apart from
// a microbenchmark's top-level ones.
json collective_to_json(const workloads::CollectiveFigures& c) {
  return {{"op", c.op},
          {"dtype", c.dtype},
          {"library", c.library},
          {"algorithm", c.algorithm},
          {"protocol", c.protocol},
          {"channels", c.channels},
          {"library_model_time_us", c.library_model_time_us},
          {"size_bytes", c.size_bytes},
          {"count", c.count},
          {"ranks", c.ranks},
          {"iterations", c.iterations},
          {"time_us", c.time_us},
          {"algbw_GBps", c.algbw_GBps},
          {"busbw_GBps", c.busbw_GBps}};
}

workloads::CollectiveFigures collective_from_json(const json& j) {
  workloads::CollectiveFigures c;
  c.op = j.at("op").get<std::string>();
  c.dtype = j.at("dtype").get<std::string>();
  // Results written before the library's choice was reported read as Tessera's ring.
  c.library = j.value("library", std::string("tessera"));
  c.algorithm = j.value("algorithm", std::string("ring"));
  c.protocol = j.value("protocol", std::string());
  c.channels = j.value("channels", std::uint32_t{0});
  c.library_model_time_us = j.value("library_model_time_us", 0.0);
  c.size_bytes = j.at("size_bytes").get<std::uint64_t>();
  c.count = j.at("count").get<std::uint64_t>();
  c.ranks = j.at("ranks").get<std::uint32_t>();
  c.iterations = j.at("iterations").get<std::uint32_t>();
  c.time_us = j.at("time_us").get<double>();
  c.algbw_GBps = j.at("algbw_GBps").get<double>();
  c.busbw_GBps = j.at("busbw_GBps").get<double>();
  return c;
}

json stopped_by_json(const workloads::WorkloadResult& r) {
  return r.complete ? json() : json(sim::to_string(r.stop_reason));
}

sim::StopReason stop_reason_from(const json& stopped_by) {
  if (!stopped_by.is_string()) return sim::StopReason::kDrained;
  for (const sim::StopReason reason : {sim::StopReason::kDrained, sim::StopReason::kEndTime, sim::StopReason::kEventLimit,
                                       sim::StopReason::kWallLimit, sim::StopReason::kInterrupted}) {
    if (sim::to_string(reason) == stopped_by.get<std::string>()) return reason;
  }
  throw json::other_error::create(501, "unknown stopped_by '" + stopped_by.get<std::string>() + "'", &stopped_by);
}

}  // namespace

json category_times_json(const CategoryTimes& times, bool taxes) {
  json j = json::object();
  for (std::size_t c = 0; c < kNumTimeCategories; ++c) {
    const auto category = static_cast<TimeCategory>(c);
    if (workloads::replay::is_tax(category) == taxes) j[std::string(to_string(category))] = ns_of(times[c]);
  }
  return j;
}

std::optional<std::string> RunResult::parameter_text(const char* key) const {
  const auto it = workload_parameters.find(key);
  if (it == workload_parameters.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

json to_json(const RunResult& r) {
  json j;
  j["tessera_version"] = r.tessera_version;
  j["system"] = r.system;
  j["workload"] = r.workload;
  j["seed"] = r.seed;
  j["workload_parameters"] = r.workload_parameters;
  // The variant or mapping also on top, for tables.
  for (const char* key : {"variant", "mapping"}) {
    if (r.workload_parameters.contains(key)) j[key] = r.workload_parameters[key];
  }
  const workloads::WorkloadResult& w = r.result;
  j["makespan_ns"] = ns_of(w.makespan_ps);
  j["complete"] = w.complete;
  j["stopped_by"] = stopped_by_json(w);
  j["events"] = w.events;
  j["wall_s"] = w.wall_s;
  if (w.breakdown) breakdown_to_json(*w.breakdown, w.makespan_ps, j);
  if (w.traffic) traffic_to_json(*w.traffic, j);
  if (w.measurement) measurement_to_json(*w.measurement, j);
  if (w.collective) j["collective"] = collective_to_json(*w.collective);
  if (w.final_time_ps) j["final_time_ps"] = *w.final_time_ps;
  j["zero_latency_keys"] = r.zero_latency_keys;
  j["estimated_keys"] = r.estimated_keys;
  j["wall_events_per_s"] = r.wall_events_per_s();
  for (const auto& [name, a] : r.ablations) {
    j["ablations"][name] = {{"makespan_ns", ns_of(a.makespan_ps)},
                            {"taxes_ns", a.times ? category_times_json(*a.times, true) : json()},
                            {"work_ns", a.times ? category_times_json(*a.times, false) : json()}};
  }
  if (!r.sampled_makespans_ns.empty()) j["sampled_makespans_ns"] = r.sampled_makespans_ns;
  return j;
}

RunResult run_result_from_json(const json& j) {
  RunResult r;
  r.tessera_version = j.value("tessera_version", std::string());
  r.system = j.value("system", std::string());
  r.workload = j.value("workload", std::string());
  r.seed = j.value("seed", std::uint64_t{1});
  if (j.contains("workload_parameters")) r.workload_parameters = j["workload_parameters"];
  for (const char* key : {"variant", "mapping"}) {
    if (j.contains(key) && !r.workload_parameters.contains(key)) r.workload_parameters[key] = j[key];
  }
  if (j.contains("zero_latency_keys")) r.zero_latency_keys = j["zero_latency_keys"].get<std::vector<std::string>>();
  if (j.contains("estimated_keys")) r.estimated_keys = j["estimated_keys"].get<std::vector<std::string>>();
  workloads::WorkloadResult& w = r.result;
  if (j.contains("makespan_ns")) w.makespan_ps = ps_of(j["makespan_ns"]);
  w.complete = j.value("complete", true);
  if (!w.complete) w.stop_reason = stop_reason_from(j.value("stopped_by", json()));
  w.events = j.value("events", std::uint64_t{0});
  w.wall_s = j.value("wall_s", 0.0);
  if (j.contains("taxes_ns") || j.contains("kernels")) w.breakdown = breakdown_from_json(j);
  if (j.contains("l2_hit_rate") || j.contains("link_class_bytes")) w.traffic = traffic_from_json(j);
  if (j.contains("op") || j.contains("timed_ns") || j.contains("bandwidth_GBps") || j.contains("latency_ns")) {
    w.measurement = measurement_from_json(j);
  }
  if (const auto it = j.find("collective"); it != j.end() && it->is_object()) w.collective = collective_from_json(*it);
  if (j.contains("final_time_ps")) w.final_time_ps = j["final_time_ps"].get<sim::Tick>();
  if (const auto it = j.find("ablations"); it != j.end() && it->is_object()) {
    for (const auto& [name, a] : it->items()) {
      AblationResult ablation{ps_of(a.at("makespan_ns")), std::nullopt};
      if (a.contains("taxes_ns") && a["taxes_ns"].is_object()) ablation.times = times_from(a);
      r.ablations.emplace(name, ablation);
    }
  }
  if (j.contains("sampled_makespans_ns")) r.sampled_makespans_ns = j["sampled_makespans_ns"].get<std::vector<double>>();
  return r;
}

}  // namespace tessera::app::run

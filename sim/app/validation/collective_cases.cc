#include "sim/app/validation/collective_cases.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/app/measured/measured_data_error.h"
#include "sim/app/sweep/sweep_runner.h"
#include "sim/config/config_loader.h"
#include "sim/config/embedded_files.h"
#include "sim/config/file_resolver.h"

namespace tessera::app::validation {
namespace {

using measured::MeasuredDataError;

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string trimmed(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// NCCL_ALGO and NCCL_PROTO take one name, a comma-separated list or an exclusion ("^LL128"): only
// a single known name pins the choice; anything else leaves NCCL (and Tessera's model of it) its own.
std::string forced_choice(const std::string& value, std::initializer_list<std::pair<const char*, const char*>> names) {
  const std::string v = lower(trimmed(value));
  for (const auto& name : names) {
    if (v == name.first) return name.second;
  }
  return "auto";
}

// library.env of the result: what the suite forced through NCCL's environment (absent in results
// written before it was recorded). MeasuredCase keeps only what every reader needs, so the file
// is read again here.
nlohmann::json library_env(const measured::MeasuredCase& r) {
  std::ifstream in(r.file, std::ios::binary);
  if (!in) throw MeasuredDataError(r.display_name, "", "cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json document = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!document.is_object()) return nlohmann::json::object();
  const auto library = document.find("library");
  if (library == document.end() || !library->is_object()) return nlohmann::json::object();
  const auto env = library->find("env");
  if (env == library->end() || env->is_null()) return nlohmann::json::object();
  if (!env->is_object()) throw MeasuredDataError(r.display_name, "library.env", fmt::format("expected an object, got {}", env->dump()));
  return *env;
}

std::string env_text(const measured::MeasuredCase& r, const nlohmann::json& env, const char* key) {
  const auto it = env.find(key);
  if (it == env.end() || it->is_null()) return "";
  if (!it->is_string()) throw MeasuredDataError(r.display_name, fmt::format("library.env.{}", key), fmt::format("expected a string, got {}", it->dump()));
  return it->get<std::string>();
}

const nlohmann::json* metric(const measured::MeasuredCase& r, const char* key) {
  const auto it = r.metrics.find(key);
  return it == r.metrics.end() || it->is_null() ? nullptr : &*it;
}

std::uint64_t positive_whole(const measured::MeasuredCase& r, const char* key, const nlohmann::json& v) {
  const double d = v.is_number() ? v.get<double>() : -1;
  if (!(d >= 1) || d > 1e18 || d != std::floor(d)) {
    throw MeasuredDataError(r.display_name, fmt::format("metrics.{}", key), fmt::format("expected a positive integer, got {}", v.dump()));
  }
  return static_cast<std::uint64_t>(d);
}

}  // namespace

bool is_library_collective(const measured::MeasuredCase& result) { return result.case_name.starts_with(kLibraryCollectivePrefix); }

std::string LibraryCollective::forced_text() const {
  if (algorithm == "auto" && protocol == "auto") return "auto";
  return fmt::format("{}/{}", algorithm, protocol);
}

LibraryCollective read_library_collective(const measured::MeasuredCase& r) {
  LibraryCollective c;
  c.op = r.case_name.substr(kLibraryCollectivePrefix.size());
  const nlohmann::json* size = metric(r, "size_bytes");
  if (size == nullptr) throw MeasuredDataError(r.display_name, "metrics.size_bytes", "missing required key (the size the collective ran)");
  c.size_bytes = positive_whole(r, "size_bytes", *size);
  if (const nlohmann::json* dtype = metric(r, "dtype")) {
    if (!dtype->is_string()) throw MeasuredDataError(r.display_name, "metrics.dtype", fmt::format("expected a string, got {}", dtype->dump()));
    c.dtype = dtype->get<std::string>();
  } else {
    const auto p = r.params.find("dtype");
    if (p == r.params.end() || !p->is_string()) throw MeasuredDataError(r.display_name, "metrics.dtype", "missing required key (nor params.dtype)");
    c.dtype = p->get<std::string>();
  }
  c.ranks = r.ranks;
  if (const nlohmann::json* ranks = metric(r, "ranks")) c.ranks = static_cast<std::uint32_t>(std::min<std::uint64_t>(positive_whole(r, "ranks", *ranks), 1U << 16));
  const nlohmann::json env = library_env(r);
  c.algorithm = forced_choice(env_text(r, env, "NCCL_ALGO"), {{"ring", "ring"}, {"tree", "tree"}});
  // The suite's all-to-all is sends and receives, which NCCL_ALGO does not govern (it picks among
  // the collective algorithms): NCCL ran it as it always does.
  if (c.op == "all_to_all") c.algorithm = "auto";
  c.protocol = forced_choice(env_text(r, env, "NCCL_PROTO"), {{"ll", "ll"}, {"ll128", "ll128"}, {"simple", "simple"}});
  return c;
}

nlohmann::json library_collective_workload(const LibraryCollective& c, const std::string& host, std::uint32_t iterations) {
  nlohmann::json w{{"kind", "collective"},
                   {"op", c.op},
                   {"size", fmt::format("{} B", c.size_bytes)},
                   {"dtype", c.dtype},
                   {"ranks", c.ranks},
                   {"library", "nccl"},
                   {"host", host},
                   {"iterations", iterations}};
  if (c.algorithm != "auto") w["algorithm"] = c.algorithm;
  if (c.protocol != "auto") w["protocol"] = c.protocol;
  return w;
}

run::RunSpec library_collective_run(const measured::MeasuredCase& result, const std::string& system, const nlohmann::json& workload) {
  return library_collective_run(result.display_name, system, workload);
}

run::RunSpec library_collective_run(const std::string& source, const std::string& system, const nlohmann::json& workload) {
  sim::config::FileResolver resolver;
  resolver.add_embedded(sim::config::embedded_files());
  const sim::config::ConfigLoader loader(resolver);
  // JSON is YAML: errors point into this text, named after the result file.
  const std::string text = fmt::format("system: {}\nworkload: {}\n", nlohmann::json(system).dump(), workload.dump());
  return run::read_run_spec(loader.load_run_text(text, fmt::format("{} (collective case)", source)));
}

std::uint32_t validation_iterations(std::uint64_t size_bytes) {
  return size_bytes <= kSteadyStateMaxBytes ? kSteadyStateIterations : kLargeIterations;
}

std::optional<double> CollectiveCase::library_model_error_percent() const {
  if (!figures || !(figures->library_model_time_us > 0)) return std::nullopt;
  return 100.0 * (figures->library_model_time_us * 1e3 - measured_ns) / measured_ns;
}

PreparedCollectives prepare_collective_cases(const measured::MeasuredSet& set, const std::string& system, std::uint32_t system_gpus) {
  PreparedCollectives prepared;
  for (const measured::MeasuredCase& r : set.usable) {
    if (!is_library_collective(r)) continue;
    CollectiveCase c;
    c.source = &r;
    c.collective = read_library_collective(r);
    if (c.collective.ranks > system_gpus) {
      prepared.too_large.push_back({r.display_name, fmt::format("ran on {} GPUs; the system has {}", c.collective.ranks, system_gpus)});
      continue;
    }
    c.workload = library_collective_workload(c.collective, "one_thread", validation_iterations(c.collective.size_bytes));
    c.measured_ns = r.timing.mean_ns;
    prepared.runs.push_back(library_collective_run(r, system, c.workload));
    prepared.cases.push_back(std::move(c));
  }
  return prepared;
}

void predict_collective_cases(PreparedCollectives& prepared, unsigned jobs, const std::function<void(bool failed)>& case_done) {
  // The largest first: they take the longest, and a thread that starts one last would run alone.
  std::vector<std::size_t> order(prepared.cases.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return prepared.cases[a].collective.size_bytes > prepared.cases[b].collective.size_bytes;
  });
  sweep::run_parallel(order.size(), jobs, [&](std::size_t k) {
    const std::size_t i = order[k];
    const sweep::PointResult r = sweep::run_point(i, prepared.runs[i]);
    CollectiveCase& c = prepared.cases[i];  // each task owns its own case
    if (!r.ok) {
      c.error = r.error;
    } else if (!r.result->result.complete) {
      c.error = "the run stopped before the end (" + std::string(sim::to_string(r.result->result.stop_reason)) + ")";
    } else if (!r.result->result.collective) {
      c.error = "the run reported no collective figures";
    } else {
      c.figures = *r.result->result.collective;
      c.predicted_ns = c.figures->time_us * 1e3;
    }
    if (case_done) case_done(!c.predicted_ns);
  });
}

CollectiveSummary summarize_collectives(const std::vector<CollectiveCase>& cases) {
  CollectiveSummary s;
  s.cases = cases.size();
  double sum[2] = {0, 0};
  double model_sum[2] = {0, 0};
  std::size_t model_count[2] = {0, 0};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const CollectiveCase& c = cases[i];
    const int k = c.small() ? 1 : 0;
    CollectiveClassSummary& cls = k == 1 ? s.small : s.large;
    ++cls.cases;
    if (!c.predicted_ns) continue;
    ++s.predicted;
    ++cls.predicted;
    const double abs_error = std::abs(c.error_percent());
    sum[k] += abs_error;
    if (!cls.max_abs_error_percent || abs_error > *cls.max_abs_error_percent) {
      cls.max_abs_error_percent = abs_error;
      cls.worst_case = i;
    }
    if (const auto model = c.library_model_error_percent()) {
      model_sum[k] += std::abs(*model);
      ++model_count[k];
    }
  }
  CollectiveClassSummary* classes[2] = {&s.large, &s.small};
  for (int k = 0; k < 2; ++k) {
    if (classes[k]->predicted > 0) classes[k]->mape_percent = sum[k] / static_cast<double>(classes[k]->predicted);
    if (model_count[k] > 0) classes[k]->library_model_mape_percent = model_sum[k] / static_cast<double>(model_count[k]);
  }
  return s;
}

}  // namespace tessera::app::validation

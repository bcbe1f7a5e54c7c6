#include "sim/app/validation/validation_case.h"

#include <fmt/format.h>

#include "sim/app/measured/case_run_spec.h"
#include "sim/app/sweep/sweep_runner.h"

namespace tessera::app::validation {
namespace {

std::string value_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

namespace {

// Keys that only the bulk-synchronous variants carry (their collective's settings): they do not make a case
// another computation, so they are left out of the key that groups the variants.
bool configures_one_variant(std::string_view key) {
  return key == "collective" || key == "collective_workgroups" || key == "collective_chunk" || key == "concat";
}

}  // namespace

std::string_view variant_key_of(std::string_view kind) {
  // The choice that the variants of a kind differ by: the generators' `variant`, except where the kind's
  // alternatives are a workgroup mapping (attention's four mappings, gemm's chiplet remap).
  if (kind == "attention") return "mapping";
  if (kind == "gemm") return "xcd_remap";
  return "variant";
}

PreparedCases prepare_cases(const measured::MeasuredSet& set, const std::string& system, std::uint32_t system_gpus) {
  PreparedCases prepared;
  for (const measured::MeasuredCase* c : set.patterns()) {
    if (c->tessera_ranks > system_gpus) {
      prepared.too_large.push_back({c->display_name, fmt::format("ran on {} GPUs; the system has {}", c->tessera_ranks, system_gpus)});
      continue;
    }
    ValidationCase v;
    v.source = c;
    measured::CaseRun run = measured::case_run(*c, system);
    v.workload = run.workload;
    v.measured_ns = c->timing.mean_ns;
    nlohmann::json others = nlohmann::json::object();
    std::string params;
    const std::string_view variant_key = variant_key_of(v.workload.value("kind", std::string()));
    for (const auto& [key, value] : v.workload.items()) {
      if (key == variant_key) {
        v.variant = value_text(value);
      } else if (key != "kind" && key != "ranks") {
        params += fmt::format("{}{}={}", params.empty() ? "" : " ", key, value_text(value));
        if (!configures_one_variant(key)) others[key] = value;
      }
    }
    v.params_text = params;
    // nlohmann's objects are sorted by key, so the dump is canonical.
    v.group_key = fmt::format("{}|{}|{}", c->case_name, c->tessera_ranks, others.dump());
    prepared.runs.push_back(std::move(run.spec));
    prepared.cases.push_back(std::move(v));
  }
  return prepared;
}

void predict_cases(PreparedCases& prepared, unsigned jobs, const std::function<void(bool failed)>& case_done) {
  sweep::run_parallel(prepared.cases.size(), jobs, [&](std::size_t i) {
    const sweep::PointResult r = sweep::run_point(i, prepared.runs[i]);
    ValidationCase& v = prepared.cases[i];  // each task owns its own case
    if (!r.ok) {
      v.error = r.error;
    } else if (!r.result->result.complete) {
      v.error = "the run stopped before the end (" + std::string(sim::to_string(r.result->result.stop_reason)) + ")";
    } else {
      v.predicted_ns = r.result->makespan_ns();
    }
    if (case_done) case_done(!v.predicted_ns);
  });
}

}  // namespace tessera::app::validation

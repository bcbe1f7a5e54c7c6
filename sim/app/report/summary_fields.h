#pragma once
// Reading optional fields of a run summary. Summaries of different workload kinds carry
// different fields (microbench and PHOLD runs have no tax attribution), so every reader
// treats a field as absent unless it is there with the right type.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "workloads/replay/activity_log.h"

namespace tessera::app::report {

// obj[key] when obj is an object and the value is a finite number.
std::optional<double> number_at(const nlohmann::json& obj, std::string_view key);

// obj[key] when obj is an object and the value is a string.
std::optional<std::string> string_at(const nlohmann::json& obj, std::string_view key);

// The nanoseconds of one category in a summary scope (the whole run, one per_gpu entry or one
// kernel): scope["taxes_ns"][name] for a tax, scope["work_ns"][name] for work.
std::optional<double> category_ns(const nlohmann::json& scope, workloads::replay::TimeCategory c);

// True when the scope carries any attribution (taxes_ns or work_ns).
bool has_attribution(const nlohmann::json& scope);

}  // namespace tessera::app::report

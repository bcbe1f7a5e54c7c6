#pragma once
// The fits that run Tessera's model of the collective library on measured points
// (collective_call, collective_kernel): every point's run at once on `jobs` threads, one number
// read from each result.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "sim/app/run/run_spec.h"
#include "workloads/workload_result.h"

namespace tessera::app::calibration {

// `figure(result)` returns the point's number, or throws std::runtime_error saying what the result
// lacks. Throws std::runtime_error "Tessera could not run NAME: why" for the first point that
// failed, NAME from `name_of(i)`.
std::vector<double> run_library_collectives(std::vector<run::RunSpec> runs, unsigned jobs,
                                            const std::function<double(const workloads::WorkloadResult&)>& figure,
                                            const std::function<std::string(std::size_t)>& name_of);

}  // namespace tessera::app::calibration

// The GEMM-family cases (patterns/gemm_cases.hip lists them): the matrix-rate microbenchmark of the shared tile
// loop, the single-GPU GEMM, All-Gather + GEMM and GEMM + All-Scatter, each mirroring the Tessera workload of the
// same kind (docs/workloads.md).
#pragma once

#include <vector>

#include "harness/case.h"

namespace tk {

CaseInfo matrix_rate_case();
CaseInfo kstep_load_case();
CaseInfo gemm_case();
CaseInfo ag_gemm_case();
CaseInfo gemm_all_scatter_case();

void append_gemm_cases(std::vector<CaseInfo>& cases);

}  // namespace tk

#include "patterns/gemm_cases.h"

namespace tk {

void append_gemm_cases(std::vector<CaseInfo>& cases) {
  cases.push_back(matrix_rate_case());
  cases.push_back(kstep_load_case());
  cases.push_back(gemm_case());
  cases.push_back(ag_gemm_case());
  cases.push_back(gemm_all_scatter_case());
}

}  // namespace tk

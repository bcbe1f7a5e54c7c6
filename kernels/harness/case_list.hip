#include "collectives/collective_cases.h"
#include "harness/case.h"
#include "micro/micro_cases.h"
#include "patterns/attention_cases.h"
#include "patterns/decode_cases.h"
#include "patterns/gemm_cases.h"

namespace tk {

std::vector<CaseInfo> all_cases() {
  std::vector<CaseInfo> cases;
  append_micro_cases(cases);
  append_gemm_cases(cases);
  append_attention_cases(cases);
  append_decode_cases(cases);
  append_collective_cases(cases);
  return cases;
}

}  // namespace tk

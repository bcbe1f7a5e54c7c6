// The attention pattern cases; patterns/attention_cases.hip lists them.
#pragma once

#include <vector>

#include "harness/case.h"

namespace tk {

CaseInfo attention_case();       // patterns/attention.hip
CaseInfo attention_step_case();  // patterns/attention.hip (microbenchmark)
CaseInfo flash_decode_case();  // patterns/flash_decode.hip

void append_attention_cases(std::vector<CaseInfo>& cases);

}  // namespace tk

// The decode pattern case (patterns/decode.hip): one decode step of a transformer on one GPU, Tessera's kind
// `decode` (workloads/patterns/decode.h), as a kernel per operator, a persistent megakernel, or chiplet-scoped tasks.
#pragma once

#include <vector>

#include "harness/case.h"

namespace tk {

CaseInfo decode_case();

void append_decode_cases(std::vector<CaseInfo>& cases);

}  // namespace tk

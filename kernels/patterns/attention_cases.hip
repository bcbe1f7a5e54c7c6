#include "patterns/attention_cases.h"

namespace tk {

void append_attention_cases(std::vector<CaseInfo>& cases) {
  cases.push_back(attention_case());
  cases.push_back(attention_step_case());
  cases.push_back(flash_decode_case());
}

}  // namespace tk

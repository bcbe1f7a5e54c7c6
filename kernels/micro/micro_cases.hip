#include "micro/micro_cases.h"

namespace tk {

// The suite's order: single-GPU memory, launch, then GPU-GPU bandwidth, atomics and flags, copy engine.
void append_micro_cases(std::vector<CaseInfo>& cases) {
  cases.push_back(hbm_stream_case());
  cases.push_back(l2_bandwidth_case());
  cases.push_back(launch_latency_case());
  cases.push_back(remote_load_case());
  cases.push_back(remote_store_case());
  cases.push_back(all_load_case());
  cases.push_back(all_store_case());
  cases.push_back(atomic_add_case());
  cases.push_back(atomic_xchg_case());
  cases.push_back(flag_pingpong_case());
  cases.push_back(p2p_copy_case());
  cases.push_back(sm_pipes_case());
}

}  // namespace tk

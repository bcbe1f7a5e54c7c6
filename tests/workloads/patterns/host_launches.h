#pragma once
// The host program every generator writes on every rank: a rank barrier, the launches of the
// named kernels in order, then a sync. The tests of each generator check that shape here and
// their own per-kernel facts (stream, grid, CUs) in `each`.
#include <doctest/doctest.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "workloads/trace/trace.h"

namespace tessera::workloads::patterns::test {

inline void check_host_launches(const trace::Trace& trace, const std::vector<std::string>& names,
                                const std::function<void(const trace::Kernel&, std::size_t)>& each) {
  for (std::uint32_t r = 0; r < trace.ranks; ++r) {
    CAPTURE(r);
    const auto& host = trace.host[r];
    REQUIRE(host.size() == names.size() + 2);
    CHECK(host.front().op == trace::HostOp::kRankBarrier);
    CHECK(host.back().op == trace::HostOp::kSync);
    for (std::size_t i = 0; i < names.size(); ++i) {
      REQUIRE(host[i + 1].op == trace::HostOp::kLaunch);
      const trace::Kernel& k = trace.kernels[host[i + 1].kernel];
      CHECK(k.name == names[i]);
      CHECK(k.rank == r);
      each(k, i);
    }
  }
}

}  // namespace tessera::workloads::patterns::test

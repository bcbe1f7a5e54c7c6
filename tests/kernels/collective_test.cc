#include <doctest/doctest.h>

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "collectives/collective_library.h"
#include "collectives/collective_sizes.h"

using tk::CollectiveOp;

TEST_CASE("collective sizes follow nccl-tests: the buffer, the gathered buffer, the send buffer") {
  // all_reduce: the buffer; the count is its elements.
  const tk::CollectiveSize reduce = tk::collective_size(CollectiveOp::all_reduce, 1 << 20, 2, 2);
  CHECK(reduce.bytes == 1 << 20);
  CHECK(reduce.count == 1 << 19);
  CHECK_FALSE(reduce.rounded_up());
  // all_gather: the gathered buffer; the count is each rank's part.
  const tk::CollectiveSize gather = tk::collective_size(CollectiveOp::all_gather, 1 << 20, 2, 2);
  CHECK(gather.bytes == 1 << 20);
  CHECK(gather.count == 1 << 18);
  // reduce_scatter: the send buffer; the count is what each rank receives.
  const tk::CollectiveSize scatter = tk::collective_size(CollectiveOp::reduce_scatter, 8, 2, 2);
  CHECK(scatter.bytes == 8);
  CHECK(scatter.count == 2);
}

TEST_CASE("broadcast and reduce count the buffer, all-to-all each rank's send buffer split over the peers") {
  // broadcast, reduce: the buffer, as all_reduce; the count is its elements.
  for (const CollectiveOp op : {CollectiveOp::broadcast, CollectiveOp::reduce}) {
    const tk::CollectiveSize size = tk::collective_size(op, 1 << 20, 2, 4);
    CHECK(size.bytes == 1 << 20);
    CHECK(size.count == 1 << 19);
    CHECK(tk::collective_has_root(op));
    // One element is the unit, whatever the ranks.
    CHECK(tk::collective_size(op, 6, 2, 4).bytes == 6);
  }
  // all_to_all: each rank's send buffer; the count is each peer's part (each ncclSend and ncclRecv).
  const tk::CollectiveSize all = tk::collective_size(CollectiveOp::all_to_all, 1 << 20, 2, 4);
  CHECK(all.bytes == 1 << 20);
  CHECK(all.count == 1 << 17);
  // 8 B of fp16 on 4 ranks: one element per peer.
  CHECK(tk::collective_size(CollectiveOp::all_to_all, 8, 2, 4).count == 1);
  // 12 B of fp16 on 4 ranks is rounded up to 2 elements per peer, 16 B.
  const tk::CollectiveSize odd = tk::collective_size(CollectiveOp::all_to_all, 12, 2, 4);
  CHECK(odd.bytes == 16);
  CHECK(odd.count == 2);
  CHECK(odd.rounded_up());
  CHECK_FALSE(tk::collective_has_root(CollectiveOp::all_to_all));
  CHECK_FALSE(tk::collective_has_root(CollectiveOp::all_reduce));
  CHECK(tk::kCollectiveRoot == 0);
  CHECK(std::string(tk::collective_op_name(CollectiveOp::all_to_all)) == "all_to_all");
  CHECK(std::string(tk::collective_op_name(CollectiveOp::broadcast)) == "broadcast");
  CHECK(std::string(tk::collective_op_name(CollectiveOp::reduce)) == "reduce");
}

TEST_CASE("collective sizes that do not split evenly are rounded up and say so") {
  const tk::CollectiveSize odd = tk::collective_size(CollectiveOp::all_reduce, 7, 2, 2);
  CHECK(odd.bytes == 8);
  CHECK(odd.count == 4);
  CHECK(odd.rounded_up());
  // 8 B of fp32 over 3 ranks: one element per rank is 12 B.
  const tk::CollectiveSize three = tk::collective_size(CollectiveOp::all_gather, 8, 4, 3);
  CHECK(three.bytes == 12);
  CHECK(three.count == 1);
  CHECK(three.requested_bytes == 8);
  const tk::CollectiveSize scatter = tk::collective_size(CollectiveOp::reduce_scatter, 32, 2, 3);
  CHECK(scatter.bytes == 36);
  CHECK(scatter.count == 6);
}

TEST_CASE("collective sizes and dtypes outside the cases' range are errors naming the parameter") {
  CHECK_THROWS_WITH_AS(tk::collective_size(CollectiveOp::all_reduce, 0, 2, 2), doctest::Contains("size:"),
                       std::invalid_argument);
  CHECK_THROWS_AS(tk::collective_size(CollectiveOp::all_reduce, (std::int64_t{1} << 40) + 1, 2, 2),
                  std::invalid_argument);
  CHECK(tk::collective_element_bytes("fp16") == 2);
  CHECK(tk::collective_element_bytes("fp32") == 4);
  CHECK_THROWS_WITH_AS(tk::collective_element_bytes("bf16"), doctest::Contains("dtype:"), std::invalid_argument);
}

TEST_CASE("bus bandwidth factors are nccl-tests'") {
  CHECK(tk::collective_bus_factor(CollectiveOp::all_reduce, 2) == 1.0);
  CHECK(tk::collective_bus_factor(CollectiveOp::all_reduce, 8) == 1.75);
  CHECK(tk::collective_bus_factor(CollectiveOp::all_gather, 2) == 0.5);
  CHECK(tk::collective_bus_factor(CollectiveOp::reduce_scatter, 4) == 0.75);
  // PERFORMANCE.md, "Summary": broadcast and reduce 1, all-to-all (n-1)/n.
  CHECK(tk::collective_bus_factor(CollectiveOp::broadcast, 4) == 1.0);
  CHECK(tk::collective_bus_factor(CollectiveOp::reduce, 8) == 1.0);
  CHECK(tk::collective_bus_factor(CollectiveOp::all_to_all, 4) == 0.75);
  CHECK(tk::collective_bus_factor(CollectiveOp::all_to_all, 2) == 0.5);
}

TEST_CASE("the environment that changes NCCL's choices lists the variables that are set, in a fixed order") {
  // Saved and restored: ctest may run with any of them set.
  std::vector<std::pair<std::string, std::optional<std::string>>> saved;
  for (const char* variable : tk::kCollectiveChoiceVariables) {
    const char* value = std::getenv(variable);
    saved.emplace_back(variable, value != nullptr ? std::optional<std::string>(value) : std::nullopt);
    unsetenv(variable);
  }
  CHECK(tk::collective_choice_environment().empty());
  setenv("NCCL_PROTO", "LL128", 1);
  setenv("NCCL_ALGO", "Ring", 1);
  setenv("NCCL_MIN_NCHANNELS", "", 1);  // set, if empty
  setenv("NCCL_TESSERA_TEST_UNRELATED", "1", 1);  // not a choice: left out
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "LL128"}, {"NCCL_MIN_NCHANNELS", ""}};
  CHECK(tk::collective_choice_environment() == expected);
  unsetenv("NCCL_TESSERA_TEST_UNRELATED");
  for (const auto& [variable, value] : saved) {
    if (value) {
      setenv(variable.c_str(), value->c_str(), 1);
    } else {
      unsetenv(variable.c_str());
    }
  }
}

TEST_CASE("NCCL version codes decode in both of nccl.h's encodings") {
  CHECK(tk::collective_version_text(22809) == "2.28.9");  // 2.9 and later: X*10000 + Y*100 + Z
  CHECK(tk::collective_version_text(2804) == "2.8.4");    // up to 2.8: X*1000 + Y*100 + Z
}

TEST_CASE("a missing collective library is an error that names what was tried and the variable to set") {
  try {
    (void)tk::open_collective_library("NCCL", {"/nonexistent/libnccl.so.2", "libtessera-no-such-nccl.so"});
    FAIL("loaded a library that does not exist");
  } catch (const tk::CollectiveLibraryMissing& missing) {
    const std::string message = missing.what();
    CHECK(message.find("NCCL (the collective library) could not be loaded") != std::string::npos);
    CHECK(message.find("/nonexistent/libnccl.so.2") != std::string::npos);
    CHECK(message.find("libtessera-no-such-nccl.so") != std::string::npos);
    CHECK(message.find(tk::kCollectiveLibraryVariable) != std::string::npos);
  }
}

TEST_CASE("a library without the NCCL entry points is refused, naming them") {
  try {
    (void)tk::open_collective_library("NCCL", {"libm.so.6"});  // loads, but is no collective library
    FAIL("accepted libm as NCCL");
  } catch (const tk::CollectiveLibraryMissing& missing) {
    const std::string message = missing.what();
    CHECK(message.find("lacks ncclGetVersion") != std::string::npos);
    CHECK(message.find("ncclAllReduce") != std::string::npos);
    for (const char* symbol : {"ncclBroadcast", "ncclReduce,", "ncclSend", "ncclRecv"}) {
      CHECK_MESSAGE(message.find(symbol) != std::string::npos, symbol);
    }
  }
}

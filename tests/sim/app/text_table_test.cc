// The terminal tables: columns aligned by what a terminal shows, numbers to the right.
#include <doctest/doctest.h>

#include "sim/app/text_table.h"

namespace tessera::app {

TEST_CASE("a text table aligns cells by characters, not bytes, and numbers to the right") {
  TextTable t({"quantity", "value", "unit"});
  t.add_row({"latency", "1.500", "µs"});
  t.add_row({"bandwidth", "12.25", "GB/s"});
  // "µs" is 3 bytes but 2 columns: the unit column is 4 wide (GB/s), and the rule under the header
  // spans 9 + 2 + 5 + 2 + 4 columns.
  CHECK(t.render() ==
        "quantity   value  unit\n"
        "----------------------\n"
        "latency    1.500  µs\n"
        "bandwidth  12.25  GB/s\n");
}

}  // namespace tessera::app

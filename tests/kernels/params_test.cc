#include <doctest/doctest.h>

#include <stdexcept>

#include "harness/params.h"

using tk::ParamSpec;
using tk::ParamType;
using tk::Params;

TEST_CASE("parse_integer_with_unit reads plain counts and exact binary and decimal sizes") {
  CHECK(tk::parse_integer_with_unit("1024") == 1024);
  CHECK(tk::parse_integer_with_unit("4 KiB") == 4096);
  CHECK(tk::parse_integer_with_unit("256MiB") == 256LL << 20);
  CHECK(tk::parse_integer_with_unit(" 1 GiB ") == 1LL << 30);
  CHECK(tk::parse_integer_with_unit("2 MB") == 2000000);
  CHECK(tk::parse_integer_with_unit("3 B") == 3);
}

TEST_CASE("parse_integer_with_unit rejects negatives, fractions, unknown units and overflow") {
  CHECK_THROWS_AS(tk::parse_integer_with_unit("-1"), std::invalid_argument);
  CHECK_THROWS_AS(tk::parse_integer_with_unit("1.5 GiB"), std::invalid_argument);
  CHECK_THROWS_AS(tk::parse_integer_with_unit("4 kib"), std::invalid_argument);
  CHECK_THROWS_AS(tk::parse_integer_with_unit(""), std::invalid_argument);
  CHECK_THROWS_AS(tk::parse_integer_with_unit("99999999999 GiB"), std::invalid_argument);
}

TEST_CASE("Params resolves defaults, applies overrides and records both") {
  const std::vector<ParamSpec> specs{{"bytes", ParamType::integer, "1 MiB", ""},
                                     {"ratio", ParamType::real, "0.5", ""},
                                     {"variant", ParamType::text, "bsp", ""}};
  const Params defaults(specs, {});
  CHECK(defaults.integer("bytes") == 1 << 20);
  CHECK(defaults.real("ratio") == 0.5);
  CHECK(defaults.text("variant") == "bsp");
  CHECK(defaults.overrides().empty());

  const Params changed(specs, {{"bytes", "2 KiB"}, {"variant", " push "}});
  CHECK(changed.integer("bytes") == 2048);
  CHECK(changed.text("variant") == "push");
  CHECK(changed.to_json()["bytes"] == 2048);
  CHECK(changed.to_json()["ratio"] == 0.5);
  CHECK(changed.overrides().size() == 2);
}

TEST_CASE("Params names the key of an unknown parameter or an unreadable value") {
  const std::vector<ParamSpec> specs{{"bytes", ParamType::integer, "1 MiB", ""},
                                     {"ratio", ParamType::real, "0.5", ""}};
  CHECK_THROWS_WITH_AS(Params(specs, {{"byte", "1"}}), doctest::Contains("unknown parameter 'byte'"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(Params(specs, {{"ratio", "half"}}), doctest::Contains("parameter 'ratio'"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(Params(specs, {{"ratio", "0.5x"}}), doctest::Contains("parameter 'ratio'"),
                       std::invalid_argument);
  const Params params(specs, {});
  CHECK_THROWS_AS(params.text("bytes"), std::logic_error);  // read with the wrong type: a bug in the case
}

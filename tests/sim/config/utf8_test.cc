// UTF-8 well-formedness, and the YAML reader's use of it. Found by fuzz_config: a config with a
// byte that is not UTF-8 (`path: t.js\xefnl`) read fine, and `describe --json` then failed inside
// the JSON writer ("run failed", exit 1) instead of naming the file, line and column.
#include <doctest/doctest.h>

#include <string>

#include "error_capture.h"
#include "sim/config/overrides.h"
#include "sim/config/utf8.h"
#include "sim/config/yaml_reader.h"

namespace tessera::sim::config::test {
namespace {

TEST_CASE("utf8: well-formed text, and the offset of the first bad byte") {
  CHECK(is_utf8(""));
  CHECK(is_utf8("plain ASCII: 64 GB/s"));
  CHECK(is_utf8("1.5 \xc2\xb5s, 12 \xce\xbcs, \xe2\x82\xac, \xf0\x9f\x98\x80, \xf4\x8f\xbf\xbf"));  // µ, μ, €, U+1F600, U+10FFFF
  CHECK(find_invalid_utf8("ab\xff") == 2);
  CHECK(find_invalid_utf8("a\xc0\xaf") == 1);          // an overlong '/'
  CHECK(find_invalid_utf8("\xe0\x80\xaf") == 0);       // overlong again, three bytes
  CHECK(find_invalid_utf8("x\xed\xa0\x80") == 1);      // a surrogate, U+D800
  CHECK(find_invalid_utf8("\xf4\x90\x80\x80") == 0);   // past U+10FFFF
  CHECK(find_invalid_utf8("ok \xe2\x82") == 3);        // cut short at the end
  CHECK(find_invalid_utf8("\xe2\x28\xa1") == 0);       // a continuation byte missing
  CHECK(find_invalid_utf8("\x80") == 0);               // a continuation byte alone
}

TEST_CASE("yaml: a byte that is not UTF-8 is an error at its line and column") {
  const ConfigError e = config_error_of([] {
    parse_yaml("system: mi300x-8\nworkload: {kind: trace, path: t.js\xefnl}\n", "bad.yaml");
  });
  CHECK(e.location() == SourceLocation{"bad.yaml", 2, 35});
  CHECK(std::string(e.what()) == "bad.yaml:2:35: invalid UTF-8 (byte 0xef): config text must be UTF-8");
}

TEST_CASE("--set: a value that is not UTF-8 is an error at the flag") {
  const ConfigError e = config_error_of([] { parse_override("workload.path=t\xff.jsonl"); });
  CHECK(std::string(e.what()).find("invalid UTF-8 (byte 0xff)") != std::string::npos);
  CHECK(e.location().file == "--set workload.path=t\xff.jsonl");
}

}  // namespace
}  // namespace tessera::sim::config::test

#include "sim/io/strict_json.h"

#include <algorithm>
#include <set>
#include <vector>

namespace tessera::sim::io {
namespace {

using nlohmann::json;

struct DuplicateKey {
  std::string key;
};

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1,
// column 7: " prefix and without the "; last read: '...'" quote of the input.
std::string reason_of(const json::exception& e) {
  std::string what = e.what();
  if (const std::size_t column = what.find("column "); column != std::string::npos) {
    if (const std::size_t colon = what.find(": ", column); colon != std::string::npos) what = what.substr(colon + 2);
  } else if (what.starts_with("[json.exception.")) {
    if (const std::size_t tag_end = what.find("] "); tag_end != std::string::npos) what = what.substr(tag_end + 2);
  }
  if (const std::size_t quote = what.find("; last read: "); quote != std::string::npos) what.erase(quote);
  // The number's text, as in "number overflow parsing '1e999'", is input too, but short and
  // the point of the message: kept up to 32 characters.
  if (const std::size_t open = what.find(" parsing '"); open != std::string::npos && what.size() - open > 44) {
    what = what.substr(0, open + 42) + "...'";
  }
  return what;
}

}  // namespace

json parse_strict_json(std::string_view text) {
  std::vector<std::set<std::string>> open_objects;
  const json::parser_callback_t check = [&open_objects](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start: open_objects.emplace_back(); break;
      case json::parse_event_t::object_end: open_objects.pop_back(); break;
      case json::parse_event_t::key:
        if (!open_objects.back().insert(parsed.get<std::string>()).second) throw DuplicateKey{parsed.get<std::string>()};
        break;
      default: break;
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), check);
  } catch (const json::parse_error& e) {
    throw StrictJsonError(StrictJsonError::Kind::kSyntax, e.byte, "", reason_of(e));
  } catch (const json::exception& e) {
    throw StrictJsonError(StrictJsonError::Kind::kNumber, 0, "", reason_of(e));
  } catch (const DuplicateKey& d) {
    throw StrictJsonError(StrictJsonError::Kind::kDuplicateKey, 0, d.key, "duplicate key");
  }
}

std::string line_and_column(std::string_view text, std::size_t byte) {
  const std::size_t end = std::min(byte > 0 ? byte - 1 : 0, text.size());
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(end - line_start + 1);
}

}  // namespace tessera::sim::io

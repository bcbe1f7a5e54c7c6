#pragma once
// Escapes text for HTML element content and for quoted attribute values alike.
#include <string>
#include <string_view>

namespace tessera::app::report {

std::string html_escape(std::string_view text);

}  // namespace tessera::app::report

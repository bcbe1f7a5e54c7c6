#pragma once
// Hierarchical instance names such as `node.gpu[3].xcd[1].l2`: used in statistics, traces
// and error messages, so they are validated once when a component is made.
#include <cstddef>
#include <string>
#include <string_view>

namespace tessera::sim {

// True when `name` is one or more dot-separated segments, each `[a-z_][a-z0-9_]*` with an
// optional `[index]`.
bool is_valid_instance_name(std::string_view name);

// `parent.child` or `parent.child[index]`; throws std::invalid_argument on a bad result.
std::string child_name(std::string_view parent, std::string_view child);
std::string child_name(std::string_view parent, std::string_view child, std::size_t index);

}  // namespace tessera::sim

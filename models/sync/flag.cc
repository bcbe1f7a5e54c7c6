#include "models/sync/flag.h"

namespace tessera::models::sync {

std::string_view compare_name(Compare op) {
  switch (op) {
    case Compare::kEq: return "==";
    case Compare::kNe: return "!=";
    case Compare::kGe: return ">=";
    case Compare::kGt: return ">";
    case Compare::kLe: return "<=";
    case Compare::kLt: return "<";
  }
  return "?";
}

}  // namespace tessera::models::sync

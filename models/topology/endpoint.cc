#include "models/topology/endpoint.h"

#include <fmt/format.h>

namespace tessera::models::topology {

std::string Endpoint::name() const {
  switch (kind) {
    case VertexKind::kDie: return fmt::format("gpu[{}].die[{}]", gpu, index);
    case VertexKind::kIod: return fmt::format("gpu[{}].iod[{}]", gpu, index);
    case VertexKind::kMemory: return fmt::format("gpu[{}].mem", gpu);
    case VertexKind::kSwitch: return fmt::format("switch[{}]", index);
    case VertexKind::kHost: return "host";
    case VertexKind::kNic: return fmt::format("gpu[{}].nic", gpu);
    case VertexKind::kLeaf: return fmt::format("leaf[{}]", index);
    case VertexKind::kSpine: return "spine";
  }
  return "unknown";
}

}  // namespace tessera::models::topology

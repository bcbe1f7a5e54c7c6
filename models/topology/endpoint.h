#pragma once
// Names one vertex of the topology graph: where a transfer starts or ends (a die, a GPU's
// memory side, the host) or, for inspection, a router (an IOD, a switch).
#include <compare>
#include <cstdint>
#include <string>

namespace tessera::models::topology {

enum class VertexKind {
  kDie,     // gpu[g].die[d]: a compute die (XCD) with its CUs and L2; NVIDIA: one L2 partition half
  kIod,     // gpu[g].iod[i]: an I/O die, the on-package router
  kMemory,  // gpu[g].mem: the memory side of a GPU (MALL + HBM)
  kSwitch,  // switch[s]: a GPU <-> GPU switch (see README: switches are aggregated)
  kHost,    // host: the PCIe root
  kNic,     // gpu[g].nic: GPU g's network interface (systems of several nodes)
  kLeaf,    // leaf[i]: a leaf switch of the network between nodes
  kSpine,   // spine: the network's spine switches, joined into one crossbar
};

struct Endpoint {
  VertexKind kind = VertexKind::kHost;
  std::uint32_t gpu = 0;    // unused for kSwitch, kHost, kLeaf and kSpine
  std::uint32_t index = 0;  // die, IOD, switch or leaf index; unused otherwise

  static Endpoint die(std::uint32_t gpu, std::uint32_t die) { return {VertexKind::kDie, gpu, die}; }
  static Endpoint iod(std::uint32_t gpu, std::uint32_t iod) { return {VertexKind::kIod, gpu, iod}; }
  static Endpoint memory(std::uint32_t gpu) { return {VertexKind::kMemory, gpu, 0}; }
  static Endpoint switch_at(std::uint32_t index) { return {VertexKind::kSwitch, 0, index}; }
  static Endpoint host() { return {VertexKind::kHost, 0, 0}; }
  static Endpoint nic(std::uint32_t gpu) { return {VertexKind::kNic, gpu, 0}; }
  static Endpoint leaf(std::uint32_t index) { return {VertexKind::kLeaf, 0, index}; }
  static Endpoint spine() { return {VertexKind::kSpine, 0, 0}; }

  // Its instance name, e.g. "gpu[0].die[3]", "gpu[1].mem", "switch[0]", "host", "gpu[9].nic", "leaf[2]", "spine".
  std::string name() const;

  auto operator<=>(const Endpoint&) const = default;
};

}  // namespace tessera::models::topology

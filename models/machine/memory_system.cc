#include "models/machine/memory_system.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include <fmt/format.h>

#include "models/fabric/latency_bound.h"
#include "models/topology/network_binding.h"

namespace tessera::models::machine {

using topology::Endpoint;
using topology::MemoryNode;
using topology::Route;
using topology::RouteOptions;

namespace {

// A peer's line in the reader's L2 is tagged with (owner + 1) above every address a GPU's
// memory can have (256 TiB), so it never aliases the reader's own copy of a symmetric buffer.
constexpr int kPeerTagShift = 48;

std::uint64_t peer_line_address(std::uint32_t owner, std::uint64_t address) {
  return (std::uint64_t{owner} + 1) << kPeerTagShift | address;
}

// A slot of `slots` for a new entry: a freed one if any, else a new one at the end.
template <class T>
std::uint32_t take_slot(std::vector<T>& slots, std::vector<std::uint32_t>& free) {
  if (free.empty()) {
    slots.emplace_back();
    return static_cast<std::uint32_t>(slots.size() - 1);
  }
  const std::uint32_t slot = free.back();
  free.pop_back();
  return slot;
}

}  // namespace

MemorySystem::MemorySystem(sim::Context context, std::string name, const topology::Topology& topology,
                           topology::RouteTable& routes, fabric::FlowNetwork& network,
                           std::vector<fabric::ResourceId> network_ids, std::span<cache::CacheHierarchy> caches)
    : Component(context, std::move(name)),
      topology_(topology),
      routes_(routes),
      network_(network),
      network_ids_(std::move(network_ids)),
      caches_(caches) {
  const SystemSpec& spec = topology_.spec();
  if (caches_.size() != spec.num_gpus) throw std::invalid_argument("MemorySystem: one cache hierarchy per GPU");
  port_bytes_per_s_ = spec.gpu.fabric.cu_port_bytes_per_clock * spec.gpu.compute.clock_hz;
  window_bytes_ = static_cast<double>(spec.gpu.fabric.max_bytes_in_flight_per_workgroup);
  // The L2 alone, as a route: a local L2 hit or a store into the L2 crosses only it.
  const std::uint32_t dies = spec.gpu.compute.num_dies;
  l2_routes_.resize(std::size_t{spec.num_gpus} * dies);
  die_loads_.resize(std::size_t{spec.num_gpus} * dies);
  holds_peer_lines_.resize(std::size_t{spec.num_gpus} * dies);
  // The memory side's own resources, as routes: an atomic reads its old values there.
  const auto node_route = [this](topology::Vertex vertex, topology::ResourceId resource) {
    Route r;
    r.resources = {resource};
    r.vertices = {vertex};
    r.latency_ps = topology_.resource(resource).spec.latency_ps;
    r.bottleneck_bytes_per_s = topology_.resource(resource).spec.bandwidth_bytes_per_s;
    return r;
  };
  for (std::uint32_t g = 0; g < spec.num_gpus; ++g) {
    const topology::Vertex memory = topology_.vertex(Endpoint::memory(g));
    const auto& info = topology_.info(memory);
    hbm_routes_.push_back(node_route(memory, info.node_resource));
    if (info.mall != topology::kNoResource) mall_routes_.push_back(node_route(memory, info.mall));
  }
  for (std::uint32_t g = 0; g < spec.num_gpus; ++g) {
    for (std::uint32_t d = 0; d < dies; ++d) {
      const auto& info = topology_.info(topology_.vertex(Endpoint::die(g, d)));
      Route& r = l2_routes_[std::size_t{g} * dies + d];
      r.resources = {info.node_resource};
      r.vertices = {topology_.vertex(Endpoint::die(g, d))};
      r.latency_ps = topology_.resource(info.node_resource).spec.latency_ps;
      r.bottleneck_bytes_per_s = topology_.resource(info.node_resource).spec.bandwidth_bytes_per_s;
    }
  }
}

const Route& MemorySystem::l2_route(std::uint32_t gpu, std::uint32_t l2) {
  return l2_routes_.at(std::size_t{gpu} * topology_.spec().gpu.compute.num_dies + l2);
}

sim::Tick MemorySystem::link_round_trip_ps(std::uint32_t gpu, std::uint32_t die, std::uint32_t owner) {
  const RouteOptions edges_only{.memory = MemoryNode::kNone};
  return routes_.route(Endpoint::die(gpu, die), Endpoint::memory(owner), edges_only).latency_ps +
         routes_.route(Endpoint::memory(owner), Endpoint::die(gpu, die), edges_only).latency_ps;
}

sim::Tick MemorySystem::load_round_trip_ps(std::uint32_t gpu, std::uint32_t die, std::uint32_t owner) {
  return routes_.route(Endpoint::die(gpu, die), Endpoint::memory(owner)).latency_ps +
         routes_.route(Endpoint::memory(owner), Endpoint::die(gpu, die), {.memory = MemoryNode::kNone}).latency_ps;
}

fabric::RouteId MemorySystem::network_route(const Route& route, double cap) {
  const RouteKey key{&route, std::bit_cast<std::uint64_t>(cap)};
  const auto it = network_routes_.find(key);
  if (it != network_routes_.end()) return it->second;
  const auto path = topology::to_network_path(route.resources, network_ids_);
  const fabric::RouteId id = network_.add_route(path, cap);
  network_routes_.emplace(key, id);
  return id;
}

double MemorySystem::load_cap(std::uint64_t part_bytes, std::uint64_t total_bytes, sim::Tick round_trip_ps,
                              sim::Tick flow_latency_ps) const {
  if (round_trip_ps == 0) return port_bytes_per_s_;
  const double window = window_bytes_ * static_cast<double>(part_bytes) / static_cast<double>(total_bytes);
  const double b = static_cast<double>(part_bytes);
  if (b <= window) return port_bytes_per_s_;  // the whole part is one window: latency plus serialisation
  // A lone windowed transfer takes B R / W; the flow adds its own latency L at the end.
  const double windowed_ps = b * static_cast<double>(round_trip_ps) / window;
  const double transfer_ps = windowed_ps - static_cast<double>(flow_latency_ps);
  const double cap = b / transfer_ps * 1e12;
  return std::min(cap, port_bytes_per_s_);
}

MemorySystem::FillLink MemorySystem::link_fill(std::uint32_t owner, std::uint64_t address,
                                               const cache::HierarchyResult& r, const cache::CacheSpec& l2) {
  if (!l2.hits_wait_for_fills) return {};
  const std::uint64_t key = (std::uint64_t{owner} << 58) ^ address;
  if (r.l2_miss_bytes > 0) {  // this load fills the range: later hits wait for it
    const std::uint32_t fill = take_slot(fills_, free_fills_);
    fills_[fill].key = key;
    filling_[key] = fill;  // a newer fill of the range supersedes an older one for later hits
    return {.performs = fill};
  }
  if (r.l2_hit_bytes == 0) return {};
  const auto it = filling_.find(key);
  return it == filling_.end() ? FillLink{} : FillLink{.wait = it->second};
}

void MemorySystem::complete_fill(std::uint32_t fill) {
  Fill& f = fills_[fill];
  const auto it = filling_.find(f.key);
  if (it != filling_.end() && it->second == fill) filling_.erase(it);
  const sim::Tick t = now();
  for (const auto& [slot, earliest] : f.waiters) {
    schedule_self<&MemorySystem::on_delay_over>(this, earliest > t ? earliest - t : 0, {slot, 0});
  }
  f.waiters.clear();
  free_fills_.push_back(fill);
}

std::uint32_t MemorySystem::new_delayed(const DelayedFlow& flow) {
  const std::uint32_t slot = take_slot(delayed_, free_delayed_);
  delayed_[slot] = flow;
  return slot;
}

std::uint32_t MemorySystem::new_op(sim::Handler on_done, sim::Payload payload, std::uint32_t parts) {
  const std::uint32_t id = take_slot(ops_, free_ops_);
  ops_[id] = Op{on_done, payload, parts};
  ++ops_in_flight_;
  return id;
}

void MemorySystem::post(const Route& route, std::uint64_t bytes) {
  if (bytes == 0) return;
  network_.start_flow(network_route(route, fabric::kUncapped), bytes, sim::bind<&MemorySystem::on_posted_done>(this));
}

void MemorySystem::start_parts(std::span<const Part> parts, AccessKind kind, std::uint32_t gpu, std::uint32_t die,
                               std::uint32_t owner, double stream_cap, sim::Handler on_done, sim::Payload payload,
                               std::uint32_t fill) {
  std::uint64_t total = 0;
  std::uint32_t count = 0;
  for (const Part& p : parts) {
    total += p.bytes;
    count += p.bytes > 0 ? 1 : 0;
  }
  if (count == 0) {  // a zero-byte access still costs the issue: complete at once, in order
    if (fill != kNoFill) complete_fill(fill);
    engine().schedule(0, on_done, payload);
    return;
  }
  const std::uint32_t op = new_op(on_done, payload, count);
  ops_[op].fill = fill;
  // The links back from the data's source: the part of the load round trip after the data
  // left memory (0 for a local access on these topologies, the link latencies for a peer).
  const sim::Tick back_ps = kind == AccessKind::kLoad && owner != gpu
                                ? routes_.route(Endpoint::memory(owner), Endpoint::die(gpu, die),
                                                {.memory = MemoryNode::kNone}).latency_ps
                                : 0;
  for (const Part& p : parts) {
    if (p.bytes == 0) continue;
    double cap = stream_cap;
    if (kind == AccessKind::kLoad) {
      const sim::Tick flow_latency = p.delay_ps + p.route->latency_ps;
      const sim::Tick round_trip = owner == gpu || p.at_reader ? flow_latency : flow_latency + back_ps;
      cap = load_cap(p.bytes, total, round_trip, flow_latency);
    }
    const fabric::RouteId route = network_route(*p.route, cap);
    if (p.wait_fill != kNoFill) {  // parked until the fill arrives (complete_fill starts it)
      fills_[p.wait_fill].waiters.emplace_back(new_delayed({route, p.bytes, op}), now() + p.delay_ps);
      continue;
    }
    if (p.delay_ps == 0) {
      network_.start_flow(route, p.bytes, sim::bind<&MemorySystem::on_part_done>(this), {op, 0});
      continue;
    }
    schedule_self<&MemorySystem::on_delay_over>(this, p.delay_ps, {new_delayed({route, p.bytes, op}), 0});
  }
}

void MemorySystem::on_delay_over(const sim::Payload& payload) {
  const DelayedFlow d = delayed_[payload.a];
  free_delayed_.push_back(static_cast<std::uint32_t>(payload.a));
  network_.start_flow(d.route, d.bytes, sim::bind<&MemorySystem::on_part_done>(this), {d.op, 0});
}

void MemorySystem::on_part_done(const sim::Payload& payload) {
  Op& op = ops_[payload.a];
  if (--op.pending > 0) return;
  const sim::Handler handler = op.on_done;
  const sim::Payload user = op.payload;
  const std::uint32_t fill = op.fill;
  free_ops_.push_back(static_cast<std::uint32_t>(payload.a));
  if (fill != kNoFill) complete_fill(fill);
  --ops_in_flight_;
  handler(user);
}

void MemorySystem::access(const MemoryAccess& a, sim::Handler on_done, sim::Payload payload) {
  const SystemSpec& spec = topology_.spec();
  if (a.gpu >= spec.num_gpus || a.owner >= spec.num_gpus) {
    throw std::out_of_range(fmt::format("memory access between GPU {} and GPU {} on a {}-GPU system", a.gpu, a.owner,
                                        spec.num_gpus));
  }
  if (a.die >= spec.gpu.compute.num_dies) {
    throw std::out_of_range(fmt::format("memory access from die {} of a GPU with {} dies", a.die, spec.gpu.compute.num_dies));
  }
  cache::CacheHierarchy& owner_caches = caches_[a.owner];
  const cache::CacheSpec& l2 = owner_caches.spec().l2;
  const cache::CacheSpec& mall = owner_caches.spec().mall;
  const bool has_mall = mall.capacity_bytes > 0;
  const RouteOptions via_hbm{.memory = MemoryNode::kHbm, .include_l2 = true};
  const RouteOptions via_mall{.memory = MemoryNode::kMall, .include_l2 = true};
  const RouteOptions edges_only{.memory = MemoryNode::kNone};
  const Endpoint die = Endpoint::die(a.gpu, a.die);
  const Endpoint memory = Endpoint::memory(a.owner);
  const std::uint32_t l2_index = owner_caches.l2_index(a.die, a.address);

  if (a.kind == AccessKind::kAtomicAdd) {
    atomic_add(a, on_done, payload);
    return;
  }
  DieLoads& die_loads = die_loads_[die_slot(a.gpu, a.die)];
  if (a.kind == AccessKind::kLoad) die_loads.load_bytes += a.bytes;
  if (a.owner == a.gpu) {
    if (a.kind == AccessKind::kLoad) {
      const cache::HierarchyResult r = owner_caches.read(a.die, a.address, a.bytes);
      die_loads.l2_hit_bytes += r.l2_hit_bytes;
      totals_.l2_hit_bytes += r.l2_hit_bytes;
      totals_.mall_hit_bytes += r.mall_hit_bytes;
      totals_.hbm_read_bytes += r.hbm_read_bytes;
      totals_.hbm_write_bytes += r.hbm_write_bytes;
      post(routes_.route(die, memory, {.memory = MemoryNode::kHbm}), r.hbm_write_bytes);
      const FillLink fill = link_fill(a.owner, a.address, r, l2);
      const Part parts[] = {
          {&l2_route(a.gpu, l2_index), r.l2_hit_bytes, l2.hit_latency_ps, false, fill.wait},
          {has_mall ? &routes_.route(die, memory, via_mall) : nullptr, r.mall_hit_bytes, mall.hit_latency_ps},
          {&routes_.route(die, memory, via_hbm), r.hbm_read_bytes, 0},
      };
      start_parts(parts, a.kind, a.gpu, a.die, a.owner, port_bytes_per_s_, on_done, payload, fill.performs);
    } else {
      const cache::HierarchyResult r = owner_caches.write(a.die, a.address, a.bytes);
      totals_.hbm_write_bytes += r.hbm_write_bytes;
      post(routes_.route(die, memory, {.memory = MemoryNode::kHbm}), r.hbm_write_bytes);
      const Part parts[] = {{&l2_route(a.gpu, l2_index), a.bytes, 0}};
      start_parts(parts, a.kind, a.gpu, a.die, a.owner, port_bytes_per_s_, on_done, payload);
    }
    return;
  }

  if (a.kind == AccessKind::kLoad) {
    // A peer's coarse-grained memory on a GPU that caches it: the reader's L2 first, then only
    // its misses cross the links (tagged by owner so they never alias this GPU's own addresses).
    cache::HierarchyResult near;
    near.l2_miss_bytes = a.bytes;
    Part near_part;  // the reader's L2 hits: none unless it keeps peers' lines
    FillLink fill;
    if (a.peer_cacheable && spec.gpu.memory.peer_reads_in_l2) {
      const std::uint64_t tagged = peer_line_address(a.owner, a.address);
      holds_peer_lines_[die_slot(a.gpu, a.die)] = 1;
      near = caches_[a.gpu].peer_read(a.die, tagged, a.bytes);
      die_loads.l2_hit_bytes += near.l2_hit_bytes;
      totals_.l2_hit_bytes += near.l2_hit_bytes;
      totals_.hbm_write_bytes += near.hbm_write_bytes;
      post(routes_.route(die, Endpoint::memory(a.gpu), {.memory = MemoryNode::kHbm}), near.hbm_write_bytes);
      const cache::CacheSpec& near_l2 = caches_[a.gpu].spec().l2;
      fill = link_fill(a.gpu, tagged, near, near_l2);
      near_part = {&l2_route(a.gpu, caches_[a.gpu].l2_index(a.die, a.address)), near.l2_hit_bytes,
                   near_l2.hit_latency_ps, true, fill.wait};
    }
    const cache::HierarchyResult r = near.l2_miss_bytes > 0 ? owner_caches.remote_read_arrives(a.address, near.l2_miss_bytes)
                                                           : cache::HierarchyResult{};
    totals_.l2_hit_bytes += r.l2_hit_bytes;
    totals_.mall_hit_bytes += r.mall_hit_bytes;
    totals_.hbm_read_bytes += r.hbm_read_bytes;
    totals_.hbm_write_bytes += r.hbm_write_bytes;
    totals_.remote_load_bytes += near.l2_miss_bytes;
    const Part parts[] = {
        near_part,
        {&routes_.route(memory, die, edges_only), r.l2_hit_bytes, l2.hit_latency_ps},
        {has_mall ? &routes_.route(memory, die, {.memory = MemoryNode::kMall}) : nullptr, r.mall_hit_bytes,
         mall.hit_latency_ps},
        {&routes_.route(memory, die, {.memory = MemoryNode::kHbm}), r.hbm_read_bytes, 0},
    };
    start_parts(parts, a.kind, a.gpu, a.die, a.owner, port_bytes_per_s_, on_done, payload, fill.performs);
  } else {
    const cache::HierarchyResult r = owner_caches.remote_write_arrives(a.address, a.bytes);
    totals_.hbm_write_bytes += r.hbm_write_bytes;
    totals_.remote_store_bytes += a.bytes;
    const std::uint64_t to_hbm = std::min(r.hbm_write_bytes, a.bytes);
    // Write-backs of other dirty data the store evicted at the owner (an address-partitioned L2)
    // load the owner's HBM but are not this store's bytes.
    post(routes_.route(Endpoint::die(a.owner, l2_index), memory, {.memory = MemoryNode::kHbm}),
         r.hbm_write_bytes - to_hbm);
    const Part parts[] = {
        {&routes_.route(die, memory, {.memory = MemoryNode::kHbm}), to_hbm, 0},
        {&routes_.route(die, memory, edges_only), a.bytes - to_hbm, 0},
    };
    start_parts(parts, a.kind, a.gpu, a.die, a.owner, port_bytes_per_s_, on_done, payload);
  }
}

void MemorySystem::atomic_add(const MemoryAccess& a, sim::Handler on_done, sim::Payload payload) {
  const SystemSpec& spec = topology_.spec();
  cache::CacheHierarchy& owner_caches = caches_[a.owner];
  const std::uint32_t l2_index = owner_caches.l2_index(a.die, a.address);
  const Endpoint die = Endpoint::die(a.gpu, a.die);
  const Endpoint memory = Endpoint::memory(a.owner);
  // The memory side reads the old values, then writes the sums.
  const cache::HierarchyResult read = owner_caches.remote_read_arrives(a.address, a.bytes);
  const cache::HierarchyResult write = owner_caches.remote_write_arrives(a.address, a.bytes);
  totals_.mall_hit_bytes += read.mall_hit_bytes;
  totals_.hbm_read_bytes += read.hbm_read_bytes;
  totals_.hbm_write_bytes += read.hbm_write_bytes + write.hbm_write_bytes;
  totals_.atomic_bytes += a.bytes;
  const std::uint64_t to_hbm = std::min(write.hbm_write_bytes, a.bytes);
  // Write-backs of other dirty data the accesses evicted (an address-partitioned L2).
  post(routes_.route(Endpoint::die(a.owner, l2_index), memory, {.memory = MemoryNode::kHbm}),
       read.hbm_write_bytes + write.hbm_write_bytes - to_hbm);
  const sim::Tick atomic_ps = a.owner == a.gpu ? spec.gpu.atomics.local_latency_ps : spec.gpu.atomics.remote_latency_ps;
  const bool has_mall = !mall_routes_.empty();
  const Part parts[] = {
      {&routes_.route(die, memory, {.memory = MemoryNode::kHbm}), to_hbm, atomic_ps},
      {&routes_.route(die, memory, {.memory = MemoryNode::kNone}), a.bytes - to_hbm, atomic_ps},
      {&l2_route(a.owner, l2_index), read.l2_hit_bytes, owner_caches.spec().l2.hit_latency_ps},
      {has_mall ? &mall_routes_[a.owner] : nullptr, read.mall_hit_bytes, owner_caches.spec().mall.hit_latency_ps},
      {&hbm_routes_[a.owner], read.hbm_read_bytes, 0},
  };
  start_parts(parts, a.kind, a.gpu, a.die, a.owner, port_bytes_per_s_, on_done, payload);
}

void MemorySystem::release_all(std::uint32_t gpu, sim::Handler on_done, sim::Payload payload) {
  const SystemSpec& spec = topology_.spec();
  if (gpu < caches_.size()) {
    const std::uint64_t first = std::uint64_t{1} << kPeerTagShift;
    for (std::uint32_t d = 0; d < spec.gpu.compute.num_dies; ++d) {
      std::uint8_t& holds = holds_peer_lines_[die_slot(gpu, d)];
      if (holds == 0) continue;
      caches_[gpu].acquire(d, first, std::uint64_t{spec.num_gpus} << kPeerTagShift);  // clean: nothing written back
      holds = 0;
    }
  }
  release_dies(gpu, 0, spec.gpu.compute.num_dies, on_done, payload);
}

void MemorySystem::acquire(std::uint32_t gpu, std::uint32_t die, std::uint64_t address, std::uint64_t bytes) {
  const SystemSpec& spec = topology_.spec();
  if (gpu >= caches_.size() || die >= spec.gpu.compute.num_dies) {
    throw std::out_of_range(fmt::format("acquire on GPU {} die {} of a {}-GPU system", gpu, die, caches_.size()));
  }
  caches_[gpu].acquire(die, address, bytes);
  if (holds_peer_lines_[die_slot(gpu, die)] == 0) return;
  for (std::uint32_t owner = 0; owner < spec.num_gpus; ++owner) {
    if (owner != gpu) caches_[gpu].acquire(die, peer_line_address(owner, address), bytes);
  }
}

void MemorySystem::release_die(std::uint32_t gpu, std::uint32_t die, sim::Handler on_done, sim::Payload payload) {
  release_dies(gpu, die, die + 1, on_done, payload);
}

void MemorySystem::release_dies(std::uint32_t gpu, std::uint32_t first, std::uint32_t end, sim::Handler on_done,
                                sim::Payload payload) {
  if (gpu >= caches_.size() || end > topology_.spec().gpu.compute.num_dies) {
    throw std::out_of_range(fmt::format("release on GPU {} dies [{}, {}) of a {}-GPU system", gpu, first, end, caches_.size()));
  }
  std::vector<Part>& parts = release_parts_;
  parts.clear();
  for (std::uint32_t d = first; d < end; ++d) {
    const cache::HierarchyResult r = caches_[gpu].release(d);
    totals_.hbm_write_bytes += r.hbm_write_bytes;
    parts.push_back({&routes_.route(Endpoint::die(gpu, d), Endpoint::memory(gpu)), r.hbm_write_bytes, 0});
  }
  start_parts(parts, AccessKind::kStore, gpu, 0, gpu, fabric::kUncapped, on_done, payload);
}

void MemorySystem::dma_copy(std::uint32_t src_gpu, std::uint64_t src_address, std::uint32_t dst_gpu,
                            std::uint64_t dst_address, std::uint64_t bytes, sim::Handler on_done, sim::Payload payload) {
  const SystemSpec& spec = topology_.spec();
  if (src_gpu >= spec.num_gpus || dst_gpu >= spec.num_gpus || src_gpu == dst_gpu) {
    throw std::out_of_range(fmt::format("copy from GPU {} to GPU {} on a {}-GPU system (two distinct GPUs needed)",
                                        src_gpu, dst_gpu, spec.num_gpus));
  }
  caches_[src_gpu].remote_read_arrives(src_address, bytes);
  const cache::HierarchyResult w = caches_[dst_gpu].remote_write_arrives(dst_address, bytes);
  totals_.dma_bytes += bytes;
  totals_.hbm_read_bytes += bytes;
  totals_.hbm_write_bytes += w.hbm_write_bytes;
  const Part parts[] = {{&routes_.route(Endpoint::memory(src_gpu), Endpoint::memory(dst_gpu)), bytes, 0}};
  start_parts(parts, AccessKind::kStore, src_gpu, 0, dst_gpu, fabric::kUncapped, on_done, payload);
}

}  // namespace tessera::models::machine

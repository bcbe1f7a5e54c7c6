#pragma once
// Timed memory operations of workgroups: where the bytes come from (the cache model decides)
// and how long they take to move (the fabric model shares bandwidth along the routes).
//
// One access, by a workgroup on die `die` of GPU `gpu`, of `bytes` at `address` in the memory
// of GPU `owner`:
//
//   1. The owner's cache hierarchy classifies the bytes: L2 hit, MALL hit, HBM, and the dirty
//      data it must write back (CacheHierarchy::read / write / remote_*_arrives).
//   2. Each non-empty part becomes one flow over its route (below), after the part's hit
//      latency (an L2 or MALL hit starts after `hit_latency`; the HBM latency is on its route).
//      The access completes when all its parts have completed.
//   3. Write-backs and write-throughs to HBM are posted: they load the routes to memory (and so
//      slow down everything that shares them) but the access does not wait for them.
//
// | access | part | route |
// |---|---|---|
// | local load | L2 hit | the die's L2 |
// | | MALL hit / HBM | die (with its L2) -> memory side, MALL or HBM |
// | local store | all bytes | the die's L2 (write-back, write-allocate) |
// | remote load | MALL hit / HBM | owner's memory side -> the die, over the GPU links |
// | | owner L2 hit (NVIDIA) | owner's memory side (no HBM) -> the die |
// | | reader L2 hit (peer_cacheable, `gpu.memory.peer_reads_in_l2`) | the die's L2; only the misses go to the owner |
// | remote store | bytes reaching HBM | the die -> owner's memory side with HBM |
// | | the rest (kept in owner's L2) | the die -> owner's memory side, no HBM |
// | atomic add (local or remote) | the operand | as a remote store, from the die to the owner's memory side |
// | | old values: MALL / L2-partition hit, HBM | the owner's MALL / that L2 / HBM alone |
//
// Ranged atomic adds (kAtomicAdd) are performed at the owner's memory side, where every die and
// every peer sees one copy, as MI300X performs system-scope atomics on fine-grained memory: a
// private L2 is bypassed, even the issuing die's own (its stale copy waits for an acquire); an
// address-partitioned L2 (NVIDIA) is the point of coherence and performs them in its partition.
// The cache model sees a read and a write at the memory side (remote_read_arrives, then
// remote_write_arrives): the read-modify-write doubles the memory-side traffic of a store. The
// operand parts start after the spec's atomic latency (atomics.local_latency_ps, or
// remote_latency_ps for a peer's memory): the element atomics of one access are pipelined, so
// their latency is paid once; their throughput is that of the routes (no separate limit on the
// atomic units). The access completes when the old values have been read and the sums written.
//
// Rate limits of a workgroup (FabricSpec): stores stream at the CU port rate
// (`cu_port_bytes_per_clock` x clock). Loads keep at most W = `max_bytes_in_flight_per_workgroup`
// outstanding, so by Little's law they are latency-bound at W / R with R the load round trip
// (hit latency or route latency out, plus the links back). A windowed transfer of B > W bytes
// alone takes B R / W (the first window's round trip overlaps the rest); a fluid flow takes
// B / cap + L (L its own latency), so a load part gets the cap B / (B R / W - L), which makes the
// two agree exactly for a lone flow and still yields to the max-min share under contention.
// Parts of one access split W in proportion to their bytes.
//
// Hits under a pending miss (`l2.hits_wait_for_fills`): a local load that misses in the L2 (some
// of its bytes come from the MALL or HBM) marks its range (owner, start address) as filling until
// the load completes; a later local load of the same range that hits in the L2 meanwhile starts
// its L2 part when that fill completes, and no earlier than hit_latency after its issue: the cache
// model allocates the lines at the miss, the data arrive with the fill (the L2 merges the second
// request into the first one's miss, as every cache with miss-status registers does). Ranges are
// matched by their start address (the workgroups of a GEMM sharing an A or B block load the same
// range). Off, such a hit costs hit_latency and nothing is tracked.
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/cache/cache_hierarchy.h"
#include "models/fabric/flow_network.h"
#include "models/topology/route_table.h"
#include "models/topology/topology.h"
#include "sim/component/component.h"

namespace tessera::models::machine {

enum class AccessKind : std::uint8_t {
  kLoad,
  kStore,
  kAtomicAdd,  // element-wise atomic add of the bytes into the owner's memory (no value returned)
};

struct MemoryAccess {
  AccessKind kind = AccessKind::kLoad;
  std::uint32_t gpu = 0;    // the issuing GPU
  std::uint32_t die = 0;    // the issuing workgroup's die (XCD)
  std::uint32_t owner = 0;  // the GPU whose memory holds [address, address + bytes)
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  // A load of a peer's coarse-grained memory, which the reader's L2 may keep where the GPU does
  // so (SystemSpec gpu.memory.peer_reads_in_l2; CacheHierarchy::peer_read).
  bool peer_cacheable = false;
};

class MemorySystem : public sim::Component {
 public:
  // `network_ids` maps topology resource ids to `network` ids (topology::add_resources).
  MemorySystem(sim::Context context, std::string name, const topology::Topology& topology,
               topology::RouteTable& routes, fabric::FlowNetwork& network,
               std::vector<fabric::ResourceId> network_ids, std::span<cache::CacheHierarchy> caches);

  // Performs the access; on_done(payload) runs when its data has arrived (load) or landed
  // (store). Throws std::out_of_range for a GPU or die the system does not have.
  void access(const MemoryAccess& access, sim::Handler on_done, sim::Payload payload = {});

  // A copy engine transfer (hipMemcpyPeer): `bytes` from GPU src's memory to GPU dst's
  // memory, over the route between the two memory sides, HBM at both ends, no workgroup limit.
  void dma_copy(std::uint32_t src_gpu, std::uint64_t src_address, std::uint32_t dst_gpu, std::uint64_t dst_address,
                std::uint64_t bytes, sim::Handler on_done, sim::Payload payload = {});

  // The release at a kernel boundary on GPU `gpu`: every die's L2 writes its dirty data back
  // to the memory side (private L2s; nothing to do for an address-partitioned L2, which is
  // the point of coherence), and drops the peers' lines it holds (peer_reads_in_l2), which the
  // next kernel's acquire would invalidate. on_done(payload) runs when the last byte has landed.
  void release_all(std::uint32_t gpu, sim::Handler on_done, sim::Payload payload = {});
  // The same for one die's L2: a workgroup's release before it stores a flag.
  void release_die(std::uint32_t gpu, std::uint32_t die, sim::Handler on_done, sim::Payload payload = {});

  // An acquire by a workgroup on `die` of `gpu` for [address, address + bytes) of a symmetric
  // buffer: drops that die's L2 copies of this GPU's range and, where the L2 keeps peers' lines
  // (peer_reads_in_l2), of every peer's range, so that the next loads see the released data.
  void acquire(std::uint32_t gpu, std::uint32_t die, std::uint64_t address, std::uint64_t bytes);

  // Unloaded round trip of a load from (gpu, die) to the HBM of `owner`.
  sim::Tick load_round_trip_ps(std::uint32_t gpu, std::uint32_t die, std::uint32_t owner);
  // Unloaded round trip over the links between a die of `gpu` and the memory side of `owner`
  // (no memory node): what a flag access adds to the atomic latency.
  sim::Tick link_round_trip_ps(std::uint32_t gpu, std::uint32_t die, std::uint32_t owner);

  // Bytes moved so far, by what served them (loads) or where they went (stores).
  struct Totals {
    std::uint64_t l2_hit_bytes = 0;
    std::uint64_t mall_hit_bytes = 0;
    std::uint64_t hbm_read_bytes = 0;
    std::uint64_t hbm_write_bytes = 0;
    std::uint64_t remote_load_bytes = 0;
    std::uint64_t remote_store_bytes = 0;
    std::uint64_t atomic_bytes = 0;  // operand bytes of atomic adds, local and remote
    std::uint64_t dma_bytes = 0;
  };
  const Totals& totals() const { return totals_; }

  // Loads issued from each die, local and remote, and the bytes of them its L2 served:
  // the per-XCD L2 hit rate. Indexed gpu * num_dies + die.
  struct DieLoads {
    std::uint64_t load_bytes = 0;
    std::uint64_t l2_hit_bytes = 0;
  };
  const std::vector<DieLoads>& die_loads() const { return die_loads_; }
  std::uint64_t accesses_in_flight() const { return ops_in_flight_; }

 private:
  static constexpr std::uint32_t kNoFill = ~std::uint32_t{0};
  struct Op {
    sim::Handler on_done;
    sim::Payload payload;
    std::uint32_t pending = 0;
    std::uint32_t fill = kNoFill;  // the fill this access performs (hits_wait_for_fills), if any
  };
  struct DelayedFlow {
    fabric::RouteId route = 0;
    std::uint64_t bytes = 0;
    std::uint32_t op = 0;
  };
  // One part of an access, before it is started.
  struct Part {
    const topology::Route* route = nullptr;
    std::uint64_t bytes = 0;
    sim::Tick delay_ps = 0;  // hit latency paid before the bytes move
    bool at_reader = false;  // served by the reader's own L2, even for a peer's memory
    std::uint32_t wait_fill = kNoFill;  // starts when this fill completes (and delay_ps has passed)
  };
  // How an L2-hit part of a load relates to the fills in flight: the fill it waits for, and the
  // fill the load itself performs (its misses), each kNoFill where there is none.
  struct FillLink {
    std::uint32_t wait = kNoFill;
    std::uint32_t performs = kNoFill;
  };
  // A fill in flight and the L2-hit parts parked on it (delayed_ slots, earliest start).
  struct Fill {
    std::uint64_t key = 0;
    std::vector<std::pair<std::uint32_t, sim::Tick>> waiters;
  };

  // Loads get the latency-bound cap; everything else streams at `stream_cap`.
  void start_parts(std::span<const Part> parts, AccessKind kind, std::uint32_t gpu, std::uint32_t die,
                   std::uint32_t owner, double stream_cap, sim::Handler on_done, sim::Payload payload,
                   std::uint32_t fill = kNoFill);
  void post(const topology::Route& route, std::uint64_t bytes);
  void atomic_add(const MemoryAccess& access, sim::Handler on_done, sim::Payload payload);
  void release_dies(std::uint32_t gpu, std::uint32_t first, std::uint32_t end, sim::Handler on_done, sim::Payload payload);
  fabric::RouteId network_route(const topology::Route& route, double cap);
  double load_cap(std::uint64_t part_bytes, std::uint64_t total_bytes, sim::Tick round_trip_ps, sim::Tick flow_latency_ps) const;
  const topology::Route& l2_route(std::uint32_t gpu, std::uint32_t l2);
  // The index of (gpu, die) in the per-die tables.
  std::size_t die_slot(std::uint32_t gpu, std::uint32_t die) const {
    return std::size_t{gpu} * topology_.spec().gpu.compute.num_dies + die;
  }
  // The fill a load of (owner, address) with cache result r waits for or performs.
  FillLink link_fill(std::uint32_t owner, std::uint64_t address, const cache::HierarchyResult& r,
                     const cache::CacheSpec& l2);
  void complete_fill(std::uint32_t fill);
  std::uint32_t new_delayed(const DelayedFlow& flow);
  std::uint32_t new_op(sim::Handler on_done, sim::Payload payload, std::uint32_t parts);
  void on_part_done(const sim::Payload& payload);
  void on_delay_over(const sim::Payload& payload);
  void on_posted_done(const sim::Payload&) {}

  const topology::Topology& topology_;
  topology::RouteTable& routes_;
  fabric::FlowNetwork& network_;
  std::vector<fabric::ResourceId> network_ids_;
  std::span<cache::CacheHierarchy> caches_;
  double port_bytes_per_s_;
  double window_bytes_;

  // Network routes by (topology route, cap): a topology route is a stable object of the
  // RouteTable, so its address is its identity.
  struct RouteKey {
    const topology::Route* route;
    std::uint64_t cap_bits;
    bool operator==(const RouteKey&) const = default;
  };
  struct RouteKeyHash {
    std::size_t operator()(const RouteKey& k) const noexcept {
      return std::hash<const void*>{}(k.route) ^ (k.cap_bits * 0x9E3779B97F4A7C15ULL);
    }
  };
  std::unordered_map<RouteKey, fabric::RouteId, RouteKeyHash> network_routes_;
  std::vector<topology::Route> l2_routes_;  // per (gpu, die): the L2 alone
  std::vector<topology::Route> hbm_routes_;   // per gpu: the HBM alone (an atomic's read of old values)
  std::vector<topology::Route> mall_routes_;  // per gpu: the MALL alone; empty without a MALL

  // Ranges whose fill is in flight: (owner << 58 ^ start address) -> its fills_ slot.
  std::unordered_map<std::uint64_t, std::uint32_t> filling_;
  std::vector<Fill> fills_;
  std::vector<std::uint32_t> free_fills_;

  std::vector<Op> ops_;
  std::vector<std::uint32_t> free_ops_;
  std::vector<DelayedFlow> delayed_;
  std::vector<std::uint32_t> free_delayed_;
  std::uint64_t ops_in_flight_ = 0;
  Totals totals_;
  std::vector<DieLoads> die_loads_;
  // Per GPU and die: whether its L2 may hold a peer's lines (peer_reads_in_l2), so that acquires
  // and kernel ends of dies that never read a peer's memory skip the peers' ranges.
  std::vector<std::uint8_t> holds_peer_lines_;
  std::vector<Part> release_parts_;  // reused by every release
};

}  // namespace tessera::models::machine

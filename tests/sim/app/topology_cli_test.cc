// Topologies from the command line: shorthands inline on a shipped system, a link list, and the
// errors of a bad list (exit 2, the file, line and key of the entry at fault).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "tests/sim/app/cli_process.h"

namespace fs = std::filesystem;
using tessera::test::ProcessResult;
using tessera::test::run_tessera;
using tessera::test::write_file;

namespace {

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

// A four-GPU system whose third link entry is `entry`, and the run's result.
ProcessResult run_with_link(const std::string& name, const std::string& entry) {
  const fs::path config = write_file(name + ".yaml",
                                     "system:\n"
                                     "  base: h200-4\n"
                                     "  interconnect:\n"
                                     "    topology: links\n"
                                     "    switches: [{name: sw}]\n"
                                     "    links:\n"
                                     "      - {between: [gpu0, sw], count: 18}\n"
                                     "      - {between: [gpu1, sw], count: 18}\n"
                                     "      - " + entry + "\n"
                                     "workload: {kind: microbench, op: remote_store, bytes: 1 MiB}\n");
  return run_tessera("run " + quoted(config));
}

}  // namespace

TEST_CASE("an inline ring on a shipped system runs, and describe draws its links") {
  const fs::path config = write_file("ring.yaml",
                                     "system: {base: mi300x-8, num_gpus: 4, interconnect: {topology: ring}}\n"
                                     "workload: {kind: collective, op: all_reduce, size: 1 MiB, library: rccl}\n");
  const ProcessResult r = run_tessera("run " + quoted(config));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  const ProcessResult dot = run_tessera("describe " + quoted(config) + " --dot");
  CHECK(dot.exit_code == 0);
  CHECK(dot.out.find("gpu[0].xgmi_to[1]") != std::string::npos);
  CHECK(dot.out.find("gpu[0].xgmi_to[2]") == std::string::npos);  // not a neighbour
}

TEST_CASE("a bad link list is bad input at the entry's line and key") {
  struct Bad {
    const char* entry;
    const char* error;
  };
  const Bad cases[] = {
      {"{between: [gpu2, gpu7]}", "links[2].between: 'gpu7': the system has 4 GPU(s), gpu0 to gpu3"},
      {"{between: [gpu2, spine]}", "links[2].between: unknown endpoint 'spine'"},
      {"{between: [gpu2, sw], bandwidth: 0 GB/s}", "links[2].bandwidth: a link's bandwidth must be more than 0 B/s"},
      {"{between: [gpu2, gpu3], count: 0}", "links[2].count"},
      {"{between: [gpu1, sw], count: 2}", "links[2].between: a second entry between gpu1 and sw"},
      {"{between: [gpu2, gpu3]}", "links: gpu2 is not connected to gpu0 by these links"},
  };
  int i = 0;
  for (const Bad& bad : cases) {
    CAPTURE(bad.entry);
    const ProcessResult r = run_with_link("bad_link_" + std::to_string(i++), bad.entry);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(".yaml:") != std::string::npos);
    CHECK(r.err.find(bad.error) != std::string::npos);
    CHECK(r.out.empty());
  }
  CHECK(run_with_link("gpu3_alone", "{between: [gpu2, sw], count: 18}").exit_code == 2);  // gpu3 has no link
  CHECK(run_with_link("pair_alone", "{between: [gpu2, gpu3], count: 4}").exit_code == 2);  // gpu2, gpu3 apart
}

TEST_CASE("shorthands check what they need of the system at their key") {
  const fs::path torus = write_file("torus_bad.yaml",
                                    "system: {base: mi300x-8, interconnect: {topology: torus_2d, torus_dims: [3, 3]}}\n"
                                    "workload: {kind: microbench, op: hbm_stream}\n");
  const ProcessResult r = run_tessera("run " + quoted(torus));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("torus_dims: a 2D torus needs torus_dims [rows, columns] with rows x columns = num_gpus (8)") !=
        std::string::npos);
  // rows x columns is taken in 64 bits: 65536 x 65536 does not wrap to a small count.
  const fs::path huge = write_file("torus_huge.yaml",
                                   "system: {base: mi300x-8, interconnect: {topology: torus_2d, torus_dims: [65536, 65536]}}\n"
                                   "workload: {kind: microbench, op: hbm_stream}\n");
  CHECK(run_tessera("run " + quoted(huge)).exit_code == 2);
  // A ring of two GPUs is one bundle of every link, an odd count too.
  const fs::path pair = write_file("ring_pair.yaml",
                                   "system: {base: h200-2, interconnect: {topology: ring, links_per_gpu: 1}}\n"
                                   "workload: {kind: microbench, op: remote_store, bytes: 1 MiB}\n");
  CHECK(run_tessera("run " + quoted(pair)).exit_code == 0);
  const fs::path ring = write_file("ring_bad.yaml",
                                   "system: {base: mi300x-8, interconnect: {topology: ring, links_per_gpu: 1}}\n"
                                   "workload: {kind: microbench, op: hbm_stream}\n");
  const ProcessResult q = run_tessera("run " + quoted(ring));
  CHECK(q.exit_code == 2);
  CHECK(q.err.find("links_per_gpu: a ring of more than two GPUs needs links_per_gpu >= 2") != std::string::npos);
}

TEST_CASE("a bad scale-out is bad input at its line and key, and a good one draws a cluster per node") {
  struct Bad {
    const char* scale_out;
    const char* error;
  };
  const Bad cases[] = {
      {"{nodes: 3, nic: {bandwidth: 50 GB/s, pcie_bandwidth: 63 GB/s}}", "scale_out.nodes: 8 GPUs cannot be spread evenly over 3 nodes"},
      {"{nodes: 2, nic: {pcie_bandwidth: 63 GB/s}}", "scale_out.nic: several nodes need nic.bandwidth > 0"},
      {"{nodes: 2, nic: {bandwidth: 50 GB/s}}", "scale_out.nic: several nodes need nic.pcie_bandwidth > 0"},
      {"{nodes: 4, nic: {bandwidth: 50 GB/s, pcie_bandwidth: 63 GB/s}, network: {topology: fat_tree, nodes_per_leaf: 3}}",
       "scale_out.network.nodes_per_leaf: 4 nodes cannot be spread evenly over leaves of 3"},
      {"{nodes: 2, nic: {bandwidth: 50 GB/s, pcie_bandwidth: 63 GB/s}, network: {nodes_per_leaf: 1}}",
       "scale_out.network.nodes_per_leaf: nodes_per_leaf is read with topology fat_tree only"},
      {"{nodes: 2, nic: {bandwidth: 50 GB/s, pcie_bandwidth: 63 GB/s}, network: {oversubscription: 0.5}}",
       "oversubscription"},
      {"{nodes: 2, nic: {bandwith: 50 GB/s}}", "bandwith"},
  };
  int i = 0;
  for (const Bad& bad : cases) {
    CAPTURE(bad.scale_out);
    const fs::path config = write_file("bad_scale_out_" + std::to_string(i++) + ".yaml",
                                       std::string("system:\n  base: h200-8\n  scale_out: ") + bad.scale_out +
                                           "\nworkload: {kind: microbench, op: hbm_stream}\n");
    const ProcessResult r = run_tessera("run " + quoted(config));
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(".yaml:3:") != std::string::npos);
    CHECK(r.err.find(bad.error) != std::string::npos);
    CHECK(r.out.empty());
  }
  const ProcessResult dot = run_tessera("describe h200-8x16 --dot");
  INFO(dot.err);
  CHECK(dot.exit_code == 0);
  CHECK(dot.out.find("subgraph cluster_node15 {") != std::string::npos);
  CHECK(dot.out.find("\"gpu[127].nic\" -> \"leaf[7]\"") != std::string::npos);
  CHECK(dot.out.find("\"leaf[7]\" -> \"spine\"") != std::string::npos);
}

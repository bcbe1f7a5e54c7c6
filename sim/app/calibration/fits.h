#pragma once
// The fit units, one file each (docs/validation.md "Calibration" documents every model).
#include "sim/app/calibration/fit_unit.h"

namespace tessera::app::calibration {

FitUnit boundaries_fit();  // kernel boundaries on the GPU's timer -> kernel_teardown, workgroup_dispatch
FitUnit launch_fit();   // launch_latency -> kernel_launch_latency (and workgroup_dispatch when boundaries has not)
FitUnit l2_fit();       // l2_bandwidth -> l2.bandwidth
FitUnit hbm_fit();      // hbm_stream -> hbm_bandwidth, hbm_latency
FitUnit atomic_fit();   // atomic_add, atomic_xchg -> local_latency, remote_latency, link_latency
FitUnit link_fit();     // remote_load, remote_store, all_load, all_store, p2p_copy -> link_bandwidth
FitUnit flag_fit();     // flag_pingpong -> poll_interval
FitUnit matrix_fit();   // matrix_rate -> matrix_efficiency.<dtype>
FitUnit kstep_fit();    // kstep_load -> l2.hit_latency (loaded)
FitUnit kernel_efficiency_fit();  // matrix_rate with a kernel, attention_step -> kernel_efficiency
FitUnit collective_kernel_fit();  // NCCL kernel times up to 512 KiB -> gpu.collective_library.*_kernel_overhead
FitUnit collective_call_fit();    // nccl_* up to 64 KiB -> host.collective_call

// Whether the boundaries fit had the dispatch cases to fit workgroup_dispatch (boundaries_fit.cc).
bool dispatch_measured(const FitInputs& inputs);

// The measured quantity of a collective-library result (nccl_*): the mean time of one collective.
const measured::CaseQuantity& library_collective_quantity();

// In the order they run: boundaries first, which splits what launch measures as one sum; launch
// next, because every kernel's time contains it; the L2 before
// the HBM, because a copy's stores cross the L2 in Tessera; HBM before the links, whose transfers
// start or end in HBM; atomics before the links, because remote against local atomics give the
// link latency (which the links' small transfers contain); flags last, whose one-way time contains
// both. collective_kernel and collective_call after every other: they run Tessera's model of the
// library, whose GPU-side time contains the launch, link and flag keys; collective_kernel first,
// because the library's kernels are part of what collective_call's points run.
const std::vector<FitUnit>& fit_units();

}  // namespace tessera::app::calibration

// CUDA_VISIBLE_DEVICES narrowed to the GPUs a process will use. Where it is unset, the CUDA
// runtime maps every GPU of the machine into the context it creates: on a 4-GPU H100 host
// `pfsp solve ta030` took 1.34-1.40 s of process wall time on device 0 against 0.47-0.49 s with
// CUDA_VISIBLE_DEVICES=0 (2026-11-28, bench/results/2026-11-28-h100-visible-devices). The
// `pfsp` executable (not the library: a process whose CUDA is already initialised would ignore
// the variable) narrows it before its first CUDA call, for a run on some of the GPUs (not
// --devices all), where the variable is unset and the driver lists every ordinal asked for
// (/proc/driver/nvidia/gpus; else the runtime's own error for a missing device stands). The
// options' ordinals then become positions in the list: CUDA's ordinal d is the d-th device in
// both numberings, so the same GPUs run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/gpu_cli.hpp"

namespace pfsp {

// What to set: the variable's text and the options' ordinals renumbered.
struct visible_devices {
  std::string text;           // "2" or "0,1,3": the used ordinals, each once, in first use
  int device = 0;             // --device, renumbered
  std::vector<int> ordinals;  // --devices, renumbered (repeats kept)
};

// The narrowing for a run on `device`, or on the ordinals of `devices` when given (not all), on
// a machine whose driver lists driver_gpus GPUs (< 0: unknown); nullopt where it does not apply
// (variable already set, --devices all, an ordinal the driver lacks, or the count unknown).
std::optional<visible_devices> plan_visible_devices(int device, const gpu::device_selection& devices, int driver_gpus,
                                                    bool variable_set);

// The NVIDIA driver's GPUs on this machine (entries of /proc/driver/nvidia/gpus), -1 unknown.
int driver_gpu_count();

// Whether this process may narrow (the pfsp executable's main says so before run_cli; tests and
// the Python module, which may have initialised CUDA already, do not).
void allow_narrowing_visible_devices();
bool narrowing_visible_devices_allowed();

// Applies plan_visible_devices to the options and the process environment (setenv); returns the
// text set, or "" where nothing changed. Only before the process's first CUDA call.
std::string narrow_visible_devices(gpu_cli_options& g);

}  // namespace pfsp

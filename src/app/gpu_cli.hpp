// The GPU backend's command-line hook: `pfsp solve --backend gpu` runs through these functions.
// Built only when the pfsp_gpu target exists (PFSP_HAVE_GPU; gpu_cli_options is plain C++, in
// every build, and options.cpp registers its options in every build); solve_api.cpp calls them.
// A thin adapter: the plan (which loop, which devices, what is compatible) is decided in
// gpu/plan.cpp.
#pragma once

#include "bound/bound_data.hpp"
#include "gpu/plan.hpp"
#include "gpu/strategy.hpp"
#include "search/control.hpp"
#include "search/types.hpp"

namespace pfsp {

// The GPU backend's options as the GPU layer takes them, parsed into these typed fields when the
// command line is (add_gpu_cli_options): the policy (every tuning option; its strategy is set
// from --gpu-strategy and --strategy-params by solve_instance, its host_threads from --threads by
// gpu_cli_plan) and the plan request (--gpu-loop: host, device, or auto: device unless an option
// only the host loop has was given; --devices; whether a host-loop option was given).
struct gpu_cli_options {
  gpu::gpu_policy policy;
  gpu::plan_request request;
  std::string visible;  // CUDA_VISIBLE_DEVICES this process set (app/visible_devices.hpp), or ""
};

// True iff a CUDA device is present (never throws).
bool gpu_cli_available();
// Number of CUDA devices (0 without a driver; never throws).
int gpu_cli_device_count();

// Creates the device's CUDA context now (gpu::warm_up); never throws.
void gpu_cli_warm_up(const gpu_cli_options& o) noexcept;

// Whether these options run the device loop (--gpu-loop device, or auto without a host-loop option).
bool gpu_cli_device_loop(const gpu_cli_options& o) noexcept;

// The GPU plan of these options (loop, devices, checked policy; gpu/plan.hpp); throws
// input_error. gpu_cli_solve runs it.
gpu::plan gpu_cli_plan(const bound_data& data, const solve_options& opt, const gpu_cli_options& o);

// Solves with the GPU backend; host threads = opt.threads.
solve_result gpu_cli_solve(const bound_data& data, const solve_options& opt, const gpu_cli_options& o,
                           const incumbent& start);

// Gives these options a cache of device-loop engines (gpu::make_engine_cache): solves with them
// keep their engines for the next one (pfsp-mpi's workers, chunk after chunk).
void gpu_cli_keep_engines(gpu_cli_options& o);
// Builds the device loop's engines of these options into their cache now (gpu::prepare_engines),
// so that the first solve finds them ready; nothing without a cache or off the device loop.
void gpu_cli_prepare_engines(const bound_data& data, const solve_options& opt, const gpu_cli_options& o);

}  // namespace pfsp

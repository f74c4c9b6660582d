// The branch-and-bound loop on the GPU (`--gpu-loop device`): open nodes in a device-side
// depth-first stack, every iteration (pop, expand, bound, direction, prune, push, incumbent)
// run by kernels captured in a CUDA graph; the host only launches and checks limits.
// Plain C++ interface; coordinator.cu (several devices), loop_engine.cuh (one device),
// loop_iteration.cuh (the kernels). Design and measurements: docs/gpu_backend.md.
#pragma once

#include "bound/bound_data.hpp"
#include "gpu/policy.hpp"
#include "search/control.hpp"
#include "search/types.hpp"

namespace pfsp::gpu {

// Same conventions as gpu::solve (statuses, limits, statistics, progress, checkpoints). Uses
// of the policy: pool_size (children per iteration, default 4194304), threads_per_block (default:
// tuned at run time between 256 and the block size of highest occupancy), kernel, memory,
// compact_times, sort (device or none), device and devices (one loop engine per entry). The
// strategy must be plain (check_device_loop, plan.hpp, says why not).
solve_result solve_resident(const bound_data& data, const solve_options& opt, const gpu_policy& policy,
                            const incumbent& start);

// The same for a policy that passed check_device_loop (plan.hpp: make_plan checks it once).
solve_result run_device_loop(const bound_data& data, const solve_options& opt, const gpu_policy& policy,
                             const incumbent& start);

}  // namespace pfsp::gpu

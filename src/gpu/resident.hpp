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
// of the policy: pool_size (children per iteration, default loop_tuning::pool_for: 16777216 up to 50 jobs at 20
// machines or more, else 4194304), threads_per_block (default: tuned at run time between 256 and the block size of
// highest occupancy), kernel, memory, compact_times, sort (device or none), device and devices (one loop engine per
// entry). The strategy must be plain (check_device_loop, plan.hpp, says why not).
solve_result solve_resident(const bound_data& data, const solve_options& opt, const gpu_policy& policy,
                            const incumbent& start);

// The same for a policy that passed check_device_loop (plan.hpp: make_plan checks it once).
solve_result run_device_loop(const bound_data& data, const solve_options& opt, const gpu_policy& policy,
                             const incumbent& start);

// Device-loop engines kept between solves (gpu_policy::engines): a solve whose policy has a cache
// takes the engines it needs from it, where one was built for the same bound_data object,
// device, bound, branching and loop settings, and gives them back, emptied, when it ends. An
// engine's set-up (tables, buffers, graphs, the block-size tuning) is then paid once, not per
// solve: pfsp-mpi's workers solve one chunk after another (issue 22). The caller keeps the
// bound_data alive and unchanged while the cache holds engines built on it. Thread-safe.
std::shared_ptr<engine_cache> make_engine_cache();

// Builds the engines of a policy that passed check_device_loop (one per device) into
// policy.engines now, e.g. while the worker waits for its first chunk. Nothing without a cache.
void prepare_engines(const bound_data& data, const solve_options& opt, const gpu_policy& policy);

}  // namespace pfsp::gpu

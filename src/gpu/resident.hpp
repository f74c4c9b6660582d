// The branch-and-bound loop on the GPU (`--gpu-loop device`): open nodes in a device-side
// depth-first stack, every iteration (pop, expand, bound, direction, prune, push, incumbent)
// run by kernels captured in a CUDA graph; the host only launches and checks limits.
// Plain C++ interface; resident.cu. Design and measurements: docs/gpu_backend.md.
#pragma once

#include "bound/bound_data.hpp"
#include "gpu/policy.hpp"
#include "search/control.hpp"
#include "search/types.hpp"

namespace pfsp::gpu {

// Same conventions as gpu::solve (statuses, limits, statistics, progress). Uses of the policy:
// pool_size (children per iteration, default 4194304), threads_per_block (default 256), kernel,
// memory, compact_times, sort (device or none), device. The strategy must be plain.
solve_result solve_resident(const bound_data& data, const solve_options& opt, const gpu_policy& policy,
                            const incumbent& start);

}  // namespace pfsp::gpu

// The GPU-accelerated branch-and-bound (CCPE Fig. 2): the host selects a pool of parents
// (hybrid best-/depth-first, or depth-, best-, breadth-first), the GPU bounds all their
// children (bounder), and the host chooses each parent's direction (pfsp::choose_forward),
// prunes, and stores the survivors, on several threads, while the GPU bounds the next pool.
// Same conventions as solve_sequential: statuses, limits, statistics, progress, notes.
#pragma once

#include "bound/bound_data.hpp"
#include "gpu/policy.hpp"
#include "search/control.hpp"
#include "search/types.hpp"

namespace pfsp::gpu {

solve_result solve(const bound_data& data, const solve_options& opt, const gpu_policy& policy, const incumbent& start);

// Creates the CUDA context of `device` (cudaSetDevice + cudaFree(0)), so that a later solve()
// on that device does not pay for it. The CLI runs it on a thread while the start heuristic
// runs. Never throws: a failure here shows up again, with its message, in solve().
void warm_up(int device) noexcept;

// The same loop with the bounds computed on the host (host_bounder.hpp): for testing the
// selection, pipeline and pruning logic without a GPU.
solve_result solve_emulated(const bound_data& data, const solve_options& opt, const gpu_policy& policy,
                            const incumbent& start);

}  // namespace pfsp::gpu

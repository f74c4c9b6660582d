// The device loop's state block (what the host reads between graph launches) and the per-parent
// counters the deciding kernels add to it: decide_warp_kernel (loop_iteration.cuh) and, for LB1
// alone, the parents kernel that decides in its own thread (parts_lb1_decide_kernel,
// loop_bound.cuh). Device code only.
#pragma once

#include <climits>
#include <cstdint>
#include <cub/block/block_reduce.cuh>

#include "gpu/policy.hpp"

namespace pfsp::gpu::device_loop {

constexpr unsigned kBlock = loop_tuning::block;  // threads a block of the loop's own kernels (policy.hpp)

// The state block: written by the kernels, read by the host between graph launches.
struct loop_state {
  unsigned long long branched = 0, bounds = 0, pruned = 0, leaves = 0;
  double explored = 0;
  unsigned long long leaf_key = ~0ull;  // best leaf of the iteration: makespan << 32 | child index
  std::uint32_t top = 0;                // nodes on the stack
  std::uint32_t parents = 0;            // this iteration's pool: popped nodes
  std::uint32_t children = 0;           // and their children
  std::uint32_t overflow = 0;           // a push did not fit the stack: the search is incomplete
  int best = INT_MAX;                   // pruning threshold: the incumbent or --ub, lowered by leaves
  int iteration_ub = INT_MAX;           // `best` when the iteration started: what decide prunes at
  int found = 0;                        // leaves that improved the threshold (best_perm holds the last)
  unsigned long long iterations = 0;
};
// What the host copies between graph launches (docs say 88 bytes: keep them true).
static_assert(sizeof(loop_state) == 88, "loop_state's size is documented in docs/gpu_backend.md and decision 005");

// What a deciding kernel adds to the counters for a parent.
struct parent_counts {
  unsigned long long branched = 0, pruned = 0, leaves = 0, bounds = 0;
  double explored = 0;
  std::uint32_t kept = 0;
};

// The block's counters summed (cub::BlockReduce) and added to the state by thread 0.
__device__ inline void add_block_counts(loop_state* state, const parent_counts& c) {
  using reduce_u = cub::BlockReduce<unsigned long long, kBlock>;
  using reduce_d = cub::BlockReduce<double, kBlock>;
  __shared__ typename reduce_u::TempStorage tu;
  __shared__ typename reduce_d::TempStorage td;
  const unsigned long long b_branched = reduce_u(tu).Sum(c.branched);
  __syncthreads();
  const unsigned long long b_pruned = reduce_u(tu).Sum(c.pruned);
  __syncthreads();
  const unsigned long long b_leaves = reduce_u(tu).Sum(c.leaves);
  __syncthreads();
  const unsigned long long b_bounds = reduce_u(tu).Sum(c.bounds);
  const double b_explored = reduce_d(td).Sum(c.explored);
  if (threadIdx.x == 0) {
    atomicAdd(&state->branched, b_branched);
    atomicAdd(&state->pruned, b_pruned);
    atomicAdd(&state->leaves, b_leaves);
    atomicAdd(&state->bounds, b_bounds);
    atomicAdd(&state->explored, b_explored);
  }
}

// The tree estimate's per-depth counts of one block (tree_estimate.hpp): parents popped and
// children kept, gathered in shared memory (n + 1 entries each, zeroed by clear_depths before a
// __syncthreads) and added to the cumulative device counts once a block (flush_depths, after one).
__device__ inline void clear_depths(unsigned* h_popped, unsigned* h_kept, int n) {
  for (int d = static_cast<int>(threadIdx.x); d <= n; d += static_cast<int>(blockDim.x)) h_popped[d] = h_kept[d] = 0;
}
__device__ inline void flush_depths(const unsigned* h_popped, const unsigned* h_kept, int n,
                                    unsigned long long* depth_popped, unsigned long long* depth_kept) {
  for (int d = static_cast<int>(threadIdx.x); d <= n; d += static_cast<int>(blockDim.x)) {
    if (h_popped[d]) atomicAdd(&depth_popped[d], static_cast<unsigned long long>(h_popped[d]));
    if (h_kept[d]) atomicAdd(&depth_kept[d], static_cast<unsigned long long>(h_kept[d]));
  }
}

}  // namespace pfsp::gpu::device_loop

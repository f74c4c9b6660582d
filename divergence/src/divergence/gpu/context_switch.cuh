// Task-context switching kernel for branch divergence (Frey et al. Section 3, Listing 1) and the
// plain kernel it is measured against. B is a branch workload (context_switch.hpp).
//
// Per warp, in dynamic shared memory: pool_contexts detached contexts and the branch map (two
// lists of slot indices: contexts that take the managed branch next, and those that do not).
// The vote, the load/store offsets and the list sizes come from context_switch.hpp, shared with
// the host model. A swapping lane reads the slot it loads and writes its own context back into
// the same slot, so pooled contexts never need a free list.
#pragma once

#include <cstdint>

#include "divergence/context_switch.hpp"
#include "divergence/gpu/warp.cuh"
#include "divergence/task_pool.hpp"

namespace pfsp::divergence::gpu {

inline constexpr int switch_block_threads = 128;

template <class B>
__global__ void __launch_bounds__(switch_block_threads) plain_branch_kernel(B b) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= b.size()) return;
  auto c = b.init(t);
  do {
    if (b.decide(c)) b.branch(c);
  } while (b.advance(c));
  b.finish(c);
}

// Bytes of dynamic shared memory one warp needs, 16-byte aligned. A block needs
// block_shared_bytes(b) (warp.cuh) + warps x this.
template <class B>
__host__ __device__ constexpr std::size_t switch_warp_bytes(std::uint32_t pool_contexts) {
  const std::size_t raw = pool_contexts * (sizeof(typename B::context) + 2 * sizeof(std::uint16_t));
  return (raw + 15) / 16 * 16;
}

template <class B>
__global__ void __launch_bounds__(switch_block_threads)
    context_switch_kernel(B workload, std::uint32_t* global_next, std::uint32_t pool_contexts,
                          std::uint32_t vote_interval, bool default_path) {
  using context = typename B::context;
  extern __shared__ __align__(16) unsigned char switch_smem[];
  const B b = bind_block(workload, switch_smem);  // the workload's shared memory first (warp.cuh)
  const int lane = lane_id();
  unsigned char* mine = switch_smem + block_shared_bytes(b) +
                        static_cast<std::size_t>(warp_in_block()) * switch_warp_bytes<B>(pool_contexts);
  context* slots = reinterpret_cast<context*>(mine);
  std::uint16_t* list_taken = reinterpret_cast<std::uint16_t*>(slots + pool_contexts);
  std::uint16_t* list_not = list_taken + pool_contexts;
  const std::uint32_t n = b.size();

  // Initial contexts: one per lane attached, pool_contexts detached, with one atomic.
  std::uint32_t base = 0;
  if (lane == 0) base = atomicAdd(global_next, 32u + pool_contexts);
  const task_range first = range_from_counter(broadcast(base, 0), 32u + pool_contexts, n);
  context c{};
  bool has = false, want = false;
  if (first.next + static_cast<std::uint32_t>(lane) < first.end) {
    c = b.init(first.next + static_cast<std::uint32_t>(lane));
    want = b.decide(c);
    has = true;
  }
  branch_map_counts k;
  for (std::uint32_t s0 = 0; s0 < pool_contexts; s0 += 32) {
    const std::uint32_t t = first.next + 32u + s0 + static_cast<std::uint32_t>(lane);
    const bool valid = t < first.end;
    bool yes = false;
    if (valid) {
      context fresh = b.init(t);
      yes = b.decide(fresh);
      slots[s0 + lane] = fresh;
    }
    const lane_mask vm = ballot(valid), ym = ballot(valid && yes);
    if (valid) {
      const std::uint16_t slot = static_cast<std::uint16_t>(s0 + lane);
      if (yes) {
        list_taken[k.taken + static_cast<std::uint32_t>(rank_in(ym, lane))] = slot;
      } else {
        list_not[k.not_taken + static_cast<std::uint32_t>(rank_in(vm & ~ym, lane))] = slot;
      }
    }
    k.taken += static_cast<std::uint32_t>(popc(ym));
    k.not_taken += static_cast<std::uint32_t>(popc(vm & ~ym));
  }
  __syncwarp();

  for (std::uint32_t it = 0;; ++it) {
    const lane_mask live = ballot(has), wants = ballot(has && want);
    if (live == 0 && k.taken + k.not_taken == 0) break;
    const bool voting = vote_now(it, vote_interval);
    const bool path = voting ? consensus(wants, live, k) : default_path;  // warp-uniform
    if (voting) {
      const lane_switch sw = plan_switch(lane, live, wants, path, k);
      if (sw.load) {
        std::uint16_t* from = path ? list_taken : list_not;
        std::uint16_t* to = path ? list_not : list_taken;
        const std::uint16_t slot = from[sw.load_pos];
        const context own = c;
        c = slots[slot];
        want = path;
        if (sw.store) {
          slots[slot] = own;
          to[sw.store_pos] = slot;
        }
        has = true;
      }
      k = counts_after_switch(live, wants, path, k);
      __syncwarp();
    }
    // The whole warp takes `path`; lanes whose context does not are temporarily invalid.
    const bool active = has && want == path;
    if (path) {
      if (active) b.branch(c);
    }
    bool ended = false;
    if (active) {
      if (!b.advance(c)) {
        b.finish(c);
        has = false;
        ended = true;
      } else {
        want = b.decide(c);
      }
    }
    // Lanes whose task completed (permanently invalid) fetch new tasks: one atomic per warp.
    const lane_mask ends = ballot(ended);
    if (ends) {
      const int leader = lowest_lane(ends);
      std::uint32_t b0 = 0;
      if (lane == leader) b0 = atomicAdd(global_next, static_cast<std::uint32_t>(popc(ends)));
      b0 = broadcast(b0, leader);
      if (ended) {
        const std::uint32_t t = lane_task(b0, ends, lane);
        if (t < n) {
          c = b.init(t);
          want = b.decide(c);
          has = true;
        }
      }
    }
  }
}

}  // namespace pfsp::divergence::gpu

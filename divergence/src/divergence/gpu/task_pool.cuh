// Persistent-thread kernels for termination divergence (Frey et al. Section 4) and the plain
// kernel they are measured against. W is a termination workload (task_pool.hpp).
//
// Each warp loops: iterate (the computation loop) until the fetch control says enough lanes are
// out of work, write the finished results, fetch new tasks for the idle lanes, and go on until
// every pool is dry. The pool arithmetic is task_pool.hpp's, shared with the host model
// (task_pool_sim.hpp); only atomics and votes are hardware here.
#pragma once

#include <cstdint>

#include "divergence/gpu/warp.cuh"
#include "divergence/task_pool.hpp"

namespace pfsp::divergence::gpu {

inline constexpr int pool_block_threads = 256;

// One thread per task: a warp runs until its longest task is done (Frey Fig. 1a).
template <class W>
__global__ void __launch_bounds__(pool_block_threads) plain_termination_kernel(W w) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= w.size()) return;
  auto s = w.init(t);
  while (w.step(s)) {
  }
  w.finish(s);
}

// global_next: the global pool's counter, zero at launch. chunk: tasks per refill (Global's
// private chunk, Hybrid's extra tasks, Local's block pool). idle_threshold: k of Ballot/Atomic.
// check_interval: iterations between votes.
// Grid: the persistent kinds fill the device once; Local has ceil(n / chunk) blocks. Dynamic
// shared memory: block_shared_bytes(w) (0 unless the workload stages data there, warp.cuh).
template <class W, pool_kind Pool, fetch_control Control>
__global__ void __launch_bounds__(pool_block_threads)
    task_pool_kernel(W workload, std::uint32_t* global_next, std::uint32_t chunk, std::uint32_t idle_threshold,
                     std::uint32_t check_interval) {
  static_assert(Pool != pool_kind::persistent || Control == fetch_control::all,
                "Persistent threads fetch per warp once all lanes are done");
  constexpr int warps = pool_block_threads / warp_size;
  extern __shared__ __align__(16) unsigned char pool_smem[];  // the workload's, if it asks (warp.cuh)
  const W w = bind_block(workload, pool_smem);
  __shared__ std::uint32_t block_next, block_end;  // Local's block pool
  __shared__ std::uint32_t finished_count[warps];  // Atomic's per-warp counter
  const int lane = lane_id(), wid = warp_in_block();
  const std::uint32_t n = w.size();
  if constexpr (Pool == pool_kind::local) {
    if (threadIdx.x == 0) {
      const task_range r = local_block_range(blockIdx.x, chunk, n);
      block_next = r.next;
      block_end = r.end;
    }
    __syncthreads();
  }
  if constexpr (Control == fetch_control::atomic) {
    if (lane == 0) finished_count[wid] = 0;
    __syncwarp();
  }

  typename W::state s{};
  bool has = false, done = false, retired = false;
  bool counted = false;  // Atomic: this lane's finished task is in finished_count
  task_range priv{};     // Global: this thread's private pool
  task_range local{};    // Hybrid: the warp's pool (warp-uniform, kept in registers of every lane)

  // Lanes of `need` (warp-uniform) take one task each; a lane that finds its pools dry retires.
  auto fetch = [&](lane_mask need) {
    bool got = false;
    std::uint32_t task = 0;
    if constexpr (Pool == pool_kind::global) {
      if (has_lane(need, lane)) {
        if (priv.empty()) priv = range_from_counter(atomicAdd(global_next, chunk), chunk, n);
        if (!priv.empty()) {
          task = priv.next++;
          got = true;
        }
      }
    } else if constexpr (Pool == pool_kind::local) {
      const int leader = lowest_lane(need);
      std::uint32_t base = 0;
      if (lane == leader) base = atomicAdd(&block_next, static_cast<std::uint32_t>(popc(need)));
      base = broadcast(base, leader);
      if (has_lane(need, lane)) {
        task = lane_task(base, need, lane);
        got = task < block_end;
      }
    } else if constexpr (Pool == pool_kind::hybrid) {
      const hybrid_fetch f = plan_hybrid_fetch(local, need, chunk);
      task_range refilled{};
      if (f.refill) {  // single-thread global fetch by the first overflowing lane
        std::uint32_t old = 0;
        if (lane == f.fetch_lane) old = atomicAdd(global_next, f.refill);
        refilled = range_from_counter(broadcast(old, f.fetch_lane), f.refill, n);
      }
      if (has_lane(need, lane)) got = hybrid_lane_task(local, need, lane, f, refilled, &task);
      local = hybrid_pool_after(local, need, f, refilled);
    } else {  // persistent: one atomic per warp, one task per lane
      const int leader = lowest_lane(need);
      std::uint32_t base = 0;
      if (lane == leader) base = atomicAdd(global_next, static_cast<std::uint32_t>(popc(need)));
      base = broadcast(base, leader);
      if (has_lane(need, lane)) {
        task = lane_task(base, need, lane);
        got = task < n;
      }
    }
    if (has_lane(need, lane)) {
      if (got) {
        s = w.init(task);
        has = true;
        done = false;
      } else {
        retired = true;
      }
    }
  };

  fetch(full_mask);
  // One vote per computation-loop iteration: lanes holding a task are known since the last fetch
  // (`live`), so `busy` follows from the finished lanes alone.
  for (lane_mask live = ballot(has); live != 0; live = ballot(has)) {
    const int holding = popc(live);
    for (;;) {  // the computation loop
      if (has && !done) {
        for (std::uint32_t u = 0; u < check_interval; ++u) {
          if (!w.step(s)) {
            done = true;
            break;
          }
        }
      }
      int finished;
      if constexpr (Control == fetch_control::atomic) {
        if (has && done && !counted) {
          atomicAdd(&finished_count[wid], 1u);
          counted = true;
        }
        __syncwarp();
        finished = static_cast<int>(*static_cast<volatile std::uint32_t*>(&finished_count[wid]));
        __syncwarp();
      } else {
        finished = popc(ballot(has && done));
      }
      if (leave_computation_loop(Control, finished, holding - finished, idle_threshold)) break;
    }
    if constexpr (Control == fetch_control::atomic) {
      if (lane == 0) finished_count[wid] = 0;
      __syncwarp();
    }
    if (has && done) {
      w.finish(s);
      has = false;
      counted = false;
    }
    const lane_mask need = ballot(!has && !retired);
    if (need) fetch(need);
  }
}

}  // namespace pfsp::divergence::gpu

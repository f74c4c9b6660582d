// The host boundary of the termination strategies: one switch from task_pool_params to a kernel
// instantiation. Included by the one translation unit per workload (runner_mc.cu,
// runner_julia.cu), so each workload's 13 pool kernels compile in parallel.
#pragma once

#include "base/device_buffer.cuh"
#include "divergence/gpu/runner_detail.cuh"
#include "divergence/gpu/task_pool.cuh"
#include "divergence/task_pool_sim.hpp"

namespace pfsp::divergence::gpu::detail {

template <class W, pool_kind Pool, fetch_control Control>
void launch_pool(const W& w, std::uint32_t* counter, const task_pool_params& p, const timing_options& opt) {
  auto kernel = task_pool_kernel<W, Pool, Control>;
  const unsigned blocks = Pool == pool_kind::local
                              ? blocks_for(w.size(), static_cast<int>(std::max(1u, p.chunk)))
                              : persistent_blocks(kernel, pool_block_threads, 0, opt.blocks_per_sm);
  PFSP_CUDA_TRY(cudaMemsetAsync(counter, 0, sizeof(std::uint32_t)));
  kernel<<<blocks, pool_block_threads>>>(w, counter, p.chunk, p.idle_threshold, p.check_interval);
  PFSP_CUDA_CHECK_LAUNCH("task_pool_kernel");
}

template <class W, pool_kind Pool>
void launch_control(const W& w, std::uint32_t* counter, const task_pool_params& p, const timing_options& opt) {
  switch (p.control) {
    case fetch_control::any:
      return launch_pool<W, Pool, fetch_control::any>(w, counter, p, opt);
    case fetch_control::all:
      return launch_pool<W, Pool, fetch_control::all>(w, counter, p, opt);
    case fetch_control::ballot:
      return launch_pool<W, Pool, fetch_control::ballot>(w, counter, p, opt);
    case fetch_control::atomic:
      return launch_pool<W, Pool, fetch_control::atomic>(w, counter, p, opt);
  }
}

// One run of workload w with `strategy` (nullopt: plain kernel).
template <class W>
void launch_termination(const W& w, std::uint32_t* counter, const std::optional<task_pool_params>& strategy,
                        const timing_options& opt) {
  if (!strategy) {
    plain_termination_kernel<W><<<blocks_for(w.size(), pool_block_threads), pool_block_threads>>>(w);
    PFSP_CUDA_CHECK_LAUNCH("plain_termination_kernel");
    return;
  }
  const task_pool_params& p = *strategy;
  check_params(p);
  switch (p.pool) {
    case pool_kind::global:
      return launch_control<W, pool_kind::global>(w, counter, p, opt);
    case pool_kind::local:
      return launch_control<W, pool_kind::local>(w, counter, p, opt);
    case pool_kind::hybrid:
      return launch_control<W, pool_kind::hybrid>(w, counter, p, opt);
    case pool_kind::persistent:
      return launch_pool<W, pool_kind::persistent, fetch_control::all>(w, counter, p, opt);
  }
}

}  // namespace pfsp::divergence::gpu::detail

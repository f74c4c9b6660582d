// Frey's Monte Carlo branch case on the device: plain kernel vs task-context switching.
#include <functional>

#include "base/device_buffer.cuh"
#include "divergence/error.hpp"
#include "divergence/gpu/context_switch.cuh"
#include "divergence/gpu/runner_detail.cuh"
#include "divergence/workloads/monte_carlo.hpp"

namespace pfsp::divergence::gpu {

run_result run_branch(const mc_branch_spec& spec, const std::optional<context_switch_params>& strategy,
                      const timing_options& opt, bool keep_output) {
  device_buffer<std::uint32_t> sums(spec.tasks), counter(1);
  mc_branch b;
  b.tasks = spec.tasks;
  b.branch_threshold = probability_threshold(spec.branch);
  b.outer = spec.outer;
  b.inner = spec.inner;
  b.out_sum = sums.data();

  std::function<void()> launch;
  if (!strategy) {
    launch = [&] {
      plain_branch_kernel<mc_branch><<<detail::blocks_for(spec.tasks, switch_block_threads), switch_block_threads>>>(b);
      PFSP_CUDA_CHECK_LAUNCH("plain_branch_kernel");
    };
  } else {
    const context_switch_params p = *strategy;
    PFSP_DIV_EXPECTS(p.pool_contexts % 32 == 0 && p.pool_contexts <= 2048,
                     "context switching: pool_contexts must be a multiple of 32, at most 2048");
    auto kernel = context_switch_kernel<mc_branch>;
    const std::size_t smem = (switch_block_threads / warp_size) * switch_warp_bytes<mc_branch>(p.pool_contexts);
    PFSP_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    const unsigned blocks = detail::persistent_blocks(kernel, switch_block_threads, smem, opt.blocks_per_sm);
    launch = [=, &counter] {
      PFSP_CUDA_TRY(cudaMemsetAsync(counter.data(), 0, sizeof(std::uint32_t)));
      kernel<<<blocks, switch_block_threads, smem>>>(b, counter.data(), p.pool_contexts, p.vote_interval,
                                                     p.default_path);
      PFSP_CUDA_CHECK_LAUNCH("context_switch_kernel");
    };
  }
  run_result r;
  r.time = detail::time_runs(launch, opt);
  if (keep_output) {
    sums.fill_bytes(0xff);
    launch();
    PFSP_CUDA_TRY(cudaDeviceSynchronize());
    r.output = sums.download();
  }
  return r;
}

}  // namespace pfsp::divergence::gpu

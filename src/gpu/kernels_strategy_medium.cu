// The divergence strategies' kernels for size class size_medium (strategy_kernels.cuh): 13 task-pool
// kernels (persistent), one context-switch kernel, the two split kernels.
#include "gpu/strategy_kernels.cuh"

namespace pfsp::gpu {

std::unique_ptr<strategy_runner> make_strategy_runner_medium(const strategy_setup& s) {
  return std::make_unique<strategy_runner_impl<size_medium>>(s);
}

}  // namespace pfsp::gpu

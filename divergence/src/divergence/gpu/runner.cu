#include <cuda_runtime.h>

#include "base/cuda_check.cuh"
#include "divergence/gpu/runner.hpp"
#include "divergence/gpu/runner_internal.hpp"

namespace pfsp::divergence::gpu {

device_info current_device() {
  int dev = 0;
  PFSP_CUDA_TRY(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  PFSP_CUDA_TRY(cudaGetDeviceProperties(&prop, dev));
  return {prop.name, prop.multiProcessorCount, prop.major, prop.minor};
}

bool device_available() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return count > 0;
}

run_result run_termination(const termination_spec& spec, const std::optional<task_pool_params>& strategy,
                           const timing_options& opt, bool keep_output) {
  if (const auto* mc = std::get_if<mc_termination_spec>(&spec))
    return detail::run_mc_termination(*mc, strategy, opt, keep_output);
  return detail::run_julia(std::get<julia_spec>(spec), strategy, opt, keep_output);
}

const char* to_string(remap_workload w) { return w == remap_workload::gafort ? "gafort" : "black_scholes"; }
const char* to_string(remap_plan_kind p) { return p == remap_plan_kind::lam ? "lam" : "sort"; }

}  // namespace pfsp::divergence::gpu

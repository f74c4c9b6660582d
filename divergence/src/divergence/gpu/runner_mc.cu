// Frey's Monte Carlo termination case on the device, every pool and fetch control.
#include "divergence/gpu/runner_internal.hpp"
#include "divergence/gpu/termination_dispatch.cuh"
#include "divergence/workloads/monte_carlo.hpp"

namespace pfsp::divergence::gpu::detail {

run_result run_mc_termination(const mc_termination_spec& spec, const std::optional<task_pool_params>& strategy,
                              const timing_options& opt, bool keep_output) {
  device_buffer<std::uint32_t> iterations(spec.tasks), sums(spec.tasks), counter(1);
  mc_termination w;
  w.tasks = spec.tasks;
  w.kill_threshold = probability_threshold(spec.kill);
  w.out_iterations = iterations.data();
  w.out_sum = sums.data();
  run_result r;
  r.time = time_runs([&] { launch_termination(w, counter.data(), strategy, opt); }, opt);
  if (keep_output) {
    iterations.fill_bytes(0xff);
    sums.fill_bytes(0xff);
    launch_termination(w, counter.data(), strategy, opt);
    PFSP_CUDA_TRY(cudaDeviceSynchronize());
    r.output = iterations.download();
    const auto s = sums.download();
    r.output.insert(r.output.end(), s.begin(), s.end());
  }
  return r;
}

}  // namespace pfsp::divergence::gpu::detail

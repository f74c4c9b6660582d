// Frey's Julia set case on the device, every pool and fetch control.
#include "divergence/gpu/runner_internal.hpp"
#include "divergence/gpu/termination_dispatch.cuh"
#include "divergence/workloads/julia.hpp"

namespace pfsp::divergence::gpu::detail {

run_result run_julia(const julia_spec& spec, const std::optional<task_pool_params>& strategy, const timing_options& opt,
                     bool keep_output) {
  PFSP_DIV_EXPECTS(spec.width % 8 == 0 && spec.height % 4 == 0, "julia: width % 8 and height % 4 must be 0");
  device_buffer<std::uint32_t> image(static_cast<std::size_t>(spec.width) * spec.height), counter(1);
  const julia w = julia::make(spec.width, spec.height, spec.offset, spec.crunch, image.data());
  run_result r;
  r.time = time_runs([&] { launch_termination(w, counter.data(), strategy, opt); }, opt);
  if (keep_output) {
    image.fill_bytes(0xff);
    launch_termination(w, counter.data(), strategy, opt);
    PFSP_CUDA_TRY(cudaDeviceSynchronize());
    r.output = image.download();
  }
  return r;
}

}  // namespace pfsp::divergence::gpu::detail

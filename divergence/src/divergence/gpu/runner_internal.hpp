// Entry points of the per-workload translation units, dispatched by runner.cu.
#pragma once

#include "divergence/gpu/runner.hpp"

namespace pfsp::divergence::gpu::detail {

run_result run_mc_termination(const mc_termination_spec& spec, const std::optional<task_pool_params>& strategy,
                              const timing_options& opt, bool keep_output);
run_result run_julia(const julia_spec& spec, const std::optional<task_pool_params>& strategy, const timing_options& opt,
                     bool keep_output);

}  // namespace pfsp::divergence::gpu::detail

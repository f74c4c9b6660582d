#include "app/gpu_cli.hpp"

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "app/enum_options.hpp"
#include "app/options.hpp"
#include "base/error.hpp"
#include "gpu/bounder.hpp"
#include "gpu/plan.hpp"
#include "gpu/resident.hpp"
#include "gpu/solver.hpp"

namespace pfsp {

bool gpu_cli_available() { return gpu::device_count() > 0; }
int gpu_cli_device_count() { return gpu::device_count(); }

void gpu_cli_warm_up(const gpu_cli_options& o) noexcept { gpu::warm_up(o.policy.device); }

// Never throws (solve_api asks before the options are checked).
bool gpu_cli_device_loop(const gpu_cli_options& o) noexcept {
  return gpu::choose_loop(o.request.loop, o.request.host_loop_options, o.policy) == gpu::loop_kind::device;
}

gpu::plan gpu_cli_plan(const bound_data& data, const solve_options& opt, const gpu_cli_options& o) {
  gpu::gpu_policy p = o.policy;
  p.host_threads = opt.threads;
  return gpu::make_plan(p, o.request, opt, data.view().inst.n);
}

solve_result gpu_cli_solve(const bound_data& data, const solve_options& opt, const gpu_cli_options& o,
                           const incumbent& start) {
  return gpu::solve_planned(data, opt, gpu_cli_plan(data, opt, o), start);
}

void gpu_cli_keep_engines(gpu_cli_options& o) { o.policy.engines = gpu::make_engine_cache(); }

void gpu_cli_prepare_engines(const bound_data& data, const solve_options& opt, const gpu_cli_options& o) {
  const gpu::plan p = gpu_cli_plan(data, opt, o);
  if (p.loop == gpu::loop_kind::device) gpu::prepare_engines(data, opt, p.policy);
}

}  // namespace pfsp

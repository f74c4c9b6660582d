#include "app/gpu_cli.hpp"

#include <CLI/CLI.hpp>

#include "base/error.hpp"
#include "gpu/bounder.hpp"
#include "gpu/plan.hpp"
#include "gpu/solver.hpp"

namespace pfsp {

bool gpu_cli_available() { return gpu::device_count() > 0; }
int gpu_cli_device_count() { return gpu::device_count(); }

void gpu_cli_warm_up(const gpu_cli_options& o) noexcept { gpu::warm_up(o.device); }

void add_gpu_cli_options(CLI::App& solve, gpu_cli_options& o) {
  const std::string g = "GPU backend";
  auto host_loop_only = [&o](const std::string&) { o.host_loop_options = true; };
  solve
      .add_option("--pool-size", o.pool_size,
                  "gpu: children bounded per kernel launch, 4096..262144 typical (0 = auto-tune)")
      ->check(CLI::Range(0LL, 16777216LL))
      ->capture_default_str()
      ->group(g);
  solve
      .add_option("--threads-per-block", o.threads_per_block, "gpu: threads per block, multiple of 32 (0 = auto-tune)")
      ->check(CLI::IsMember({0, 32, 64, 96, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640, 768, 896, 1024}))
      ->capture_default_str()
      ->group(g);
  solve
      .add_option("--gpu-selection", o.selection,
                  "gpu: pool selection: hybrid (best-first up to --hybrid-max open nodes, then depth-first down to "
                  "--hybrid-min), depth-first, best-first, breadth-first")
      ->check(CLI::IsMember(enum_choices<gpu::pool_selection>()))
      ->capture_default_str()
      ->each(host_loop_only)
      ->group(g);
  solve
      .add_option("--sort", o.sort,
                  "gpu: thread-data reordering of each pool by (limit1, limit2): none, host, device (CUB)")
      ->check(CLI::IsMember(enum_choices<gpu::pool_sort>()))
      ->capture_default_str()
      ->group(g);
  solve
      .add_option("--kernel", o.kernel,
                  "gpu: bounding kernel variant: plain, refactored (papers' __cosf/__expf rewrite), branchless")
      ->check(CLI::IsMember(enum_choices<gpu::kernel_variant>()))
      ->capture_default_str()
      ->group(g);
  solve.add_option("--memory", o.memory, "gpu: bound tables in shared (when they fit) or global memory")
      ->check(CLI::IsMember(enum_choices<gpu::memory_placement>()))
      ->capture_default_str()
      ->group(g);
  solve
      .add_flag("--compact-times{on}", o.compact_times,
                "gpu: compact tables: 8-bit processing times, 8/16-bit Johnson orders, 16-bit lags (same bounds, "
                "less shared memory). --compact-times[=on] whenever every time is below 256, =off never, "
                "=auto (default) only where the int tables miss shared memory and the compact ones fit")
      ->check(CLI::IsMember(enum_choices<gpu::compact_mode>()))
      ->capture_default_str()
      ->group(g);
  solve
      .add_option("--streams", o.streams,
                  "gpu: 1 (no overlap) or 2 (host branches pool k+1 while the GPU bounds pool k)")
      ->check(CLI::IsMember({1, 2}))
      ->capture_default_str()
      ->each(host_loop_only)
      ->group(g);
  solve
      .add_option("--hybrid-max", o.hybrid_max,
                  "gpu: hybrid selection switches to depth-first above this many open nodes (0 = 8 x pool)")
      ->check(CLI::Range(0LL, 1LL << 40))
      ->each(host_loop_only)
      ->group(g);
  solve.add_option("--hybrid-min", o.hybrid_min, "gpu: and back to best-first below this many (0 = pool)")
      ->check(CLI::Range(0LL, 1LL << 40))
      ->each(host_loop_only)
      ->group(g);
  solve
      .add_option("--gpu-loop", o.loop,
                  "gpu: where the B&B loop runs: host (the papers' model: the host selects, branches and prunes, the "
                  "GPU bounds), device (the whole loop on the GPU: a depth-first node stack in device memory), or "
                  "auto: device, unless an option of the host loop is given (--gpu-selection, --streams, "
                  "--hybrid-max/min, --gpu-strategy other than plain, --sort host)")
      ->check(CLI::IsMember({"auto", "host", "device"}))
      ->capture_default_str()
      ->group(g);
  solve
      .add_option("--loop-bound", o.loop_bound,
                  "gpu, device loop: parts (each parent's front/back/remain computed once and read by its "
                  "children's threads; lb1-lb2 as a chain, LB2 only on the children LB1 kept) or recompute (the "
                  "papers' kernel: every child's thread rebuilds its parent's parts; --sort applies to it)")
      ->check(CLI::IsMember(enum_choices<gpu::loop_bound>()))
      ->capture_default_str()
      ->group(g);
  solve
      .add_option("--devices", o.devices,
                  "gpu, device loop: the CUDA devices to search on, one loop engine each, sharing work and the "
                  "incumbent: a list such as 0,1,2,3 (an ordinal may repeat: several engines on one device) or all")
      ->group(g);
  solve.add_option("--device", o.device, "gpu: CUDA device ordinal")
      ->check(CLI::Range(0, 63))
      ->capture_default_str()
      ->group(g);
}

namespace {

// The CLI's words as the GPU layer's types; CLI11 has checked every choice already.
gpu::gpu_policy policy_of(const gpu_cli_options& o) {
  gpu::gpu_policy p;
  p.pool_size = static_cast<std::size_t>(o.pool_size);
  p.threads_per_block = o.threads_per_block;
  p.select = from_string<gpu::pool_selection>(o.selection, "--gpu-selection");
  p.sort = from_string<gpu::pool_sort>(o.sort, "--sort");
  p.kernel = from_string<gpu::kernel_variant>(o.kernel, "--kernel");
  p.memory = from_string<gpu::memory_placement>(o.memory, "--memory");
  p.compact_times = from_string<gpu::compact_mode>(o.compact_times, "--compact-times");
  p.streams = o.streams;
  p.hybrid_max = static_cast<std::size_t>(o.hybrid_max);
  p.hybrid_min = static_cast<std::size_t>(o.hybrid_min);
  p.device = o.device;
  p.strategy = o.strategy;
  p.bound_step = from_string<gpu::loop_bound>(o.loop_bound, "--loop-bound");
  return p;
}

// --gpu-loop's word (CLI11 checked it); one it does not know reads as the host loop's, as before.
gpu::loop_choice loop_choice_of(const std::string& loop) {
  if (loop == "device") return gpu::loop_choice::device;
  if (loop == "auto") return gpu::loop_choice::automatic;
  return gpu::loop_choice::host;
}

gpu::plan_request request_of(const gpu_cli_options& o) {
  return {loop_choice_of(o.loop), o.host_loop_options, o.devices};
}

}  // namespace

// Never throws (solve_api asks before the options are checked).
bool gpu_cli_device_loop(const gpu_cli_options& o) {
  gpu::gpu_policy p;
  p.strategy = o.strategy;
  if (o.sort == "host") p.sort = gpu::pool_sort::host;
  return gpu::choose_loop(loop_choice_of(o.loop), o.host_loop_options, p) == gpu::loop_kind::device;
}

gpu::plan gpu_cli_plan(const bound_data& data, const solve_options& opt, const gpu_cli_options& o) {
  gpu::gpu_policy p = policy_of(o);
  p.host_threads = opt.threads;
  return gpu::make_plan(p, request_of(o), opt, data.view().inst.n);
}

solve_result gpu_cli_solve(const bound_data& data, const solve_options& opt, const gpu_cli_options& o,
                           const incumbent& start) {
  return gpu::solve_planned(data, opt, gpu_cli_plan(data, opt, o), start);
}

}  // namespace pfsp

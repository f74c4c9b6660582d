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

namespace {

// Help groups (app/options.hpp): where the loop runs and on which device, in help_group::gpu;
// --devices in help_group::devices; the pool, kernel and host-loop knobs, which benchmarks and
// tuning set, in help_group::tuning (--help-all).

// Called with an option's value when it is given (CLI11's Option::each).
using on_given = std::function<void(std::string)>;

// The pool: its size, the kernel's block size, how parents are selected and children ordered.
void add_pool_options(CLI::App& solve, gpu::gpu_policy& p, const on_given& host_only) {
  solve
      .add_option("--pool-size", p.pool_size,
                  "gpu: children bounded an iteration of the device loop (0 = 16777216 up to 50 jobs at 20 machines or "
                  "more, else 4194304) or a launch of the host loop (4096..262144 typical; 0 = auto-tune)")
      ->check(CLI::Range(0LL, 16777216LL))
      ->capture_default_str()
      ->type_name("INT")
      ->group(help_group::tuning);
  solve
      .add_option("--threads-per-block", p.threads_per_block, "gpu: threads per block, multiple of 32 (0 = auto-tune)")
      ->check(CLI::IsMember({0, 32, 64, 96, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640, 768, 896, 1024}))
      ->capture_default_str()
      ->group(help_group::tuning);
  add_enum_option(solve, "--gpu-selection", p.select,
                  "gpu: pool selection: hybrid (best-first up to --hybrid-max open nodes, then depth-first down to "
                  "--hybrid-min), depth-first, best-first, breadth-first")
      ->each(host_only)
      ->group(help_group::tuning);
  add_enum_option(solve, "--sort", p.sort,
                  "gpu: thread-data reordering of each pool by (limit1, limit2): none, host, device (CUB)")
      ->group(help_group::tuning);
}

// The bounding kernel: its variant and where its tables live.
void add_kernel_options(CLI::App& solve, gpu::gpu_policy& p) {
  add_enum_option(solve, "--kernel", p.kernel,
                  "gpu: bounding kernel variant: plain, refactored (papers' __cosf/__expf rewrite), branchless")
      ->group(help_group::tuning);
  add_enum_option(solve, "--memory", p.memory, "gpu: bound tables in shared (when they fit) or global memory")
      ->group(help_group::tuning);
  add_enum_flag_option(solve, "--compact-times", gpu::compact_mode::on, p.compact_times,
                       "gpu: compact tables: 8-bit processing times, 8/16-bit Johnson orders, 16-bit lags (same "
                       "bounds, less shared memory). --compact-times[=on] whenever every time is below 256, =off "
                       "never, =auto (default) only where the int tables miss shared memory and the compact ones fit")
      ->group(help_group::tuning);
}

// The host loop's own: its streams and the hybrid selection's thresholds.
void add_host_loop_options(CLI::App& solve, gpu::gpu_policy& p, const on_given& host_only) {
  solve
      .add_option("--streams", p.streams,
                  "gpu: 1 (no overlap) or 2 (host branches pool k+1 while the GPU bounds pool k)")
      ->check(CLI::IsMember({1, 2}))
      ->capture_default_str()
      ->each(host_only)
      ->group(help_group::tuning);
  solve
      .add_option("--hybrid-max", p.hybrid_max,
                  "gpu: hybrid selection switches to depth-first above this many open nodes (0 = 8 x pool)")
      ->check(CLI::Range(0LL, 1LL << 40))
      ->type_name("INT")
      ->each(host_only)
      ->group(help_group::tuning);
  solve.add_option("--hybrid-min", p.hybrid_min, "gpu: and back to best-first below this many (0 = pool)")
      ->check(CLI::Range(0LL, 1LL << 40))
      ->type_name("INT")
      ->each(host_only)
      ->group(help_group::tuning);
}

// Which loop, how the device loop bounds, and on which devices.
void add_loop_options(CLI::App& solve, gpu_cli_options& o) {
  add_enum_option(solve, "--gpu-loop", o.request.loop,
                  "gpu: where the B&B loop runs: host (the papers' model: the host selects, branches and prunes, "
                  "the GPU bounds), device (the whole loop on the GPU: a depth-first node stack in device memory), "
                  "or auto: device, unless an option of the host loop is given (--gpu-selection, --streams, "
                  "--hybrid-max/min, --gpu-strategy other than plain, --sort host)")
      ->group(help_group::gpu);
  add_enum_option(solve, "--loop-bound", o.policy.bound_step,
                  "gpu, device loop: parts (each parent's front/back/remain computed once and read by its "
                  "children's threads; lb1-lb2 as a chain, LB2 only on the children LB1 kept) or recompute (the "
                  "papers' kernel: every child's thread rebuilds its parent's parts; --sort applies to it)")
      ->group(help_group::tuning);
  solve
      .add_option("--lb2-lanes", o.policy.lb2_lanes,
                  "gpu, device loop, lb1-lb2 with --loop-bound parts: lanes that bound one child in the chain's LB2 "
                  "pass, walking its machine pairs in rounds (1, 2, 4, 8 or 16; the same bounds, the same tree)")
      ->check(CLI::IsMember({1, 2, 4, 8, 16}))
      ->group(help_group::tuning);
  add_enum_option(solve, "--lb2-table", o.policy.lb2_table,
                  "gpu, device loop, lb1-lb2 with --loop-bound parts: the chain's LB2 pass from each parent's table "
                  "in shared memory, a warp a parent (on), or as the pairs' walks, a thread a child (off, the "
                  "default: faster at 20 machines). The same bounds, the same tree")
      ->group(help_group::tuning);
  add_enum_option(solve, "--lb2-pack", o.policy.lb2_pack,
                  "gpu, device loop, lb1-lb2 with --loop-bound parts, up to 64 jobs: the chain's LB2 pass two "
                  "children a thread, their pair walks in the 16-bit halves of 32-bit words (on), or a thread a "
                  "child (off); auto (the default): on from 33 jobs or 20 machines (measured faster at 50x20 and "
                  "20x20). The same bounds, the same tree")
      ->group(help_group::tuning);
  add_enum_option(solve, "--lb1-fused", o.policy.lb1_fused,
                  "gpu, device loop, --loop-bound parts, 5, 10 or 20 machines: the LB1 pass (--bound lb1 and the "
                  "chain's first pass) in the parents kernel, a thread a parent bounding its children from its "
                  "parts in registers, and with --bound lb1 also choosing their direction and pruning them there "
                  "(on), or a thread a child (off); auto (the default): the chain at 20 machines up to 50 jobs, "
                  "--bound lb1 at 10 and 20 machines up to n m = 2000 (where each was measured faster). The same "
                  "bounds, the same tree")
      ->group(help_group::tuning);
  add_parsed_option(solve, "--devices", o.request.devices, gpu::parse_devices,
                    "gpu, device loop: the CUDA devices to search on, one loop engine each, sharing work and the "
                    "incumbent: a list such as 0,1,2,3 (an ordinal may repeat: several engines on one device) or "
                    "all")
      ->group(help_group::devices);
  solve
      .add_option_function<std::size_t>(
          "--gpu-memory", [&p = o.policy](const std::size_t& mib) { p.memory_cap = mib << 20; },
          "gpu, device loop: MiB of GPU memory each loop engine may take (its pool buffers and its node stack, "
          "which starts small and grows on demand up to this; when full, the stack's bottom nodes spill to host "
          "memory, and past a quarter of the host's memory the pools shrink to what fits, which changes the order "
          "of search). 0 (default): the stack may grow to half the device's free memory")
      ->check(CLI::Range(0LL, 1LL << 24))
      ->type_name("MIB")
      ->group(help_group::gpu);
  solve.add_option("--device", o.policy.device, "gpu: CUDA device ordinal")
      ->check(CLI::Range(0, 63))
      ->capture_default_str()
      ->group(help_group::gpu);
}

}  // namespace

void add_gpu_cli_options(CLI::App& solve, gpu_cli_options& o) {
  // --gpu-selection, --streams, --hybrid-max and --hybrid-min given: --gpu-loop auto takes the host loop.
  const on_given host_only = [&o](const std::string&) { o.request.host_loop_options = true; };
  add_pool_options(solve, o.policy, host_only);
  add_kernel_options(solve, o.policy);
  add_host_loop_options(solve, o.policy, host_only);
  add_loop_options(solve, o);
}

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

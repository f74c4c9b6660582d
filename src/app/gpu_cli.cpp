#include "app/gpu_cli.hpp"

#include <CLI/CLI.hpp>
#include <map>

#include "base/error.hpp"
#include "gpu/bounder.hpp"
#include "gpu/policy.hpp"
#include "gpu/resident.hpp"
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

bool gpu_cli_device_loop(const gpu_cli_options& o) {
  const bool host_only = o.host_loop_options || o.strategy.kind != gpu::gpu_strategy::plain || o.sort == "host";
  return o.loop == "device" || (o.loop == "auto" && !host_only);
}

solve_result gpu_cli_solve(const bound_data& data, const solve_options& opt, const gpu_cli_options& o,
                           const incumbent& start) {
  if (o.compact_times == "on" && o.strategy.kind != gpu::gpu_strategy::plain &&
      o.strategy.kind != gpu::gpu_strategy::remap)
    throw input_error("--gpu-strategy " + std::string(gpu::to_string(o.strategy.kind)) +
                      " is not available with --compact-times (plain and remap are)");
  if (o.pool_size != 0 && o.pool_size < 2LL * data.view().inst.n)
    throw input_error(
        "--pool-size must hold at least one parent's children (2 n = " + std::to_string(2 * data.view().inst.n) + ")");
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
  p.host_threads = opt.threads;
  const bool device_loop = gpu_cli_device_loop(o);
  if (!device_loop && (opt.on_checkpoint || opt.resume))
    throw input_error("--checkpoint and --resume need the device loop (--gpu-loop device); the host loop" +
                      std::string(o.loop == "host" ? "" : ", chosen by a host-loop option,") +
                      " cannot save its state");
  if (!o.devices.empty()) {
    if (o.devices == "all") {
      for (int d = 0; d < gpu::device_count(); ++d) p.devices.push_back(d);
    } else {
      std::size_t at = 0;
      while (at <= o.devices.size()) {
        const std::size_t comma = std::min(o.devices.find(',', at), o.devices.size());
        const std::string item = o.devices.substr(at, comma - at);
        int d = -1;
        std::size_t used = 0;
        try {
          d = std::stoi(item, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (item.empty() || used != item.size() || d < 0)
          throw input_error("--devices " + o.devices +
                            ": expected device ordinals separated by commas (e.g. 0,1) "
                            "or 'all', found '" +
                            item + "'");
        if (d >= gpu::device_count())
          throw input_error("--devices " + o.devices + ": there is no CUDA device " + std::to_string(d) +
                            " (this machine has " + std::to_string(gpu::device_count()) + ")");
        p.devices.push_back(d);
        at = comma + 1;
      }
    }
    if (p.devices.size() > 64) throw input_error("--devices: at most 64 engines");
    if (!device_loop && p.devices.size() > 1)
      throw input_error("--devices with more than one device needs the device loop (--gpu-loop device)");
    if (!p.devices.empty()) p.device = p.devices.front();
  }
  if (device_loop) {
    if (o.selection != "hybrid" && o.selection != "depth-first")
      throw input_error("--gpu-loop device searches depth-first: --gpu-selection " + o.selection +
                        " needs --gpu-loop host");
    return gpu::solve_resident(data, opt, p, start);
  }
  return gpu::solve(data, opt, p, start);
}

}  // namespace pfsp

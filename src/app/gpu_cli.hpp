// The GPU backend's command-line hook: `pfsp solve --backend gpu` and its knobs. Built only
// when the pfsp_gpu target exists (PFSP_HAVE_GPU); cli.cpp calls these functions. A thin adapter:
// the plan (which loop, which devices, what is compatible) is decided in gpu/plan.cpp.
#pragma once

#include <cstddef>
#include <string>

#include "bound/bound_data.hpp"
#include "gpu/plan.hpp"
#include "gpu/strategy.hpp"
#include "search/control.hpp"
#include "search/types.hpp"

namespace CLI {
class App;
}

namespace pfsp {

struct gpu_cli_options {
  long long pool_size = 0;             // children per launch; 0 = auto-tune
  int threads_per_block = 0;           // 0 = auto-tune
  std::string selection = "hybrid";    // hybrid | depth-first | best-first | breadth-first
  std::string sort = "device";         // none | host | device
  std::string kernel = "branchless";   // plain | refactored | branchless
  std::string memory = "shared";       // shared | global
  std::string compact_times = "auto";  // --compact-times: auto, on, off
  int streams = 2;
  long long hybrid_max = 0;  // open nodes; 0 = 8 x pool
  long long hybrid_min = 0;  // open nodes; 0 = pool
  int device = 0;
  // --gpu-loop: host (the papers' model) | device (gpu/resident.hpp) | auto: device unless an
  // option only the host loop has was given (host_loop_options, --gpu-strategy other than
  // plain, --sort host).
  std::string loop = "auto";
  bool host_loop_options = false;    // --gpu-selection, --streams, --hybrid-max or --hybrid-min given
  std::string devices;               // --devices: "0,1,2", "all"; empty = --device
  std::string loop_bound = "parts";  // --loop-bound: parts | recompute (device loop)
  gpu::strategy_params strategy;     // set by cli.cpp from --gpu-strategy and --strategy-params
};

// True iff a CUDA device is present (never throws).
bool gpu_cli_available();
// Number of CUDA devices (0 without a driver; never throws).
int gpu_cli_device_count();

void add_gpu_cli_options(CLI::App& solve, gpu_cli_options& o);

// Creates the device's CUDA context now (gpu::warm_up); never throws.
void gpu_cli_warm_up(const gpu_cli_options& o) noexcept;

// Whether these options run the device loop (--gpu-loop device, or auto without a host-loop option).
bool gpu_cli_device_loop(const gpu_cli_options& o);

// The GPU plan of these options (loop, devices, checked policy; gpu/plan.hpp); throws
// input_error. gpu_cli_solve runs it.
gpu::plan gpu_cli_plan(const bound_data& data, const solve_options& opt, const gpu_cli_options& o);

// Solves with the GPU backend; host threads = opt.threads.
solve_result gpu_cli_solve(const bound_data& data, const solve_options& opt, const gpu_cli_options& o,
                           const incumbent& start);

}  // namespace pfsp

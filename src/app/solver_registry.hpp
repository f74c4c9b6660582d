// The solvers behind `pfsp solve --backend` and pfsp-mpi's chunks, as one interface and a
// registry: every backend is an entry (name, what selects it on the command line, what it can do)
// with one call, solve(entry, bound_data, options, incumbent, GPU options) -> solve_result. The
// front ends (solve_api.cpp, src/mpi/main.cpp) pick an entry from the registry instead of
// comparing backend names, and tests/test_backends.cpp runs every registered entry through the
// same checks: a new backend gets them by being registered
// (docs/decisions/009-solver-registry.md).
//
// Layering: above search, cpu and the GPU backend's hook (app/gpu_cli.hpp), below the pipeline
// (solve_api) and the front ends.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "app/gpu_cli.hpp"  // gpu_cli_options: plain C++ (its functions exist in CUDA builds only)
#include "bound/bound_data.hpp"
#include "search/control.hpp"
#include "search/types.hpp"

namespace pfsp {

// Where the GPU backend's branch-and-bound loop runs (none: a CPU solver).
enum class gpu_loop : int { none = 0, host = 1, device = 2 };

// What an entry can do: the front ends and the tests ask these instead of the name.
struct solver_capabilities {
  bool needs_gpu = false;             // registered in CUDA builds only; runs where a device exists
  bool checkpoints = false;           // writes solve_options::on_checkpoint states and continues ::resume
  bool uses_threads = false;          // reads solve_options::threads (cpu-mt's workers, the host loop's threads)
  std::vector<bound_kind> bounds;     // solve_options::bound values it takes
  std::vector<selection> selections;  // solve_options::select values it takes
  // With the optimum as initial upper bound and no incumbent, the set of branched nodes is fixed
  // (every node whose bound is below the optimum): the entry's branched, bounds, pruned and leaves
  // then equal the sequential solver's (tests/test_solvers.cpp, tests/gpu/*).
  bool sequential_tree_at_optimum = false;
};

// The one solver interface: the bound tables, the search options with their control (limits,
// interrupt flag, progress and checkpoint callbacks, resume state, incumbent feed), the start
// incumbent and the GPU backend's options (ignored by the CPU entries).
using solver_fn = solve_result (*)(const bound_data& data, const solve_options& opt, const incumbent& start,
                                   const gpu_cli_options& gpu);

struct solver_entry {
  std::string name;     // cpu, cpu-mt, gpu-host, gpu-device, gpu-device-x2
  std::string backend;  // the --backend value that runs it
  gpu_loop loop = gpu_loop::none;
  // Chosen by --backend (and --gpu-loop); false: an entry for tests and benchmarks only (the
  // device loop on two engines of one device, which the CLI reaches through --devices 0,0).
  bool selectable = true;
  std::string summary;
  solver_capabilities caps;
  solver_fn run = nullptr;
};

// Every entry of this build, CPU entries first. GPU entries are registered in CUDA builds only.
const std::vector<solver_entry>& solver_registry();

// The entry named `name`, or null.
const solver_entry* find_solver(std::string_view name);

// The entry --backend `backend` runs (cpu, cpu-mt or gpu; `loop` decides between the GPU loops
// and is ignored for the CPU ones), or null where this build has none (gpu without CUDA).
const solver_entry* solver_for_backend(std::string_view backend, gpu_loop loop);

// Runs `s`. Throws what the solver throws (input_error for options it cannot take).
solve_result solve(const solver_entry& s, const bound_data& data, const solve_options& opt, const incumbent& start,
                   const gpu_cli_options& gpu = {});

}  // namespace pfsp

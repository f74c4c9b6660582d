#include "app/solver_registry.hpp"

#include "base/error.hpp"
#include "cpu/parallel.hpp"
#include "search/sequential.hpp"

namespace pfsp {
namespace {

solve_result run_sequential(const bound_data& data, const solve_options& opt, const incumbent& start,
                            const gpu_cli_options&) {
  return solve_sequential(data, opt, start);
}

solve_result run_parallel(const bound_data& data, const solve_options& opt, const incumbent& start,
                          const gpu_cli_options&) {
  return solve_parallel(data, opt, start);
}

#if defined(PFSP_HAVE_GPU)
// The GPU entries pass the options on unchanged where they already choose the entry's loop (so
// that gpu_cli_solve's messages name the options given), and otherwise ask for the loop.
solve_result run_gpu_host(const bound_data& data, const solve_options& opt, const incumbent& start,
                          const gpu_cli_options& gpu) {
  gpu_cli_options g = gpu;
  if (gpu_cli_device_loop(g)) g.request.loop = gpu::loop_choice::host;
  return gpu_cli_solve(data, opt, g, start);
}

solve_result run_gpu_device(const bound_data& data, const solve_options& opt, const incumbent& start,
                            const gpu_cli_options& gpu) {
  gpu_cli_options g = gpu;
  if (!gpu_cli_device_loop(g)) g.request.loop = gpu::loop_choice::device;
  return gpu_cli_solve(data, opt, g, start);
}

// Two loop engines on the device of --device, sharing work through the host (--devices D,D).
solve_result run_gpu_device_x2(const bound_data& data, const solve_options& opt, const incumbent& start,
                               const gpu_cli_options& gpu) {
  gpu_cli_options g = gpu;
  if (!gpu_cli_device_loop(g)) g.request.loop = gpu::loop_choice::device;
  if (!g.request.devices.given()) g.request.devices.ordinals = {g.policy.device, g.policy.device};
  return gpu_cli_solve(data, opt, g, start);
}
#endif

std::vector<solver_entry> make_registry() {
  const std::vector<bound_kind> every_bound{bound_kind::lb1, bound_kind::lb2, bound_kind::lb1_lb2};
  std::vector<solver_entry> v;
  v.push_back({"cpu", "cpu", gpu_loop::none, true, "sequential branch-and-bound (search/sequential.hpp)",
               solver_capabilities{false,
                                   true,
                                   false,
                                   every_bound,
                                   {selection::depth_first, selection::breadth_first, selection::best_first},
                                   true},
               &run_sequential});
  v.push_back({"cpu-mt", "cpu-mt", gpu_loop::none, true,
               "multi-threaded depth-first: work stealing or the shared queue (cpu/parallel.hpp)",
               solver_capabilities{false, true, true, every_bound, {selection::depth_first}, true}, &run_parallel});
#if defined(PFSP_HAVE_GPU)
  // The GPU backend's own pool order is --gpu-selection; solve_options::select stays depth-first.
  v.push_back({"gpu-host", "gpu", gpu_loop::host, true,
               "GPU host loop: host threads select and branch, the GPU bounds pools (gpu/solver.hpp)",
               solver_capabilities{true, false, true, every_bound, {selection::depth_first}, true}, &run_gpu_host});
  v.push_back({"gpu-device", "gpu", gpu_loop::device, true,
               "GPU device loop: the whole depth-first loop in device kernels (gpu/resident.hpp)",
               solver_capabilities{true, true, false, every_bound, {selection::depth_first}, true}, &run_gpu_device});
  v.push_back({"gpu-device-x2", "gpu", gpu_loop::device, false,
               "GPU device loop on two engines of one device, sharing work through the host (--devices D,D)",
               solver_capabilities{true, true, false, every_bound, {selection::depth_first}, true},
               &run_gpu_device_x2});
#endif
  return v;
}

}  // namespace

const std::vector<solver_entry>& solver_registry() {
  static const std::vector<solver_entry> registry = make_registry();
  return registry;
}

const solver_entry* find_solver(std::string_view name) {
  for (const solver_entry& s : solver_registry())
    if (s.name == name) return &s;
  return nullptr;
}

const solver_entry* solver_for_backend(std::string_view backend, gpu_loop loop) {
  for (const solver_entry& s : solver_registry())
    if (s.selectable && s.backend == backend && (s.loop == gpu_loop::none || s.loop == loop)) return &s;
  return nullptr;
}

solve_result solve(const solver_entry& s, const bound_data& data, const solve_options& opt, const incumbent& start,
                   const gpu_cli_options& gpu) {
  PFSP_EXPECTS(s.run != nullptr, "solver entry " + s.name + " has no solve function");
  return s.run(data, opt, start, gpu);
}

}  // namespace pfsp

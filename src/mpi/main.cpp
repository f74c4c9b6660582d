// pfsp-mpi: `mpirun -n K pfsp-mpi INSTANCE [options]` proves an instance across K ranks
// (distributed.hpp). Rank 0 prints the result in pfsp's format and writes the JSON; every rank
// loads the instance from the same specification.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <thread>
#include <vector>

#include "app/cli.hpp"
#include "app/gantt_cli.hpp"
#include "app/options.hpp"
#include "app/solve_api.hpp"
#include "app/solver_registry.hpp"
#include "base/error.hpp"
#include "heuristic/iterated_greedy.hpp"
#include "heuristic/neh.hpp"
#include "mpi/distributed.hpp"
#include "problem/io.hpp"
#include "search/control.hpp"
#if defined(PFSP_HAVE_GPU)
#include "app/gpu_cli.hpp"
#endif

namespace {

std::atomic<bool> g_interrupt{false};
extern "C" void on_signal(int) {
  g_interrupt.store(true);
  std::signal(SIGINT, SIG_DFL);
}

// pfsp-mpi's options are pfsp solve's (app/options.hpp: same names, defaults and checks) and the
// distributed ones; what the distributed search cannot honour is refused, and the remaining
// differences are in src/mpi/README.md.
int run(int argc, char** argv, int rank) {
  using namespace pfsp;
  mpi_args m;
  solve_args& a = m.solve;
  CLI::App app{"pfsp-mpi: branch-and-bound for the permutation flow shop across MPI ranks (the options of pfsp solve)"};
  register_mpi_options(app, m);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (rank == 0) {
      if (e.get_exit_code() == 0)
        std::cout << app.help();
      else
        std::cerr << "pfsp-mpi: " << e.what() << "\n";
    }
    return e.get_exit_code() == 0 ? exit_ok : exit_input;
  }
  check_mpi_options(app, m);
  check_solve_args(a);

  const instance inst = load_instance(a.instance_spec);
  if (!a.gantt.empty()) check_output_directory("--gantt", a.gantt);
  // The local backend: auto is pfsp's (gpu where there is a device, else cpu-mt), decided on rank
  // 0 for every rank, since the defaults below depend on it and the ranks must agree on them.
  backend_choice local_backend = a.backend;
  if (local_backend == backend_choice::auto_) {
    int gpu = 0;
#if defined(PFSP_HAVE_GPU)
    if (rank == 0) gpu = gpu_cli_device_count() > 0 ? 1 : 0;
#endif
    MPI_Bcast(&gpu, 1, MPI_INT, 0, MPI_COMM_WORLD);
    local_backend = gpu ? backend_choice::gpu : backend_choice::cpu_mt;
  }
  const bool on_gpu = local_backend == backend_choice::gpu;
  const std::string local(to_string(local_backend));
  // pfsp's defaults for the backend (solve_api.cpp): the GPU's chunks run on the device loop, so
  // auto is lb1-lb2 there and lb1 elsewhere; min-min on the GPU, min-branch elsewhere.
  solve_options opt;
  opt.bound = a.bound.value_or(on_gpu ? bound_kind::lb1_lb2 : bound_kind::lb1);
  opt.branch =
      a.branch_given ? a.branch.value_or(branching::min_min) : (on_gpu ? branching::min_min : branching::min_branch);
  opt.initial_ub = resolve_ub(inst, a);
  opt.time_limit = a.time_limit;
  opt.node_limit = static_cast<std::uint64_t>(a.node_limit);
  opt.interrupt = &g_interrupt;
  opt.shared_queue = a.shared_queue;
  opt.threads = a.threads;
  if (app.count("--threads") == 0) {
    // pfsp's default is every core; the ranks sharing a node share its cores.
    const char* local_size = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    const int per_node = local_size ? std::max(1, std::atoi(local_size)) : 1;
    opt.threads = std::max(1, default_threads() / per_node);
  }
  // LB2's machine pairs, checked on every rank; auto as pfsp resolves it (learn on the GPU, whose
  // chunks run on the device loop, unless the bound is lb1; all elsewhere).
  lb2_pairs_option lb2_spec = a.lb2_pairs;
  if (lb2_spec.mode == lb2_pairs_mode::automatic)
    lb2_spec.mode = on_gpu && opt.bound != bound_kind::lb1 ? lb2_pairs_mode::learn : lb2_pairs_mode::all;
  lb2_pairs_choice pairs = check_lb2_pairs(inst, lb2_spec, opt.bound, false);

  incumbent start;
  run_info info;
  info.command = "pfsp-mpi";
  for (int i = 1; i < argc; ++i) info.command += std::string(" ") + argv[i];
  info.backend_opt = "mpi/" + local;
  info.threads = opt.threads;
  info.instance_spec = a.instance_spec;
  info.initial_ub_source = "none";
  // auto: iterated greedy (pfsp takes NEH only where improver threads run, which pfsp-mpi has not).
  heuristic_choice heuristic = a.no_neh ? heuristic_choice::none : a.heuristic;
  if (heuristic == heuristic_choice::auto_) heuristic = heuristic_choice::ig;
  opt.use_neh = heuristic != heuristic_choice::none;
  if (rank == 0 && heuristic != heuristic_choice::none) {
    ig_options ig;
    ig.iterations = a.ig_iterations >= 0 ? a.ig_iterations : auto_ig_iterations(inst);
    const neh_result h = heuristic == heuristic_choice::ig ? iterated_greedy(inst, ig) : neh(inst);
    start = incumbent(h.makespan, h.schedule);
    info.initial_ub = h.makespan;
    info.initial_ub_source = to_string(heuristic);
  }
  if (opt.initial_ub && (info.initial_ub == 0 || *opt.initial_ub < info.initial_ub)) {
    info.initial_ub = *opt.initial_ub;
    info.initial_ub_source = "--ub";
  }
  // Learned pairs: rank 0 learns them from its start incumbent, as pfsp does, and every rank
  // evaluates those.
  std::string pair_note;
  if (pairs.learn > 0) {
    if (rank == 0) pair_note = learn_lb2_pairs(inst, pairs, initial_threshold(opt, start), info);
    int count = static_cast<int>(pairs.pairs.size());
    MPI_Bcast(&count, 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> flat(2 * static_cast<std::size_t>(count));
    for (std::size_t i = 0; rank == 0 && i < pairs.pairs.size(); ++i) {
      flat[2 * i] = pairs.pairs[i].first;
      flat[2 * i + 1] = pairs.pairs[i].second;
    }
    MPI_Bcast(flat.data(), 2 * count, MPI_INT, 0, MPI_COMM_WORLD);
    pairs.pairs.clear();
    for (int i = 0; i < count; ++i) pairs.pairs.emplace_back(flat[2 * i], flat[2 * i + 1]);
  }
  info.lb2_pairs = describe(pairs);
  const bound_data data(inst, pairs.pairs);

  // The chunks' solver, from the registry (app/solver_registry.hpp): the GPU's is the device
  // loop, which resumes from a chunk.
  const solver_entry* entry = solver_for_backend(local, gpu_loop::device);
  if (!entry) throw input_error("--backend gpu: this pfsp-mpi was built without CUDA");
  gpu_cli_options g;
  if (entry->caps.needs_gpu) {
#if defined(PFSP_HAVE_GPU)
    g.request.loop = gpu::loop_choice::device;
    // Ranks on one machine take its devices in turn (Open MPI's local rank).
    const char* lr = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    const int devices = gpu_cli_device_count();
    if (devices == 0) throw input_error("--backend gpu: no CUDA device on this rank's machine");
    g.policy.device = (lr ? std::max(0, std::atoi(lr)) : 0) % devices;
#endif
  }
  const dist::chunk_solver solver = [&data, entry, g](const solve_options& o, const incumbent& s) {
    return solve(*entry, data, o, s, g);
  };
  dist::distributed_options d;
  d.frontier_per_worker = static_cast<std::size_t>(m.dist.frontier_per_worker);
  d.chunk_nodes = static_cast<std::size_t>(m.dist.chunk_nodes);
  solve_result r = dist::solve_distributed(MPI_COMM_WORLD, inst, data, opt, start, solver, d);
  if (rank != 0) return exit_ok;
  r.backend += ", chunks on " + local;
  if (!pair_note.empty()) r.notes.insert(r.notes.begin(), pair_note);
  if (!r.schedule.empty()) {
    const int check = evaluate_schedule(inst, r.schedule);
    if (check != r.makespan)
      throw error("internal error: reported makespan " + std::to_string(r.makespan) +
                  " but the schedule evaluates to " + std::to_string(check));
  }
  if (a.quiet)
    std::cout << to_string(r.status) << ' ' << r.makespan << ' ' << r.lower_bound << '\n';
  else
    print_result(std::cout, inst, opt, r, info);
  if (!a.json.empty()) write_file_atomically(a.json, result_json(inst, opt, r, info));
  if (!a.gantt.empty()) {
    if (r.schedule.empty())
      std::cerr << "pfsp-mpi: warning: --gantt " << a.gantt << " not written: no schedule was found\n";
    else
      write_gantt(a.gantt, inst, r.schedule);
  }
  return exit_code_for(r.status);
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  int code = pfsp::exit_internal;
  try {
    code = run(argc, argv, rank);
  } catch (const pfsp::input_error& e) {
    if (rank == 0) std::cerr << "pfsp-mpi: " << e.what() << "\n";
    code = pfsp::exit_input;
  } catch (const std::exception& e) {
    std::cerr << "pfsp-mpi (rank " << rank << "): " << e.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, pfsp::exit_internal);
  }
  MPI_Finalize();
  return code;
}

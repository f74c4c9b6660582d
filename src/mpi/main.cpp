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
#include <map>
#include <sstream>
#include <thread>

#include "app/cli.hpp"
#include "base/error.hpp"
#include "cpu/parallel.hpp"
#include "heuristic/iterated_greedy.hpp"
#include "heuristic/neh.hpp"
#include "mpi/distributed.hpp"
#include "problem/io.hpp"
#include "search/sequential.hpp"
#if defined(PFSP_HAVE_GPU)
#include "app/gpu_cli.hpp"
#endif

namespace {

std::atomic<bool> g_interrupt{false};
extern "C" void on_signal(int) {
  g_interrupt.store(true);
  std::signal(SIGINT, SIG_DFL);
}

struct args {
  std::string instance_spec;
  std::string bound = "lb1";
  std::string branch = "min-branch";
  long long ub = 0;
  std::string local = "cpu-mt";
  int threads = 0;
  double time_limit = 0;
  long long node_limit = 0;
  std::string heuristic = "ig";
  long long frontier = 64;
  long long chunk = 4;
  std::string json;
  bool quiet = false;
};

int run(int argc, char** argv, int rank) {
  args a;
  CLI::App app{"pfsp-mpi: branch-and-bound for the permutation flow shop across MPI ranks"};
  app.add_option("instance", a.instance_spec, "ta001..ta120, random:N,M,SEED, or a file (readable by every rank)")
      ->required();
  app.add_option("--bound", a.bound, "lb1, lb2 or lb1-lb2")->check(CLI::IsMember(pfsp::enum_choices<pfsp::bound_kind>()));
  app.add_option("--branching", a.branch, "forward, backward, min-branch or min-min")
      ->check(CLI::IsMember(pfsp::enum_choices<pfsp::branching>()));
  app.add_option("--ub", a.ub, "initial upper bound (prune every node with bound >= it)")
      ->check(CLI::Range(1LL, 1LL << 30));
  app.add_option("--local-backend", a.local, "each rank's solver for its chunks: cpu, cpu-mt or gpu (device loop)")
      ->check(CLI::IsMember({"cpu", "cpu-mt", "gpu"}))
      ->capture_default_str();
  app.add_option("--threads", a.threads, "cpu-mt threads a rank (0 = all cores / ranks on the node)")
      ->check(CLI::Range(0, 4096));
  app.add_option("--time-limit", a.time_limit, "seconds")->check(CLI::Range(0.0, 1e9));
  app.add_option("--node-limit", a.node_limit, "branched nodes, checked between chunks")
      ->check(CLI::Range(0LL, 4000000000000000000LL));
  app.add_option("--heuristic", a.heuristic, "first incumbent on rank 0: ig, neh or none")
      ->check(CLI::IsMember({"ig", "neh", "none"}))
      ->capture_default_str();
  app.add_option("--frontier-per-worker", a.frontier, "frontier nodes built on rank 0 per worker rank")
      ->check(CLI::Range(1LL, 1LL << 24))
      ->capture_default_str();
  app.add_option("--chunk-nodes", a.chunk, "frontier nodes a chunk")
      ->check(CLI::Range(1LL, 1LL << 24))
      ->capture_default_str();
  app.add_option("--json", a.json, "write the result as JSON to this file (rank 0, atomically)");
  app.add_flag("-q,--quiet", a.quiet, "print only 'status makespan lower_bound'");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (rank == 0) {
      if (e.get_exit_code() == 0)
        std::cout << app.help();
      else
        std::cerr << "pfsp-mpi: " << e.what() << "\n";
    }
    return e.get_exit_code() == 0 ? pfsp::exit_ok : pfsp::exit_input;
  }

  using namespace pfsp;
  const instance inst = load_instance(a.instance_spec);
  solve_options opt;
  opt.bound = from_string<bound_kind>(a.bound, "--bound");
  opt.branch = from_string<branching>(a.branch, "--branching");
  if (a.ub > 0) opt.initial_ub = static_cast<int>(a.ub);
  opt.time_limit = a.time_limit;
  opt.node_limit = static_cast<std::uint64_t>(a.node_limit);
  opt.interrupt = &g_interrupt;
  opt.threads = a.threads > 0 ? a.threads : 1;
  if (a.threads == 0) {
    // The ranks sharing a node share its cores.
    const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    const int per_node = local ? std::max(1, std::atoi(local)) : 1;
    opt.threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / per_node);
  }
  const bound_data data(inst);

  incumbent start;
  run_info info;
  info.command = "pfsp-mpi";
  for (int i = 1; i < argc; ++i) info.command += std::string(" ") + argv[i];
  info.backend_opt = "mpi/" + a.local;
  info.threads = opt.threads;
  info.initial_ub_source = "none";
  if (rank == 0 && a.heuristic != "none") {
    ig_options ig;
    ig.iterations = auto_ig_iterations(inst);
    const neh_result h = a.heuristic == "ig" ? iterated_greedy(inst, ig) : neh(inst);
    start = incumbent(h.makespan, h.schedule);
    info.initial_ub = h.makespan;
    info.initial_ub_source = a.heuristic;
  }
  if (opt.initial_ub && (info.initial_ub == 0 || *opt.initial_ub < info.initial_ub)) {
    info.initial_ub = *opt.initial_ub;
    info.initial_ub_source = "--ub";
  }

  dist::chunk_solver local;
  if (a.local == "cpu") {
    local = [&](const solve_options& o, const incumbent& s) { return solve_sequential(data, o, s); };
  } else if (a.local == "cpu-mt") {
    local = [&](const solve_options& o, const incumbent& s) { return solve_parallel(data, o, s); };
  } else {
#if defined(PFSP_HAVE_GPU)
    gpu_cli_options g;
    g.loop = "device";
    // Ranks on one machine take its devices in turn (Open MPI's local rank).
    const char* lr = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    const int devices = gpu_cli_device_count();
    if (devices == 0) throw input_error("--local-backend gpu: no CUDA device on this rank's machine");
    g.device = (lr ? std::max(0, std::atoi(lr)) : 0) % devices;
    local = [&data, g](const solve_options& o, const incumbent& s) mutable { return gpu_cli_solve(data, o, g, s); };
#else
    throw input_error("--local-backend gpu: this pfsp-mpi was built without CUDA");
#endif
  }
  dist::distributed_options d;
  d.frontier_per_worker = static_cast<std::size_t>(a.frontier);
  d.chunk_nodes = static_cast<std::size_t>(a.chunk);
  solve_result r = dist::solve_distributed(MPI_COMM_WORLD, inst, data, opt, start, local, d);
  if (rank != 0) return exit_ok;
  r.backend += ", chunks on " + a.local;
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

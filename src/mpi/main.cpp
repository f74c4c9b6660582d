// pfsp-mpi: `mpirun -n K pfsp-mpi INSTANCE [options]` proves an instance across K ranks
// (distributed.hpp). Rank 0 prints the result in pfsp's format and writes the JSON; every rank
// loads the instance from the same specification.
#include <fcntl.h>
#include <mpi.h>
#include <sys/file.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "app/cli.hpp"
#include "app/gantt_cli.hpp"
#include "app/options.hpp"
#include "app/output_paths.hpp"
#include "app/solve_api.hpp"
#include "app/solver_registry.hpp"
#include "app/visible_devices.hpp"
#include "base/error.hpp"
#include "heuristic/improver.hpp"
#include "heuristic/iterated_greedy.hpp"
#include "heuristic/neh.hpp"
#include "mpi/distributed.hpp"
#include "mpi/messages.hpp"
#include "mpi/worker_devices.hpp"
#include "problem/io.hpp"
#include "search/checkpoint.hpp"
#include "search/control.hpp"
#if defined(PFSP_HAVE_GPU)
#include "app/gpu_cli.hpp"
#endif

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::atomic<bool> g_interrupt{false};
extern "C" void on_signal(int) {
  g_interrupt.store(true);
  std::signal(SIGINT, SIG_DFL);
}

// Runs `f` on rank 0; an input_error there becomes an input_error on every rank (rank 0's
// message, which only rank 0 prints), so that every rank exits 2 together.
template <class F>
void on_rank0(int rank, F&& f) {
  std::string message;
  if (rank == 0) {
    try {
      f();
    } catch (const pfsp::input_error& e) {
      message = e.what();
    }
  }
  int len = static_cast<int>(message.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  message.resize(static_cast<std::size_t>(len));
  MPI_Bcast(message.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (len > 0) throw pfsp::input_error(message);
}

// --resume: rank 0 reads the checkpoint; its tree options (bound, branching, --ub, LB2 pairs),
// which every rank needs, are broadcast. Options given on the command line win, as in pfsp solve
// (check_resumable then refuses a mismatch).
void resume_tree_options(int rank, const pfsp::solve_args& a, std::optional<pfsp::search_state>& resumed,
                         pfsp::solve_options& opt, std::vector<std::pair<int, int>>& pairs) {
  using namespace pfsp;
  on_rank0(rank, [&] { resumed = read_search_state(a.resume); });
  std::vector<int> w;
  if (rank == 0) {
    w = {static_cast<int>(resumed->bound), static_cast<int>(resumed->branch), resumed->ub_option ? 1 : 0,
         resumed->ub_option.value_or(0)};
    for (const auto& [k, l] : resumed->lb2_pairs) w.insert(w.end(), {k, l});
  }
  int len = static_cast<int>(w.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  w.resize(static_cast<std::size_t>(len));
  MPI_Bcast(w.data(), len, MPI_INT, 0, MPI_COMM_WORLD);
  if (!a.bound_given) opt.bound = static_cast<bound_kind>(w[0]);
  if (!a.branch_given) opt.branch = static_cast<branching>(w[1]);
  if (!a.ub_given) opt.initial_ub = w[2] ? std::optional<int>(w[3]) : std::nullopt;
  pairs.clear();
  for (std::size_t i = 4; i + 1 < w.size(); i += 2) pairs.emplace_back(w[i], w[i + 1]);
}

// --checkpoint: rank 0 writes the run's state atomically (a failed periodic write is a warning,
// the previous file stays intact).
std::function<void(const pfsp::search_state&)> checkpoint_writer(const pfsp::solve_args& a) {
  using namespace pfsp;
  if (a.checkpoint.empty()) return nullptr;
  return [path = a.checkpoint, text = a.checkpoint_format == checkpoint_encoding::text](const search_state& s) {
    try {
      write_file_atomically(path, text ? to_text(s) : to_binary(s));
    } catch (const std::exception& e) {
      std::cerr << "pfsp-mpi: warning: checkpoint not written: " << e.what() << "\n";
    }
  };
}

// The GPU options of a worker rank: the device loop, with the policy's defaults, on the devices
// --devices gives this rank (src/mpi/devices.hpp); several devices run the multi-engine loop.
pfsp::gpu_cli_options rank_gpu_options(const pfsp::gpu::device_selection& given, bool local,
                                       pfsp::dist::rank_place place) {
  using namespace pfsp;
  gpu_cli_options g;
#if defined(PFSP_HAVE_GPU)
  g.request.loop = gpu::loop_choice::device;
  // Rank 0 of several hands out chunks and solves none: it never touches CUDA (its driver
  // initialisation would compete with the workers' contexts on its node).
  if (place.count == 0) return g;
  const int devices = gpu_cli_device_count();
  if (devices == 0) throw input_error("--backend gpu: no CUDA device on this rank's machine");
  const dist::device_share share = dist::share_of(local, given.all, !given.ordinals.empty());
  const std::vector<int> mine = dist::rank_devices(share, given.ordinals, place, devices);
  g.policy.device = mine.front();
  if (mine.size() > 1) g.request.devices.ordinals = mine;
#else
  (void)given, (void)local, (void)place;
#endif
  return g;
}

// A worker's CUDA_VISIBLE_DEVICES narrowed to the devices it drives, before its first CUDA call,
// as pfsp does (app/visible_devices.hpp; the plan: mpi/worker_devices.hpp): otherwise every
// worker's runtime maps every GPU of the node, and four workers starting together on a 4-GPU host
// had their contexts 0.65-0.94 s after their start, one alone 0.32-0.46 s
// (bench/results/2026-11-28-h100x4-mpi-start-7137e09). Its --devices become positions in the
// narrowed list, the same GPUs.
void narrow_worker_devices(pfsp::mpi_args& m, pfsp::dist::rank_place place) {
  using pfsp::backend_choice;
  const backend_choice b = m.solve.backend;
  if (place.count == 0 || (b != backend_choice::gpu && b != backend_choice::auto_)) return;
  const bool set = std::getenv("CUDA_VISIBLE_DEVICES") != nullptr;
  const std::optional<pfsp::dist::worker_devices> w = pfsp::dist::plan_worker_devices(
      m.solve.gpu.request.devices, m.dist.devices_local, place, set ? -1 : pfsp::driver_gpu_count(), set);
  if (!w || setenv("CUDA_VISIBLE_DEVICES", w->visible.c_str(), 1) != 0) return;
  m.solve.gpu.request.devices = w->selection;
  m.dist.devices_local = false;
}

// The CUDA contexts of the devices a worker would drive (rank_gpu_options). Never throws: a
// failure (no device, a wrong --devices) shows again, with its message, when the rank sets up.
void warm_up_rank_devices(const pfsp::gpu::device_selection& given, bool local, pfsp::dist::rank_place place) noexcept {
#if defined(PFSP_HAVE_GPU)
  try {
    if (pfsp::gpu_cli_device_count() == 0) return;
    pfsp::gpu_cli_options g = rank_gpu_options(given, local, place);
    for (int d : g.request.devices.ordinals.empty() ? std::vector<int>{g.policy.device} : g.request.devices.ordinals) {
      g.policy.device = d;
      pfsp::gpu_cli_warm_up(g);
    }
  } catch (...) {
  }
#else
  (void)given, (void)local, (void)place;
#endif
}

// A GPU worker's engines, kept from chunk to chunk in a cache and built now, before its first
// chunk (gpu_cli_keep_engines): each chunk after would otherwise pay the device loop's set-up.
void keep_engines(const pfsp::bound_data& data, const pfsp::solve_options& opt, pfsp::gpu_cli_options& g) {
#if defined(PFSP_HAVE_GPU)
  pfsp::gpu_cli_keep_engines(g);
  pfsp::gpu_cli_prepare_engines(data, opt, g);
#else
  (void)data, (void)opt, (void)g;
#endif
}

// The chunks' solver of this rank. A rank with several devices runs each chunk on a
// multi-engine device loop, whose engines after the first join by the small-tree rule
// (src/gpu/join_rule.hpp) that sees the chunk alone: chunks shorter than its wait would run on
// one GPU. So once the rank's chunks have searched the rule's sure_s in all, the run is no small
// tree, and later chunks start every engine at once (kept engines: no set-up to pay). This was
// --ranks-join lazy's alone before the engines were kept: 1 rank x 4 GPUs then ran at 1.9x one
// GPU's rate on a ta056 slice.
pfsp::dist::chunk_solver rank_chunk_solver(const pfsp::bound_data& data, const pfsp::solver_entry& entry,
                                           const pfsp::gpu_cli_options& g) {
  using namespace pfsp;
  auto searched = std::make_shared<double>(0.0);
  return [&data, &entry, g, searched](const solve_options& o, const incumbent& s) {
    gpu_cli_options mine = g;
    if (*searched >= g.policy.loop.join.sure_s) mine.policy.loop.join = gpu::join_rule::at_once();
    solve_result r = solve(entry, data, o, s, mine);
    *searched += r.stats.total_seconds;
    return r;
  };
}

// pfsp-mpi's options are pfsp solve's (app/options.hpp: same names, defaults and checks) and the
// distributed ones; what the distributed search cannot honour is refused, and the remaining
// differences are in src/mpi/README.md.
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, int rank) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (rank == 0) {
      if (e.get_exit_code() == 0)
        std::cout << pfsp::requested_help(app, e);
      else
        std::cerr << "pfsp-mpi: " << e.what() << "\n";
    }
    return e.get_exit_code() == 0 ? pfsp::exit_ok : pfsp::exit_input;
  }
  return std::nullopt;
}

// Whether every rank that searches has a CUDA device (collective; rank 0 of several searches on
// none and asks CUDA nothing).
bool every_worker_has_a_device(pfsp::dist::rank_place place) {
  int has = 1;
#if defined(PFSP_HAVE_GPU)
  if (place.count > 0) has = pfsp::gpu_cli_device_count() > 0 ? 1 : 0;
#else
  (void)place;
  has = 0;
#endif
  MPI_Allreduce(MPI_IN_PLACE, &has, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return has != 0;
}

// The local backend: auto is pfsp's (gpu where there is a device, else cpu-mt), decided for
// every rank by the workers' machines (the defaults depend on it and the ranks must agree on
// them): gpu where every worker has a device.
pfsp::backend_choice agreed_backend(pfsp::backend_choice given, pfsp::dist::rank_place place) {
  using namespace pfsp;
  if (given != backend_choice::auto_) return given;
  return every_worker_has_a_device(place) ? backend_choice::gpu : backend_choice::cpu_mt;
}

// This rank's GPU options where the backend needs a GPU (rank_gpu_options). Every rank refuses a
// worker without a device (a throw on one rank alone would leave the others waiting).
pfsp::gpu_cli_options gpu_options_of(const pfsp::solver_entry& entry, const pfsp::mpi_args& m,
                                     pfsp::dist::rank_place place) {
  if (!entry.caps.needs_gpu) return {};
  if (!every_worker_has_a_device(place))
    throw pfsp::input_error("--backend gpu: no CUDA device on a worker rank's machine");
  return rank_gpu_options(m.solve.gpu.request.devices, m.dist.devices_local, place);
}

// pfsp's search defaults for the backend (solve_api.cpp): the GPU's chunks run on the device loop,
// so auto is default_bound's for it (lb1-lb2 below 200 jobs, lb1 from 200 and at 100-199 jobs x 20-39 machines) and
// default_cpu_bound's on the CPU; min-min on the GPU, min-branch elsewhere; swap dominance as --dominance auto gives
// each (default_dominance); the ranks sharing a node share its cores.
pfsp::solve_options search_options(const pfsp::solve_args& a, const CLI::App& app, const pfsp::instance& inst,
                                   bool on_gpu, std::chrono::steady_clock::time_point wall_start) {
  using namespace pfsp;
  solve_options opt;
  opt.time_origin = wall_start;  // --time-limit counts the start heuristic and the pair learning too
  opt.bound = a.bound.value_or(on_gpu ? default_bound(true, inst.n, inst.m) : default_cpu_bound(inst.n, inst.m));
  opt.dominance = a.dominance == dominance_mode::auto_ ? default_dominance(on_gpu) : a.dominance == dominance_mode::on;
  opt.branch =
      a.branch_given ? a.branch.value_or(branching::min_min) : (on_gpu ? branching::min_min : branching::min_branch);
  opt.initial_ub = resolve_ub(inst, a);
  opt.order = a.order;
  opt.time_limit = a.time_limit;
  opt.node_limit = static_cast<std::uint64_t>(a.node_limit);
  opt.interrupt = &g_interrupt;
  opt.shared_queue = a.shared_queue;
  opt.threads = a.threads;
  if (app.count("--threads") == 0) {
    const char* local_size = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    const int per_node = local_size ? std::max(1, std::atoi(local_size)) : 1;
    opt.threads = std::max(1, default_threads() / per_node);
  }
  return opt;
}

// Every output path is checked before the search (pfsp solve's check_output_paths, on rank 0,
// which writes them): a long run never loses its result to a missing directory.
void check_output_paths(int rank, const pfsp::solve_args& a) {
  on_rank0(rank, [&] { pfsp::check_output_paths(a); });
}

// LB2's machine pairs: from the checkpoint when resumed, else checked on every rank; auto as pfsp
// resolves it (learn unless the bound is lb1 or there is one machine; all then).
pfsp::lb2_pairs_choice lb2_pairs_of(const pfsp::instance& inst, const pfsp::solve_args& a,
                                    const pfsp::solve_options& opt, bool resumed,
                                    const std::vector<std::pair<int, int>>& resumed_pairs) {
  using namespace pfsp;
  lb2_pairs_choice pairs;
  if (!resumed_pairs.empty() || (resumed && opt.bound != bound_kind::lb1)) {
    pairs.spec = "checkpoint";
    pairs.pairs = resumed_pairs;
    return pairs;
  }
  lb2_pairs_option spec = a.lb2_pairs;
  const bool text_checkpoint = !a.checkpoint.empty() && a.checkpoint_format == checkpoint_encoding::text;
  if (spec.mode == lb2_pairs_mode::automatic)
    spec.mode =
        opt.bound != bound_kind::lb1 && inst.m >= 2 && !text_checkpoint ? lb2_pairs_mode::learn : lb2_pairs_mode::all;
  return check_lb2_pairs(inst, spec, opt.bound, text_checkpoint);
}

// Rank 0's start: the checkpoint's incumbent, or the start heuristic's (pfsp solve's seed and
// budget), or none; `--ub` below it is the initial bound. Fills the report's fields.
pfsp::incumbent start_incumbent(int rank, const pfsp::instance& inst, const pfsp::solve_args& a,
                                pfsp::solve_options& opt, const std::optional<pfsp::search_state>& resumed,
                                pfsp::heuristic_choice heuristic, pfsp::run_info& info) {
  using namespace pfsp;
  incumbent start;
  opt.use_neh = heuristic != heuristic_choice::none;
  if (resumed) {
    info.resume_file = a.resume;
    info.initial_ub_source = "checkpoint";
    if (rank == 0 && !resumed->best_schedule.empty()) start = incumbent(resumed->best_makespan, resumed->best_schedule);
    if (rank == 0) info.initial_ub = std::min(resumed->threshold, start.value());
  } else if (rank == 0 && heuristic != heuristic_choice::none) {
    const neh_result h = run_start_heuristic(inst, a, heuristic);
    start = incumbent(h.makespan, h.schedule);
    info.initial_ub = h.makespan;
    info.initial_ub_source = to_string(heuristic);
  }
  if (!resumed && opt.initial_ub && (info.initial_ub == 0 || *opt.initial_ub < info.initial_ub)) {
    info.initial_ub = *opt.initial_ub;
    info.initial_ub_source = "--ub";
  }
  return start;
}

// Learned pairs: rank 0 learns them from its start incumbent, as pfsp does, and every rank
// evaluates those. Returns rank 0's note on the learning.
std::string share_learned_pairs(int rank, const pfsp::instance& inst, const pfsp::solve_options& opt,
                                const pfsp::incumbent& start, pfsp::lb2_pairs_choice& pairs, pfsp::run_info& info) {
  using namespace pfsp;
  if (pairs.learn <= 0) return {};
  std::string note;
  if (rank == 0) note = learn_lb2_pairs(inst, pairs, initial_threshold(opt, start), info);
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
  return note;
}

pfsp::dist::distributed_options distributed_options_of(const pfsp::mpi_args& m, int rank, bool on_gpu) {
  pfsp::dist::distributed_options d;
  d.frontier_per_worker = static_cast<std::size_t>(m.dist.frontier_per_worker);
  d.chunk_nodes =
      m.dist.chunk_nodes > 0 ? static_cast<std::size_t>(m.dist.chunk_nodes) : pfsp::dist::default_chunk_nodes(on_gpu);
  d.split_after = m.dist.split_after;
  d.lazy_join = m.dist.ranks_join == "lazy";
  d.worker_timeout = m.dist.worker_timeout;
  d.save = rank == 0 ? checkpoint_writer(m.solve) : nullptr;
  d.checkpoint_interval = m.solve.checkpoint_interval;
  d.progress_interval = m.solve.checkpoint.empty() ? 0.0 : m.solve.checkpoint_interval;
  d.checkpointing = !m.solve.checkpoint.empty();
  return d;
}

// Rank 0's report: the makespan recomputed from the schedule, then stdout, --json and --gantt.
int report(const pfsp::instance& inst, const pfsp::solve_args& a, const pfsp::solve_options& opt,
           const pfsp::solve_result& r, const pfsp::run_info& info) {
  using namespace pfsp;
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

// The report's record of the run: the command line, the ranks' backend, threads and instance.
pfsp::run_info mpi_run_info(int argc, char** argv, const pfsp::solve_args& a, const std::string& local,
                            const pfsp::solve_options& opt) {
  pfsp::run_info info;
  info.command = "pfsp-mpi";
  for (int i = 1; i < argc; ++i) info.command += std::string(" ") + argv[i];
  info.backend_opt = "mpi/" + local;
  info.threads = opt.threads;
  info.instance_spec = a.instance_spec;
  info.initial_ub_source = "none";
  return info;
}

// Rank 0's incumbent engine (walkers and the CPU beam) beside the hand-out, or none.
std::unique_ptr<pfsp::concurrent_improver> rank0_improver(const pfsp::instance& inst, const pfsp::bound_data& data,
                                                          const pfsp::solve_args& a, const pfsp::solve_options& opt,
                                                          const pfsp::incumbent& start, int improvers) {
  using namespace pfsp;
  if (improvers <= 0) return nullptr;
  return std::make_unique<concurrent_improver>(
      inst, start.schedule().empty() ? neh(inst).schedule : start.schedule(), improvers, 1, walk_options{},
      engine_beam_threads(inst, a.beam, improvers),
      engine_beam_plan(data, opt.bound, resolve_beam_target(inst, a.beam_aim, false)));
}

// The node's workers create their CUDA contexts one at a time where three or more share a node
// (PFSP_MPI_CONTEXT_LOCK=on or off overrides). Four workers starting together on a 4-GPU H100
// host had their contexts 0.86-1.07 s after their start, one alone 0.44-0.48 s: the driver shares
// that work out. Taking turns, the first had its context at 0.45-0.65 s and the ten small proofs'
// JSON wall fell from 10.74 to 9.56 s (bench/results/2026-11-28-h100x4-verify-f6a3eff); two
// workers share the driver's work cheaply (no gain on two H100s,
// bench/results/2026-11-28-h100-visible-devices). A lock file in the node's temporary directory
// (flock: released when the process ends, however); none where it cannot be opened.
class node_lock {
 public:
  node_lock() = default;
  explicit node_lock(int fd) : fd_(fd) {}
  node_lock(node_lock&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  node_lock& operator=(node_lock&&) = delete;
  ~node_lock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the flock
  }

 private:
  int fd_ = -1;
};

node_lock context_lock(int workers_on_node) {
  const char* env = std::getenv("PFSP_MPI_CONTEXT_LOCK");
  const std::string choice = env ? env : "";
  if (choice == "off" || (choice != "on" && workers_on_node < 3)) return {};
  const char* tmp = std::getenv("TMPDIR");
  const std::string path =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/pfsp-mpi-contexts-" + std::to_string(getuid()) + ".lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return {};
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) {
      ::close(fd);
      return {};
    }
  }
  return node_lock(fd);
}

// For tests (PFSP_MPI_TEST_LATE_WORKER=R:S): S seconds more in worker rank R's warm-up, as
// contexts that take long do (tests/mpi: the run neither waits for that worker nor for its
// contexts once the tree is done; the test runs the auto backend, which warms up on a machine
// without GPUs too); 0 elsewhere.
double late_worker_delay(int rank) {
  const char* env = std::getenv("PFSP_MPI_TEST_LATE_WORKER");
  int late = -1;
  double seconds = 0;
  if (!env || std::sscanf(env, "%d:%lf", &late, &seconds) != 2) return 0;
  return rank == late && seconds > 0 ? seconds : 0;
}

// A worker that may search on GPUs creates their contexts from its start, while the ranks load
// the instance, agree on the backend and rank 0 runs its start heuristic (issue 22: four workers
// creating theirs after that reached rank 0 0.3-0.4 s after it began serving, one 0.02 s).
// The thread, and when its contexts were ready (seconds from `origin`; negative before). The
// thread owns copies of what it reads: a worker that rank 0 stops first leaves it running.
struct warm_up {
  std::jthread thread;
  std::shared_ptr<std::atomic<double>> done_at;
};
warm_up warm_up_early(const pfsp::mpi_args& m, pfsp::dist::rank_place place, int rank,
                      std::chrono::steady_clock::time_point origin) {
  using pfsp::backend_choice;
  const backend_choice b = m.solve.backend;
  if (place.count == 0 || (b != backend_choice::gpu && b != backend_choice::auto_)) return {};
  auto done = std::make_shared<std::atomic<double>>(-1.0);
  const double late = late_worker_delay(rank);  // no MPI call in the thread (MPI_THREAD_SERIALIZED)
  return {std::jthread([given = m.solve.gpu.request.devices, local = m.dist.devices_local, place, origin, done, late] {
            if (late > 0) std::this_thread::sleep_for(std::chrono::duration<double>(late));
            const node_lock turn = context_lock(place.count);
            warm_up_rank_devices(given, local, place);
            done->store(seconds_since(origin));
          }),
          done};
}

// Set when a worker left its warm-up running (below): the process then ends without the CUDA
// runtime's teardown, which a thread still inside the driver's initialisation could hang.
std::atomic<bool> g_warm_up_left{false};

// A worker joins its warm-up before its first request, unless rank 0's stop reaches it first:
// rank 0 ended the search before this worker was needed (a small tree; distributed.cpp,
// stop_workers_not_needed), and the worker answers at once instead of after its contexts, so
// that the run's end does not wait for them. Returns whether the contexts are ready.
bool wait_for_warm_up(warm_up& w, bool worker_of_several) {
  if (!w.thread.joinable()) return true;
  while (worker_of_several && w.done_at->load() < 0) {
    int stop = 0;
    MPI_Iprobe(0, pfsp::dist::kTagWork, MPI_COMM_WORLD, &stop, MPI_STATUS_IGNORE);
    if (stop) {  // rank 0 sends work only on request: before the first, this is a stop
      g_warm_up_left.store(true);
      w.thread.detach();
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  w.thread.join();
  return true;
}

// Improver threads on rank 0 (mostly idle while it hands out chunks): auto as pfsp solve's for
// the GPU device loop (this rank's share of the cores but one, at most 8), none elsewhere.
int improver_threads(const pfsp::solve_args& a, const pfsp::solve_options& opt, bool on_gpu) {
  if (a.improver_threads >= 0) return a.improver_threads;
  return on_gpu ? std::clamp(opt.threads - 1, 0, 8) : 0;
}

// The start heuristic; auto: NEH where improver threads run, iterated greedy elsewhere.
pfsp::heuristic_choice start_heuristic(const pfsp::solve_args& a, int improvers) {
  using pfsp::heuristic_choice;
  const heuristic_choice h = a.no_neh ? heuristic_choice::none : a.heuristic;
  if (h != heuristic_choice::auto_) return h;
  return improvers > 0 ? heuristic_choice::neh : heuristic_choice::ig;
}

// Rank 0's improver stopped; its summary and bound into the result.
void take_improver(pfsp::concurrent_improver* improver, pfsp::solve_result& r) {
  if (!improver) return;
  improver->stop();
  r.notes.push_back("rank 0's improver: " + improver->summary());
  pfsp::take_engine_bound(*improver, r);
}

int run(int argc, char** argv, int rank) {
  using namespace pfsp;
  const auto wall_start = std::chrono::steady_clock::now();
  mpi_args m;
  solve_args& a = m.solve;
  CLI::App app{"pfsp-mpi: branch-and-bound for the permutation flow shop across MPI ranks (the options of pfsp solve)"};
  register_mpi_options(app, m);
  if (const std::optional<int> done = parse_command_line(app, argc, argv, rank)) return *done;
  check_mpi_options(app, m);
  check_solve_args(a);
  const dist::rank_place place = dist::node_place(MPI_COMM_WORLD);
  dist::rank_time start_steps;  // a worker's start, step by step (rank 0's note)
  narrow_worker_devices(m, place);
  warm_up warming = warm_up_early(m, place, rank, wall_start);
  const instance inst = load_instance(a.instance_spec);
  check_output_paths(rank, a);
  const backend_choice local_backend = agreed_backend(a.backend, place);
  const bool on_gpu = local_backend == backend_choice::gpu;
  const std::string local(to_string(local_backend));
  solve_options opt = search_options(a, app, inst, on_gpu, wall_start);

  // The chunks' solver, from the registry (app/solver_registry.hpp): the GPU's is the device
  // loop, which resumes from a chunk. A GPU worker keeps its engines from chunk to chunk.
  const solver_entry* entry = solver_for_backend(local, gpu_loop::device);
  if (!entry) throw input_error("--backend gpu: this pfsp-mpi was built without CUDA");
  gpu_cli_options g = gpu_options_of(*entry, m, place);
  const bool gpu_worker = entry->caps.needs_gpu && place.count > 0;

  // --resume: the checkpoint's tree options and pairs.
  std::optional<search_state> resumed;
  std::vector<std::pair<int, int>> resumed_pairs;
  if (!a.resume.empty()) resume_tree_options(rank, a, resumed, opt, resumed_pairs);
  lb2_pairs_choice pairs = lb2_pairs_of(inst, a, opt, resumed.has_value(), resumed_pairs);

  run_info info = mpi_run_info(argc, argv, a, local, opt);
  const int improvers = improver_threads(a, opt, on_gpu);
  const incumbent start = start_incumbent(rank, inst, a, opt, resumed, start_heuristic(a, improvers), info);
  const std::string pair_note = share_learned_pairs(rank, inst, opt, start, pairs, info);
  start_steps.pairs = seconds_since(wall_start);
  info.lb2_pairs = describe(pairs);
  info.checkpoint_file = a.checkpoint;
  const bound_data data(inst, pairs.pairs);
  if (resumed) {
    on_rank0(rank, [&] { check_resumable(*resumed, data, opt, a.resume); });
    opt.resume = rank == 0 ? &*resumed : nullptr;
  }

  if (wait_for_warm_up(warming, rank != 0) && gpu_worker) {
    keep_engines(data, opt, g);
    start_steps.engines = seconds_since(wall_start);
  }
  if (warming.done_at) start_steps.contexts = std::max(0.0, warming.done_at->load());
  const dist::chunk_solver solver = rank_chunk_solver(data, *entry, g);
  dist::distributed_options d = distributed_options_of(m, rank, on_gpu);
  d.start = start_steps;
  // Every rank refuses it (a throw on rank 0 alone would leave the others waiting).
  if (a.beam_on == beam_device::gpu)
    throw input_error("--beam-device gpu: pfsp-mpi runs rank 0's beam on the CPU (its GPUs search)");
  const std::unique_ptr<concurrent_improver> improver =
      rank == 0 ? rank0_improver(inst, data, a, opt, start, improvers) : nullptr;
  d.improver = improver.get();
  solve_result r = dist::solve_distributed(MPI_COMM_WORLD, inst, data, opt, start, solver, d);
  if (rank != 0) return exit_ok;
  r.backend += ", chunks on " + local;
  if (!pair_note.empty()) r.notes.insert(r.notes.begin(), pair_note);
  take_improver(improver.get(), r);
  info.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return report(inst, a, opt, r, info);
}

// MPI_Finalize waits for every rank (a PMIx fence). After a worker's kill -9 under mpirun
// --enable-recovery, Open MPI 4.1.4 sometimes never completes it (1 run in 5 of test
// kill_9_..._enable_recovery, at commit 939aff0 as after it), with the result and the checkpoint
// already written: past 10 s the process ends with its exit code (all ranks ending so, mpirun
// --enable-recovery exits 0 when they do).
void finalize_or_exit(int code) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::thread([code] {
    std::this_thread::sleep_for(std::chrono::seconds(10));
    std::_Exit(code);
  }).detach();
  MPI_Finalize();
  if (g_warm_up_left.load()) std::_Exit(code);
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  // Serialized: a worker's listener thread calls MPI while the chunk's solver runs (never both).
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (provided < MPI_THREAD_SERIALIZED) {
    if (rank == 0) std::cerr << "pfsp-mpi: this MPI library does not provide MPI_THREAD_SERIALIZED\n";
    MPI_Finalize();
    return pfsp::exit_internal;
  }
  // Errors are returned, not fatal: rank 0 outlives a lost worker (its sends to it may fail).
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  int code = pfsp::exit_internal;
  try {
    code = run(argc, argv, rank);
  } catch (const pfsp::input_error& e) {
    if (rank == 0) std::cerr << "pfsp-mpi: " << e.what() << "\n";
    code = pfsp::exit_input;
  } catch (const std::bad_alloc& e) {
    std::cerr << "pfsp-mpi (rank " << rank << "): out of memory (" << e.what()
              << "): an allocation failed; give the ranks more memory, or run fewer ranks a host\n";
    MPI_Abort(MPI_COMM_WORLD, pfsp::exit_out_of_memory);
  } catch (const std::exception& e) {
    std::cerr << "pfsp-mpi (rank " << rank << "): " << e.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, pfsp::exit_internal);
  }
  finalize_or_exit(code);
  return code;
}

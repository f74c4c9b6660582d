#include "app/solve_api.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <memory>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "app/ascent.hpp"
#include "app/output_paths.hpp"
#include "app/solver_registry.hpp"
#include "base/cores.hpp"
#include "base/error.hpp"
#include "base/host_memory.hpp"
#include "bound/bound_data.hpp"
#include "bound/pair_learning.hpp"
#include "gpu/strategy.hpp"
#include "heuristic/improver.hpp"
#include "heuristic/iterated_greedy.hpp"
#include "heuristic/neh.hpp"
#include "search/expander.hpp"
#include "search/sequential.hpp"
#if defined(PFSP_HAVE_GPU)
#include "gpu/device_beam.hpp"
#include "gpu/walkers.hpp"
#endif

namespace pfsp {
namespace {

bool gpu_available() {
#if defined(PFSP_HAVE_GPU)
  return gpu_cli_available();
#else
  return false;
#endif
}

// The message of CLI11's Range check, as `pfsp solve` prints it.
template <class T>
void check_range(const std::string& option, T v, T lo, T hi) {
  if (v >= lo && v <= hi) return;
  std::ostringstream s;
  s << option << ": Value " << v << " not in range " << std::to_string(lo) << " to " << std::to_string(hi);
  throw input_error(s.str());
}

// --ascent runs a new search for each bound: no checkpoint describes the whole of it.
void check_ascent(const solve_args& a) {
  if (a.ascent > 0 && (!a.checkpoint.empty() || !a.resume.empty()))
    throw input_error("--ascent runs a new search for each bound: it takes no --checkpoint or --resume");
}

}  // namespace

void check_solve_args(const solve_args& a) {
  // The enum fields, --ub and --lb2-pairs hold a valid value by construction (their setters, the
  // CLI's and the Python module's, parse them); the numbers are checked here.
  check_range("--threads", a.threads, 1, 4096);
  check_range("--improver-threads", a.improver_threads, -1, 256);
  check_range("--heuristic-share", a.heuristic_share, -1.0, 1.0);
  check_range("--seed", a.seed, 0, 2147483647);
  check_range("--gpu-walkers", a.gpu_walkers, -1, 1000000);
  check_range("--beam", a.beam, -1, 256);
  if (a.gpu_walkers > 0 && (a.backend == backend_choice::cpu || a.backend == backend_choice::cpu_mt))
    throw input_error("--gpu-walkers " + std::to_string(a.gpu_walkers) + " needs --backend gpu");
  check_range("--ig-iterations", a.ig_iterations, -1, 100000000);
  check_range("--time-limit", a.time_limit, 0.0, 1e9);
  check_range("--ascent", a.ascent, 0.0, 1e9);
  check_ascent(a);
  check_range("--node-limit", a.node_limit, 0LL, 4000000000000000000LL);
  check_range("--progress-interval", a.progress_interval, 0.01, 1e6);
  check_range("--checkpoint-interval", a.checkpoint_interval, 0.0, 1e9);
}

beam_target resolve_beam_target(const instance& inst, beam_target aim, bool device_beam) {
  if (aim != beam_target::auto_) return aim;
  return !device_beam && inst.m >= 40 && inst.n < 15 * inst.m ? beam_target::best : beam_target::bisect;
}

// The bisecting beam's lower bound, the search's root bound, and its prover (heuristic/aspiration.hpp):
// the sequential branch-and-bound with `value` as its upper bound, within `seconds`; true when it
// closed its tree: no schedule is below `value`.
beam_plan engine_beam_plan(const bound_data& data, bound_kind bound, beam_target aim) {
  if (aim == beam_target::best) return beam_plan{.bisect = false};
  const int n = data.view().inst.n;
  std::vector<job_t> identity(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) identity[static_cast<std::size_t>(j)] = static_cast<job_t>(j);
  const int root = expander(data, bound, branching::forward).root_bound(identity.data(), -1, n, INT_MAX);
  auto prove_below = [&data, bound](int value, double seconds, const std::atomic<bool>* stop, std::vector<int>* found) {
    solve_options o;
    o.bound = bound;
    o.initial_ub = value;
    o.use_neh = false;
    o.dominance = true;
    o.time_limit = seconds;
    o.interrupt = stop;
    const solve_result r = solve_sequential(data, o, incumbent{});
    if (found && !r.schedule.empty() && r.makespan < value) *found = r.schedule;  // below value: not proven
    return r.status == solve_status::proven_bound;
  };
  return beam_plan{.bisect = true, .lower = root, .prove_below = prove_below};
}

// r's lower bound raised to `lower`, proven by `source` (the note says so); a schedule at it is
// optimal even when the search ran out of time before proving it again.
void raise_lower_bound(solve_result& r, int lower, const std::string& source) {
  r.lower_bound = lower;
  r.notes.push_back("lower bound " + std::to_string(lower) + " " + source);
  if (!r.schedule.empty() && r.makespan == lower) {
    r.status = solve_status::optimal;
    r.notes.push_back("optimal: the schedule reaches that lower bound");
  }
}

// The engine's lower bound (its beam's root bound, raised by its probes: each a sequential search
// that closed its tree below the value) where it is above the search's.
void take_engine_bound(const concurrent_improver& engine, solve_result& r) {
  const int lower = engine.lower_bound();
  if (lower <= r.lower_bound || r.status == solve_status::optimal || r.status == solve_status::error) return;
  raise_lower_bound(r, lower, "from the incumbent engine's probes (sequential searches below it closed)");
}

// A floor under the reported lower bound that needs no search: the root's LB1 and its LB2 over every
// machine pair (0 where their tables would be large: more than 2^23 job-pair entries). The search
// runs LB2 over m - 1 learned pairs, or LB1 alone (the GPU at 100+ jobs x 20+ machines), and the
// incumbent engine's probes do not run where its beam aims at its best (wide shops on the CPU), so
// on wide shops every open node's bound can stay below this one (VRF large, instances 2-10: the
// all-pairs LB2 at the root is above the VRF paper's lower bounds on every class, by 0.09-2.3 %
// on the mean, where LB1 is 0.01-0.6 % below them). It costs about 0.1 us an entry (this 2-core
// VM: 0.14 s at 800 x 60, 0.45 s at 4000 x 45), so it is made only where that is at most 2 % of
// the time limit.
int root_floor(const instance& inst, double time_limit, all_pair_tables& tables) {
  const long long entries = static_cast<long long>(inst.n) * inst.m * (inst.m - 1) / 2;
  if (inst.m < 2 || entries > (1LL << 23)) return 0;
  if (time_limit > 0 && 1.5e-7 * static_cast<double>(entries) > 0.02 * time_limit) return 0;
  const bound_data& all = tables.get();
  std::vector<job_t> identity(static_cast<std::size_t>(inst.n));
  for (int j = 0; j < inst.n; ++j) identity[static_cast<std::size_t>(j)] = static_cast<job_t>(j);
  const int lb1 = expander(all, bound_kind::lb1, branching::forward).root_bound(identity.data(), -1, inst.n, INT_MAX);
  const int lb2 = expander(all, bound_kind::lb2, branching::forward).root_bound(identity.data(), -1, inst.n, INT_MAX);
  return std::max(lb1, lb2);
}

// A run stopped by a limit reports at least the root floor. Not with --ub (whose proofs report
// their own bound) nor after an error.
void take_root_floor(int floor, const std::optional<int>& ub_option, solve_result& r) {
  const bool stopped = r.status == solve_status::time_limit || r.status == solve_status::node_limit ||
                       r.status == solve_status::interrupted;
  if (!stopped || ub_option || floor <= r.lower_bound) return;
  raise_lower_bound(r, floor, "at the root: the two-machine bound over every machine pair (no search needed)");
}

neh_result run_start_heuristic(const instance& inst, const solve_args& a, heuristic_choice heuristic) {
  if (heuristic == heuristic_choice::neh) return neh(inst);
  ig_options ig;
  ig.iterations = a.ig_iterations >= 0 ? a.ig_iterations : auto_ig_iterations(inst);
  ig.seed = static_cast<std::uint32_t>(a.seed);
  if (a.time_limit > 0) ig.seconds = 0.1 * a.time_limit;  // the engine goes on beside the search
  return iterated_greedy(inst, ig);
}

std::optional<int> resolve_ub(const instance& inst, const solve_args& a) {
  switch (a.ub.given) {
    case ub_option::kind::best_known:
      if (!inst.known)
        throw input_error("--ub best-known: " + a.instance_spec +
                          " has no best known makespan (only Taillard's instances ta001..ta120 have one)");
      // A schedule of that makespan exists (Taillard's table): pruning at it keeps every better one.
      return inst.known->ub;
    case ub_option::kind::makespan:
      return a.ub.makespan;
    case ub_option::kind::none:
      break;
  }
  return std::nullopt;
}

lb2_pairs_choice check_lb2_pairs(const instance& inst, const lb2_pairs_option& spec, bound_kind bound,
                                 bool text_checkpoint) {
  PFSP_EXPECTS(spec.mode != lb2_pairs_mode::automatic, "--lb2-pairs auto is resolved before check_lb2_pairs");
  lb2_pairs_choice c;
  c.spec = to_string(spec);
  if (spec.mode == lb2_pairs_mode::all) return c;
  if (bound == bound_kind::lb1)
    throw input_error("--lb2-pairs " + c.spec + " needs --bound lb2 or lb1-lb2 (LB1 has no machine pairs)");
  if (text_checkpoint)
    throw input_error("--lb2-pairs " + c.spec +
                      " cannot be combined with --checkpoint-format text (version 1 does not record the pairs); use "
                      "--checkpoint-format binary");
  if (spec.mode == lb2_pairs_mode::adjacent) {
    c.pairs = bound_data::adjacent_pairs(inst.m);
    return c;
  }
  const int all = inst.m * (inst.m - 1) / 2;
  if (spec.learn > all)
    throw input_error("--lb2-pairs " + c.spec + ": expected learn:K with K in 1.." + std::to_string(all) +
                      " (the instance's machine pairs)");
  c.learn = spec.learn > 0 ? spec.learn : std::max(1, inst.m - 1);
  return c;
}

std::string learn_lb2_pairs(const instance& inst, lb2_pairs_choice& c, int threshold, run_info& info,
                            all_pair_tables* tables) {
  if (c.learn == 0) return {};
  const pair_learning learned = learn_pairs(inst, c.learn, threshold, 10000, tables ? &tables->get() : nullptr);
  c.pairs = learned.pairs;
  info.learn_seconds = learned.seconds;
  std::ostringstream note;
  note << "lb2 pairs learned from " << learned.evaluations << " children in " << std::fixed << std::setprecision(2)
       << learned.seconds << " s:";
  for (std::size_t i = 0; i < c.pairs.size(); ++i)
    note << ' ' << c.pairs[i].first + 1 << '-' << c.pairs[i].second + 1 << " (" << learned.wins[i] << ')';
  return note.str();
}

std::string describe(const lb2_pairs_choice& c) {
  if (c.spec == "all") return "all";
  std::string s = c.spec + ":";
  for (const auto& [k, l] : c.pairs) {
    // Appended piece by piece: g++ 12's -Wrestrict misfires on the chained concatenation here.
    s += ' ';
    s += std::to_string(k + 1);
    s += '-';
    s += std::to_string(l + 1);
  }
  return s;
}

namespace {

// Threads of the incumbent engine beside the search, and the search's own (cpu-mt gives the engine
// a share of --threads; elsewhere it takes cores the search leaves idle).
struct engine_plan {
  int threads = 0;
  int search_threads = 1;
};

// At most 8 engine threads: 15 (12 walkers, the beam on 3) did no better on 100x20 than 8 in 55 s
// (bench/results/2026-11-27-h100-engine15), and the device loop's host threads keep room.
constexpr int kMaxEngineThreads = 8;

engine_plan plan_engine(const instance& inst, const solve_args& a, backend_choice backend, bool device_loop) {
  engine_plan p;
  p.search_threads = a.threads;
  const int cores = usable_cores();   // the affinity mask's: a pinned process sizes for its own cores
  const bool worth_it = inst.n > 20;  // 20 jobs: the start heuristic is (nearly) optimal already
  if (a.improver_threads >= 0) {
    p.threads = a.improver_threads;
  } else if (backend == backend_choice::gpu) {
    // The GPU searches; the host's cores are free but for the loop's own thread(s).
    p.threads = std::clamp(device_loop ? cores - 1 : cores / 2, 0, kMaxEngineThreads);
  } else if (backend == backend_choice::cpu) {
    p.threads = worth_it ? std::clamp(cores - 1, 0, kMaxEngineThreads) : 0;  // the sequential search takes one core
  } else {
    // Auto: where n >= 100 and m >= 20 the search cannot prove without a better incumbent, so every
    // thread runs the engine and the search keeps one (share 1 beat 0.5 on ta101 and ta111 on two
    // pinned cores, bench/results/2026-11-26-h100host-pinned; at 100x20, where the engine's second
    // thread runs the beam search, 0.710 % against 0.966 % over ta081-ta085 and two seeds on the
    // 2-core dev machine, bench/results/2026-11-27-2core-share); half elsewhere when n > 20.
    const bool incumbent_bound = inst.n >= 100 && inst.m >= 20;
    const double share = a.heuristic_share >= 0 ? a.heuristic_share : (incumbent_bound ? 1.0 : worth_it ? 0.5 : 0.0);
    p.threads = static_cast<int>(share * a.threads + 0.5);
    p.search_threads = std::max(1, a.threads - p.threads);
  }
  return p;
}

// The first incumbent: the checkpoint's, the start heuristic's (within a tenth of the time limit)
// or none; --ub when it is lower. Records its source and time in info.
incumbent start_incumbent(const instance& inst, const solve_args& a, heuristic_choice heuristic,
                          const search_state* resumed, const solve_options& opt, run_info& info) {
  incumbent start;
  info.initial_ub_source = "none";
  if (resumed) {
    // The checkpoint's incumbent is at least as good as a fresh heuristic run's start was.
    if (!resumed->best_schedule.empty()) start = incumbent(resumed->best_makespan, resumed->best_schedule);
    info.initial_ub = std::min(resumed->threshold, start.value());
    info.initial_ub_source = "checkpoint";
  } else if (heuristic != heuristic_choice::none) {
    const auto t0 = std::chrono::steady_clock::now();
    const neh_result h = run_start_heuristic(inst, a, heuristic);
    info.heuristic_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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

// --gpu-walkers: -1 (auto) runs them where the search cannot use the whole GPU anyway and the CPU
// walkers are slow: n >= 200 and m >= 15 (200x20, 500x20; measured on one H100: walkers beside the
// device loop cut its rate on ta056 from 60.6 to 3.0 M nodes/s, and at 100x20 eight CPU threads did
// better than the GPU's 264 walkers; docs/decisions/012-incumbent-engine.md); 0 none.
// With the beam on the GPU (use_device_beam) auto runs none: their 50-ms launches held the GPU
// between the beam's kernels, and on 200x20 and 500x20 the beam's cap stayed at 256 within 60 s
// (bench/results/2026-11-27-h100x4-device-beam).
int gpu_walker_count(const instance& inst, const solve_args& a, bool gpu_backend, bool device_beam) {
  if (a.gpu_walkers > 0 && !gpu_backend)
    throw input_error("--gpu-walkers " + std::to_string(a.gpu_walkers) + " needs --backend gpu");
  if (!gpu_backend || a.gpu_walkers == 0 || inst.m > 32 || inst.n < 3) return 0;
  if (a.gpu_walkers < 0)  // -1: the walkers' own default count
    return inst.n >= 200 && inst.m >= 15 && !device_beam ? -1 : 0;
  return a.gpu_walkers;
}

#if defined(PFSP_HAVE_GPU)
std::unique_ptr<gpu::gpu_walkers> start_gpu_walkers(const instance& inst, const solve_args& a, int walkers,
                                                    concurrent_improver* engine) {
  if (walkers == 0 || !engine) return nullptr;
  const auto& ordinals = a.gpu.request.devices.ordinals;
  const int device = ordinals.empty() ? a.gpu.policy.device : ordinals.front();
  gpu::walker_hooks hooks{[engine] { return engine->best_value(); }, [engine] { return engine->best_schedule(); },
                          [engine](const std::vector<int>& s) { engine->publish_external(s); }};
  return std::make_unique<gpu::gpu_walkers>(inst, device, std::max(0, walkers), static_cast<std::uint64_t>(a.seed),
                                            std::move(hooks));
}
#else
struct no_walkers {
  void stop() {}
  int walkers() const { return 0; }
  std::uint64_t rounds() const { return 0; }
};
std::unique_ptr<no_walkers> start_gpu_walkers(const instance&, const solve_args&, int, concurrent_improver*) {
  return nullptr;
}
#endif

// --beam-device: whether the bisecting beam's passes run on the GPU (gpu/device_beam.hpp). Auto:
// on the gpu backend where n >= 100, the sizes where the search cannot prove before the engine
// finds the optimum (decision 012); below, the device loop keeps the GPU to itself.
bool use_device_beam(const instance& inst, const solve_args& a, bool gpu_backend) {
  if (a.beam_on == beam_device::gpu && !gpu_backend)
    throw input_error("--beam-device gpu needs the gpu backend (--backend gpu, or auto on a machine with a GPU)");
  if (a.beam_on == beam_device::gpu && a.beam_aim == beam_target::best)
    throw input_error("--beam-device gpu needs bisected targets (--beam-target bisect or auto)");
  if (a.beam_on == beam_device::cpu || a.beam_aim == beam_target::best || !gpu_backend || a.beam == 0) return false;
#if defined(PFSP_HAVE_GPU)
  if (!gpu::device_beam::available(inst)) return false;
#endif
  return a.beam_on == beam_device::gpu || inst.n >= 100;
}

#if defined(PFSP_HAVE_GPU)
// The bisecting beam's passes on the GPU: the device beam is made on the beam thread at its first
// pass (the CUDA context is being made meanwhile), and a device error hands the passes to the CPU's
// beam (with a message) instead of ending the engine.
// `sharing` counts the GPU passes running, for the device loop to yield to them where its tree is
// hopeless (gpu::gpu_sharing).
void attach_device_beam(beam_plan& plan, const instance& inst, int device, std::shared_ptr<gpu::gpu_sharing> sharing) {
  struct holder {
    std::unique_ptr<gpu::device_beam> gpu;
    std::unique_ptr<beam_search> cpu;
  };
  auto h = std::make_shared<holder>();
  if (sharing) sharing->beam_device.store(device);
  plan.pass = [&inst, device, h, sharing](int width, int target, const std::atomic<bool>* stop,
                                          const std::function<int()>& outside) {
    if (!h->cpu) {
      try {
        if (!h->gpu) h->gpu = std::make_unique<gpu::device_beam>(inst, device);
        struct counted {
          gpu::gpu_sharing* s;
          explicit counted(gpu::gpu_sharing* p) : s(p) {
            if (s) s->beam_passes.fetch_add(1);
          }
          ~counted() {
            if (s) s->beam_passes.fetch_sub(1);
          }
        } running(sharing.get());
        return h->gpu->pass(width, target, stop, outside);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "pfsp: the GPU beam stopped (%s); its passes go on on the CPU\n", e.what());
        h->gpu.reset();
        h->cpu = std::make_unique<beam_search>(inst);
      }
    }
    return h->cpu->pass(std::min(width, h->cpu->memory_width_cap()), target, stop, outside);
  };
  plan.pass_device = "GPU";
  plan.width_ceiling = [h] { return h->gpu ? h->gpu->width_cap() : h->cpu ? h->cpu->memory_width_cap() : 1 << 20; };
}
#endif

// The engine's beam threads and plan: the GPU's passes need one thread to drive them.
// device_beam: use_device_beam's answer.
std::pair<int, beam_plan> engine_beam(const instance& inst, const bound_data& data, const solve_args& a,
                                      const solve_options& opt, int engine_threads, bool device_beam) {
  int threads = engine_beam_threads(inst, a.beam, engine_threads);
  beam_plan plan = engine_beam_plan(data, opt.bound, resolve_beam_target(inst, a.beam_aim, device_beam));
#if defined(PFSP_HAVE_GPU)
  if (device_beam && threads > 0) {
    const auto& ordinals = a.gpu.request.devices.ordinals;
    attach_device_beam(plan, inst, ordinals.empty() ? a.gpu.policy.device : ordinals.front(), a.gpu.policy.sharing);
    threads = 1;
  }
#else
  static_cast<void>(device_beam);
#endif
  return {threads, std::move(plan)};
}

// The GPU walkers stop at the time limit (or Ctrl-C) by themselves, before the search winds down:
// on one H100 their launches held the multiprocessors while the device loop stopped, and ta115
// and ta117 (500x20) ended 1.2-1.4 s past --time-limit 30 with them, within it without them.
template <class Walkers>
std::jthread stop_at_deadline(Walkers* walkers, std::chrono::steady_clock::time_point origin, double time_limit,
                              const std::atomic<bool>* interrupt) {
  if (!walkers || (time_limit <= 0 && !interrupt)) return {};
  const auto until = origin + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  std::chrono::duration<double>(time_limit > 0 ? time_limit : 1e9));
  return std::jthread([walkers, until, interrupt](std::stop_token done) {
    while (!done.stop_requested() && std::chrono::steady_clock::now() < until &&
           !(interrupt && interrupt->load(std::memory_order_relaxed)))
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (!done.stop_requested()) walkers->stop();
  });
}

}  // namespace

namespace {

using clock_type = std::chrono::steady_clock;

// The options every backend reads, from the command line (the backend's defaults come later).
solve_options base_options(const instance& inst, const solve_args& a, clock_type::time_point wall_start,
                           const std::atomic<bool>* interrupt) {
  solve_options opt;
  if (a.bound) opt.bound = *a.bound;
  opt.branch = a.branch.value_or(branching::min_min);
  opt.select = a.select;
  // Best- and breadth-first pools dive past this: a share of what this process may still take
  // (the host, its ulimit -v, its cgroup), at most the default 2 GiB.
  opt.pool_memory = std::min(opt.pool_memory, process_memory_room() / 2);
  opt.order = a.order;
  opt.dominance = a.dominance != dominance_mode::off;
  opt.initial_ub = resolve_ub(inst, a);
  opt.use_neh = !a.no_neh;
  opt.time_limit = a.time_limit;
  opt.time_origin = wall_start;  // the limit counts the start heuristic and the pair learning too
  opt.node_limit = static_cast<std::uint64_t>(a.node_limit);
  opt.progress_interval = a.progress_interval;
  opt.threads = a.threads;
  opt.shared_queue = a.shared_queue;
  opt.profile = a.profile;
  opt.interrupt = interrupt;
  return opt;
}

// --resume (docs/decisions/003-checkpoints.md): the checkpoint, checked against the instance; its
// bound, branching and --ub where the command line gives none. Checks what checkpoints need.
std::optional<search_state> load_resume(const instance& inst, const solve_args& a, solve_options& opt) {
  std::optional<search_state> resumed;
  if (!a.resume.empty()) {
    resumed = read_search_state(a.resume);
    if (!a.bound_given) opt.bound = resumed->bound;
    if (!a.branch_given) opt.branch = resumed->branch;
    if (!a.ub_given) opt.initial_ub = resumed->ub_option;
    check_resumable(*resumed, inst, opt, a.resume);
  }
  const bool checkpointing = !a.checkpoint.empty() || resumed;
  if (checkpointing && opt.select != selection::depth_first)
    throw input_error("--checkpoint and --resume need --selection depth-first");
  if (!a.checkpoint.empty()) check_output_path("--checkpoint", a.checkpoint);  // the Python module's path too
  return resumed;
}

// Which backend and loop run, and the defaults that depend on them.
struct backend_plan {
  backend_choice resolved = backend_choice::cpu;
  std::string name;
  bool gpu = false;
  bool device_loop = false;
  lb2_pairs_option lb2_pairs;
  bool text_checkpoint = false;
};

backend_plan plan_backend(const solve_args& a, const gpu::strategy_params& strategy, int jobs, int machines,
                          bool resumed, solve_options& opt) {
  backend_plan b;
  b.resolved = a.backend;
  if (b.resolved == backend_choice::auto_) b.resolved = gpu_available() ? backend_choice::gpu : backend_choice::cpu_mt;
  b.gpu = b.resolved == backend_choice::gpu;
  b.name = std::string(to_string(b.resolved));
  // Default branching: the fastest measured for each backend (LB1 + MinBranch on the CPU,
  // docs/benchmarks.md; MinMin as measured for the GPU, docs/gpu_backend.md).
  if (!a.branch_given && !resumed) opt.branch = b.gpu ? branching::min_min : branching::min_branch;
  // Default child order: solution-guided on the CPU solvers (measured, decision 014); the bound's
  // on the GPU until the device loop's guided order is measured on a device (it is built and
  // tested on the CPU side only: --child-order incumbent asks for it).
  if (!a.order_given && b.gpu) opt.order = child_order::bound;
#if defined(PFSP_HAVE_GPU)
  if (b.gpu) {
    gpu_cli_options g = a.gpu;
    g.policy.strategy = strategy;
    b.device_loop = gpu_cli_device_loop(g);
  }
#else
  (void)strategy;
#endif
  // Default bound and LB2 pairs: the fastest measured (default_bound, solver_config.hpp); the
  // chain's LB2 over the m-1 pairs learned before the run.
  const bool cpu_solver = !b.gpu;
  if (!a.bound && !resumed)
    opt.bound = cpu_solver ? default_cpu_bound(jobs, machines) : default_bound(b.device_loop, jobs, machines);
  if (a.dominance == dominance_mode::auto_) opt.dominance = default_dominance(b.gpu);
  // Checkpoints record the pairs (binary format): a resumed run evaluates the checkpoint's. The
  // text format cannot record them, so auto does not learn when it writes text.
  b.lb2_pairs = a.lb2_pairs;
  b.text_checkpoint = !a.checkpoint.empty() && a.checkpoint_format == checkpoint_encoding::text;
  if (b.lb2_pairs.mode == lb2_pairs_mode::automatic)
    b.lb2_pairs.mode =
        (b.device_loop || cpu_solver) && opt.bound != bound_kind::lb1 && machines >= 2 && !b.text_checkpoint && !resumed
            ? lb2_pairs_mode::learn
            : lb2_pairs_mode::all;
  if (b.gpu && !gpu_available()) {
#if defined(PFSP_HAVE_GPU)
    throw input_error("--backend gpu: no CUDA device is available on this machine");
#else
    throw input_error("--backend gpu: this pfsp was built without CUDA (nvcc was not found at configure time)");
#endif
  }
  return b;
}

// Checkpoints: a failed periodic write is a warning (the search goes on, the previous file is
// intact); a failed final write is an error after the result has been printed.
class checkpoint_writer {
 public:
  void attach(const solve_args& a, const solve_hooks& hooks, solve_options& opt) {
    if (a.checkpoint.empty()) return;
    opt.checkpoint_interval = a.checkpoint_interval;
    opt.on_checkpoint = [this, &a, &hooks](const search_state& s) { write(a, hooks, s); };
  }

  void add_notes(const solve_args& a, solve_result& r) const {
    if (!a.checkpoint.empty() && last_ok_)
      r.notes.push_back(
          "checkpoint written to " + a.checkpoint +
          (r.status == solve_status::optimal || r.status == solve_status::proven_bound
               ? std::string(" (search complete)")
               : " (" + std::to_string(last_open_) + " open nodes; continue with --resume " + a.checkpoint + ")"));
    if (writes_ > 0) {
      std::ostringstream note;
      note << std::fixed << std::setprecision(3) << writes_ << " checkpoint" << (writes_ > 1 ? "s" : "")
           << " serialized and written in " << seconds_ << " s (the last, " << last_open_ << " open nodes, in "
           << last_seconds_ << " s)";
      r.notes.push_back(note.str());
    }
  }

  std::string error(const solve_args& a) const {
    return last_ok_ ? std::string()
                    : "--checkpoint " + a.checkpoint + ": the final state was not saved: " + last_error_;
  }

 private:
  void write(const solve_args& a, const solve_hooks& hooks, const search_state& s) {
    try {
      const auto t0 = clock_type::now();
      write_file_atomically(a.checkpoint, a.checkpoint_format == checkpoint_encoding::text ? to_text(s) : to_binary(s));
      last_seconds_ = std::chrono::duration<double>(clock_type::now() - t0).count();
      seconds_ += last_seconds_;
      ++writes_;
      last_ok_ = true;
      last_open_ = s.open();
    } catch (const std::exception& e) {
      last_ok_ = false;
      last_error_ = e.what();
      if (hooks.on_warning) hooks.on_warning(std::string("checkpoint not written: ") + e.what());
    }
  }

  bool last_ok_ = true;
  std::size_t last_open_ = 0;
  int writes_ = 0;           // checkpoints written
  double seconds_ = 0;       // serializing and writing them (the solver's pause is longer: it
  double last_seconds_ = 0;  // also gathers the state)
  std::string last_error_;
};

// LB2's machine pairs: the checkpoint's (which --lb2-pairs, if given, must describe: learned pairs
// are not learned again, the learning's start is not the checkpoint's), all, Nabeshima's adjacent
// ones, or a subset learned by a short search (its note in `note`).
std::vector<std::pair<int, int>> choose_pairs(const instance& inst, const solve_args& a, const backend_plan& b,
                                              const search_state* resumed, const solve_options& opt,
                                              const incumbent& start, run_info& info, std::string& note,
                                              all_pair_tables& tables) {
  std::vector<std::pair<int, int>> pairs;
  if (resumed && opt.bound != bound_kind::lb1) {
    pairs = resumed->lb2_pairs;
    const lb2_pairs_option& given = a.lb2_pairs;
    if (a.lb2_pairs_given && given.mode != lb2_pairs_mode::automatic) {
      const std::size_t all = static_cast<std::size_t>(inst.m) * static_cast<std::size_t>(inst.m - 1) / 2;
      const std::size_t want = static_cast<std::size_t>(given.learn > 0 ? given.learn : std::max(1, inst.m - 1));
      const bool match = given.mode == lb2_pairs_mode::all ? pairs.empty()
                         : given.mode == lb2_pairs_mode::adjacent
                             ? pairs == bound_data::adjacent_pairs(inst.m)
                             : (pairs.empty() ? want >= all : pairs.size() == want);
      if (!match)
        throw file_error(a.resume, 0,
                         "cannot resume: the checkpoint was made with LB2 machine pairs " +
                             describe_lb2_pairs(pairs, inst.m) + ", this run asks for --lb2-pairs " + to_string(given));
    }
    if (b.text_checkpoint && !pairs.empty())
      throw input_error("--checkpoint-format text cannot record the checkpoint's LB2 machine pairs (" +
                        describe_lb2_pairs(pairs, inst.m) + "); use --checkpoint-format binary");
    if (!pairs.empty()) info.lb2_pairs = describe(lb2_pairs_choice{"checkpoint", pairs, 0});
  } else if (b.lb2_pairs.mode != lb2_pairs_mode::all) {
    lb2_pairs_choice c = check_lb2_pairs(inst, b.lb2_pairs, opt.bound, b.text_checkpoint);
    note = learn_lb2_pairs(inst, c, initial_threshold(opt, start), info, &tables);
    pairs = c.pairs;
    info.lb2_pairs = describe(c);
  }
  return pairs;
}

// The incumbent engine beside the search, every backend (heuristic/improver.hpp), with its GPU
// walkers on the gpu backend (gpu/walkers.hpp); finish() stops both and reports.
struct running_engine {
  std::unique_ptr<concurrent_improver> improver;
  decltype(start_gpu_walkers(std::declval<const instance&>(), std::declval<const solve_args&>(), 0, nullptr)) walkers;
  std::jthread deadline;
  int threads = 0;

  running_engine(const instance& inst, const bound_data& data, const solve_args& a, const solve_options& opt,
                 const engine_plan& plan, int gpu_walkers, bool device_beam, bool complete, const incumbent& start,
                 clock_type::time_point wall_start)
      : threads(plan.threads) {
    if ((plan.threads > 0 || gpu_walkers != 0) && !complete) {
      auto [beam_threads, beam] = engine_beam(inst, data, a, opt, plan.threads, device_beam);
      improver = std::make_unique<concurrent_improver>(inst, start.schedule(), plan.threads,
                                                       static_cast<std::uint32_t>(a.seed), walk_options{}, beam_threads,
                                                       std::move(beam));
    }
    walkers = start_gpu_walkers(inst, a, gpu_walkers, improver.get());
    deadline = stop_at_deadline(walkers.get(), wall_start, a.time_limit, opt.interrupt);
  }

  void finish(const instance& inst, solve_result& r) {
    if (deadline.joinable()) {
      deadline.request_stop();
      deadline.join();
    }
    if (walkers) {
      walkers->stop();
      r.notes.push_back("incumbent engine on the GPU: " + std::to_string(walkers->walkers()) + " walkers, " +
                        std::to_string(walkers->rounds()) + " rounds, " +
                        std::to_string(improver->external_improvements()) + " improvements");
    }
    if (!improver) return;
    improver->stop();
    r.notes.push_back("incumbent engine: " + improver->summary());
    // The engine's best may be better than the schedule the search reports and still not below
    // the initial upper bound (--ub), where the search never takes it: reported instead
    // (re-evaluated like every schedule).
    if (improver->best_value() < (r.schedule.empty() ? INT_MAX : r.makespan)) {
      r.schedule = improver->best_schedule();
      r.makespan = evaluate_schedule(inst, r.schedule);
      r.notes.push_back("the schedule is the incumbent engine's best (not below the initial upper bound)");
    }
    take_engine_bound(*improver, r);
  }
};

// The progress rows' lower bound raised to the incumbent engine's (its probes' closed searches), as
// the summary's is (take_engine_bound): the search's own open nodes may hold an older, lower one
// for the whole run (a depth-first stack's bottom).
std::function<void(const progress_info&)> with_engine_bound(const concurrent_improver& engine,
                                                            std::function<void(const progress_info&)> report) {
  if (!report) return report;
  return [&engine, report = std::move(report)](const progress_info& p) {
    progress_info q = p;
    const int lower = engine.lower_bound();
    if (q.global_lb >= 0 && lower > q.global_lb) q.global_lb = std::min(lower, q.best);
    report(q);
  };
}

// The progress rows' lower bound raised to the root floor, as the summary's is (take_root_floor).
std::function<void(const progress_info&)> with_floor(int floor, std::function<void(const progress_info&)> report) {
  if (!report || floor <= 0) return report;
  return [floor, report = std::move(report)](const progress_info& p) {
    progress_info q = p;
    if (q.global_lb >= 0 && floor > q.global_lb) q.global_lb = std::min(floor, q.best);
    report(q);
  };
}

// The solve's wall time in named steps (run_info::wall_phases): each mark closes the step since the
// previous one.
struct phase_clock {
  clock_type::time_point last;
  std::vector<std::pair<std::string, double>>* out;
  void mark(const char* name) {
    const auto now = clock_type::now();
    out->emplace_back(name, std::chrono::duration<double>(now - last).count());
    last = now;
  }
};

// --memo for the CPU solvers (the GPU's device loop has none): the MiB a thread given, or auto's.
std::size_t memo_bytes(const solve_args& a, const backend_plan& b, const instance& inst, int threads) {
  if (b.gpu) return 0;
  const int mib = a.memo_mb >= 0 ? a.memo_mb : default_memo_mb(false, inst.n, inst.m, threads);
  return static_cast<std::size_t>(mib) << 20;
}

// The search itself: the backend's registered solver, or a complete checkpoint's result.
solve_result run_search(const bound_data& data, const solve_args& a, const backend_plan& b,
                        const gpu::strategy_params& strategy, const search_state* resumed, solve_options& opt,
                        const incumbent& start) {
  if (resumed) opt.resume = resumed;
  if (resumed && resumed->complete) {
    // Nothing left to explore: the checkpoint's result is final.
    solve_result r = finish_result(solve_status::optimal, start, resumed->threshold, INT_MAX, resumed->stats,
                                   resumed->stats.total_seconds);
    r.backend = resumed->backend;
    if (opt.on_checkpoint) opt.on_checkpoint(*resumed);
    return r;
  }
  // The backend's entry in the registry (solver_registry.hpp); gpu without CUDA was refused before.
  const solver_entry* solver = solver_for_backend(b.name, b.device_loop ? gpu_loop::device : gpu_loop::host);
  PFSP_EXPECTS(solver != nullptr, "no registered solver for --backend " + b.name);
  gpu_cli_options g = a.gpu;
  g.policy.strategy = strategy;
  return solve(*solver, data, opt, start, g);
}

// The search, or with --ascent the ascent's steps (app/ascent.hpp), each through run_search from
// scratch; each bound a step proves goes to the incumbent engine (null: none), whose bisecting
// beam then aims at or above it.
solve_result search_or_ascend(const bound_data& data, const solve_args& a, const backend_plan& b,
                              const gpu::strategy_params& strategy, const search_state* resumed, solve_options& opt,
                              const incumbent& start, concurrent_improver* engine) {
  if (a.ascent <= 0) return run_search(data, a, b, strategy, resumed, opt, start);
  const ascent_search step = [&](solve_options& o, const incumbent& from) {
    return run_search(data, a, b, strategy, nullptr, o, from);
  };
  return run_ascent(step, opt, start, a.ascent, [engine](int L) {
    if (engine) engine->raise_lower_bound(L);
  });
}

// Exactness: the schedule's makespan is recomputed from scratch before it is printed.
void check_schedule(const instance& inst, const solve_result& r) {
  if (r.schedule.empty()) return;
  const int check = evaluate_schedule(inst, r.schedule);
  if (check != r.makespan)
    throw error("internal error: reported makespan " + std::to_string(r.makespan) + " but the schedule evaluates to " +
                std::to_string(check));
}

// The GPU's context, created on a thread while the host computes the start heuristic and learns
// the pairs (about 0.2 s on the H100 machine, docs/benchmarks.md "Fixed cost"); none without a
// GPU backend. Joined by wait() before the search, or when it goes out of scope.
class context_thread {
 public:
  context_thread(const solve_args& a, const backend_plan& b) {
#if defined(PFSP_HAVE_GPU)
    if (b.gpu) thread_ = std::thread([&a] { gpu_cli_warm_up(a.gpu); });
#else
    (void)a;
    (void)b;
#endif
  }
  ~context_thread() {
    if (thread_.joinable()) thread_.join();
  }
  context_thread(const context_thread&) = delete;
  context_thread& operator=(const context_thread&) = delete;
  double wait() {  // joins the thread; the seconds waited (0 without one)
    if (!thread_.joinable()) return 0;
    const auto t0 = clock_type::now();
    thread_.join();
    return std::chrono::duration<double>(clock_type::now() - t0).count();
  }

 private:
  std::thread thread_;
};

// auto: NEH where the engine runs beside the search anyway (the device loop's improver threads:
// ta021-ta030 prove in 6.1 s of wall time from NEH against 9.1 s from a 0.4 s IG start,
// docs/benchmarks.md), IG before the search elsewhere.
heuristic_choice start_heuristic(const solve_args& a, const engine_plan& engine) {
  const heuristic_choice h = a.no_neh ? heuristic_choice::none : a.heuristic;
  if (h != heuristic_choice::auto_) return h;
  return engine.threads > 0 ? heuristic_choice::neh : heuristic_choice::ig;
}

std::string resumed_note(const solve_args& a, const search_state& resumed) {
  return "resumed from " + a.resume + " (" + std::to_string(resumed.stats.branched) + " nodes branched before" +
         (resumed.complete ? "; the search was already complete" : "") + ")";
}

// The outcome, its options cut loose from this call's hooks, interrupt flag, checkpoint and feed.
solve_outcome outcome(solve_options opt, solve_result r, run_info info, std::string checkpoint_error) {
  opt.interrupt = nullptr;
  opt.on_progress = nullptr;
  opt.on_checkpoint = nullptr;
  opt.resume = nullptr;
  opt.feed = nullptr;
  solve_outcome o;
  o.opt = std::move(opt);
  o.result = std::move(r);
  o.info = std::move(info);
  o.checkpoint_error = std::move(checkpoint_error);
  return o;
}

run_info initial_info(const solve_args& a, const backend_plan& b) {
  run_info info;
  info.backend_opt = b.name;
  info.threads = a.threads;
  info.resume_file = a.resume;
  info.checkpoint_file = a.checkpoint;
  info.instance_spec = a.instance_spec;
  return info;
}

}  // namespace

solve_outcome solve_instance(const instance& inst, const solve_args& a, const solve_hooks& hooks,
                             const std::atomic<bool>* interrupt) {
  const gpu::strategy_params strategy = gpu::parse_strategy(to_string(a.gpu_strategy), a.strategy_params);
  const auto wall_start = clock_type::now();
  check_ascent(a);
  solve_options opt = base_options(inst, a, wall_start, interrupt);
  std::optional<search_state> resumed = load_resume(inst, a, opt);
  const search_state* resume = resumed ? &*resumed : nullptr;
  if (hooks.on_checked) hooks.on_checked();
  opt.on_progress = hooks.on_progress;
  const backend_plan b = plan_backend(a, strategy, inst.n, inst.m, resume != nullptr, opt);
  const bool device_beam = use_device_beam(inst, a, b.gpu);
  const int walkers = gpu_walker_count(inst, a, b.gpu, device_beam);
  context_thread context(a, b);

  run_info info = initial_info(a, b);
  phase_clock phases{wall_start, &info.wall_phases};
  const engine_plan engine = plan_engine(inst, a, b.resolved, b.device_loop);
  opt.threads = engine.search_threads;
  opt.memo_bytes = memo_bytes(a, b, inst, opt.threads);
  const heuristic_choice heuristic = start_heuristic(a, engine);
  opt.use_neh = heuristic != heuristic_choice::none;
  const incumbent start = start_incumbent(inst, a, heuristic, resume, opt, info);
  phases.mark("start");
  if (hooks.on_start) hooks.on_start(solve_plan{b.name, opt, info, resume, b.device_loop});

  checkpoint_writer checkpoints;
  checkpoints.attach(a, hooks, opt);
  std::string pair_note;
  all_pair_tables tables{inst, std::nullopt};  // built once, if the pair learning or the root floor needs them
  const bound_data data(inst, choose_pairs(inst, a, b, resume, opt, start, info, pair_note, tables));
  phases.mark("pairs");
  if (hooks.on_search) hooks.on_search(solve_plan{b.name, opt, info, resume, b.device_loop, &data});
  running_engine beside(inst, data, a, opt, engine, walkers, device_beam, resume && resume->complete, start,
                        wall_start);
  if (beside.improver) {
    opt.feed = beside.improver.get();
    info.engine_threads = engine.threads;
    opt.on_progress = with_engine_bound(*beside.improver, std::move(opt.on_progress));
  }
  phases.mark("engine");
  info.context_wait_seconds = context.wait();
  phases.mark("context");
  const int floor = root_floor(inst, a.time_limit, tables);
  if (!opt.initial_ub) opt.on_progress = with_floor(floor, std::move(opt.on_progress));
  phases.mark("floor");
  solve_result r = search_or_ascend(data, a, b, strategy, resume, opt, start, beside.improver.get());
  phases.mark("search");
  beside.finish(inst, r);
  take_root_floor(floor, opt.initial_ub, r);
  if (!pair_note.empty()) r.notes.insert(r.notes.begin(), pair_note);
  check_schedule(inst, r);
  phases.mark("finish");
  info.wall_seconds = std::chrono::duration<double>(clock_type::now() - wall_start).count();
  if (resumed) r.notes.push_back(resumed_note(a, *resumed));
  if (b.gpu && !a.gpu.visible.empty())
    r.notes.push_back("devices: CUDA_VISIBLE_DEVICES=" + a.gpu.visible +
                      " for this process (the GPUs it uses, each numbered by its place in that list)");
  checkpoints.add_notes(a, r);
  return outcome(std::move(opt), std::move(r), std::move(info), checkpoints.error(a));
}

}  // namespace pfsp

#include "app/cli.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>
#include <thread>

#include "app/gantt_cli.hpp"
#include "app/solver_log.hpp"
#include "base/error.hpp"
#include "bound/bound_data.hpp"
#include "bound/pair_learning.hpp"
#include "cpu/parallel.hpp"
#include "gpu/strategy.hpp"
#include "heuristic/improver.hpp"
#include "heuristic/iterated_greedy.hpp"
#include "heuristic/neh.hpp"
#include "problem/io.hpp"
#include "search/checkpoint.hpp"
#include "search/expander.hpp"
#include "search/sequential.hpp"
#if defined(PFSP_HAVE_GPU)
#include "app/gpu_cli.hpp"
#endif

namespace pfsp {
namespace {

const std::map<std::string, bound_kind> bound_names{
    {"lb1", bound_kind::lb1}, {"lb2", bound_kind::lb2}, {"lb1-lb2", bound_kind::lb1_lb2}};
const std::map<std::string, branching> branching_names{{"forward", branching::forward},
                                                       {"backward", branching::backward},
                                                       {"min-branch", branching::min_branch},
                                                       {"min-min", branching::min_min}};
const std::map<std::string, selection> selection_names{{"depth-first", selection::depth_first},
                                                       {"breadth-first", selection::breadth_first},
                                                       {"best-first", selection::best_first}};

int default_threads() {
  const unsigned h = std::thread::hardware_concurrency();
  return h == 0 ? 1 : static_cast<int>(h);
}

std::string join_args(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) s += (i ? " " : "") + std::string(argv[i]);
  return s;
}

bool gpu_available() {
#if defined(PFSP_HAVE_GPU)
  return gpu_cli_available();
#else
  return false;
#endif
}

struct solve_args {
  std::string instance_spec;
  std::string backend = "auto";
  int threads = default_threads();
  std::string bound = "auto";      // auto: lb1-lb2 on the GPU device loop, lb1 elsewhere
  std::string lb2_pairs = "auto";  // all | adjacent | learn[:K] | auto (learn on the GPU device loop)
  int improver_threads = -1;       // -1: auto (the GPU backend: the cores but one, at most 8; else 0)
  std::string branch = "min-min";
  std::string select = "depth-first";
  std::string ub;  // --ub: a makespan, or best-known (the CSV's best upper bound of a named instance)
  bool no_neh = false;
  std::string heuristic = "auto";
  int ig_iterations = -1;  // auto
  double time_limit = 0;
  long long node_limit = 0;
  std::string json;
  std::string gantt;  // --gantt FILE.svg
  std::string log;    // --log FILE: the solver log (docs/solver_log.md)
  bool quiet = false;
  bool no_progress = false;
  bool profile = false;
  bool shared_queue = false;
  std::string checkpoint;
  std::string checkpoint_format = "binary";  // binary (version 2) | text (version 1)
  double checkpoint_interval = 60;
  double progress_interval = 1.0;
  std::string resume;
  std::string gpu_strategy = "plain";  // validated in every build (gpu/strategy.hpp)
  std::string strategy_params;
  // Given on the command line (with --resume, those not given come from the checkpoint).
  bool bound_given = false;
  bool branch_given = false;
  bool ub_given = false;
  bool lb2_pairs_given = false;
};

void print_header(std::ostream& out, const instance& inst) {
  out << "instance     " << inst.name << "  (" << inst.n << " jobs x " << inst.m << " machines)";
  if (inst.known)
    out << "  best known " << inst.known->ub
        << (inst.known->optimal ? " (optimal)" : " (open, lb " + std::to_string(inst.known->lb) + ")");
  out << '\n';
}

solver_log_setup log_setup(const instance& inst, const solve_options& opt, const run_info& info,
                           const std::string& backend, const solve_args& a, bool device_loop, double heuristic_seconds,
                           bool resumed) {
  solver_log_setup s;
  s.version = PFSP_VERSION;
  s.commit = git_commit();
  s.instance = inst.name;
  s.n = inst.n;
  s.m = inst.m;
  if (inst.known)
    s.best_known = std::to_string(inst.known->ub) +
                   (inst.known->optimal ? ", optimal" : ", open, lb " + std::to_string(inst.known->lb));
  s.backend = backend + (backend == "cpu-mt" || backend == "gpu" ? ", " + std::to_string(a.threads) + " threads" : "") +
              (backend == "gpu" ? (device_loop ? ", device loop" : ", host loop") : "");
  s.bound = std::string(to_string(opt.bound));
  s.lb2_pairs = info.lb2_pairs;
  s.branching = std::string(to_string(opt.branch));
  s.selection = a.select;
  std::ostringstream ub;
  if (info.initial_ub) {
    ub << info.initial_ub << " (" << info.initial_ub_source;
    if (info.initial_ub_source != "--ub" && !resumed)
      ub << ", " << std::fixed << std::setprecision(3) << heuristic_seconds << " s";
    ub << ")";
  } else {
    ub << "none";
  }
  s.initial_ub = ub.str();
  s.time_limit = opt.time_limit;
  s.node_limit = opt.node_limit;
  s.interval = opt.progress_interval;
  s.tree_estimate = device_loop;
  return s;
}

int do_solve(const solve_args& a, const std::string& command, std::ostream& out, std::ostream& err,
             const std::atomic<bool>* interrupt
#if defined(PFSP_HAVE_GPU)
             ,
             const gpu_cli_options& gpu_args
#endif
) {
  const gpu::strategy_params strategy = gpu::parse_strategy(a.gpu_strategy, a.strategy_params);
  const instance inst = load_instance(a.instance_spec);
  const auto wall_start = std::chrono::steady_clock::now();
  solve_options opt;
  if (a.bound != "auto") opt.bound = bound_names.at(a.bound);
  opt.branch = branching_names.at(a.branch);
  opt.select = selection_names.at(a.select);
  if (a.ub == "best-known") {
    if (!inst.known)
      throw input_error("--ub best-known: " + a.instance_spec +
                        " has no best known makespan (only Taillard's instances ta001..ta120 have one)");
    // A schedule of that makespan exists (Taillard's table): pruning at it keeps every better one.
    opt.initial_ub = inst.known->ub;
  } else if (!a.ub.empty()) {
    long long v = 0;
    std::size_t used = 0;
    try {
      v = std::stoll(a.ub, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != a.ub.size() || v < 1 || v > 2000000000LL)
      throw input_error("--ub " + a.ub + ": expected a makespan in 1..2000000000 or best-known");
    opt.initial_ub = static_cast<int>(v);
  }
  opt.use_neh = !a.no_neh;
  opt.time_limit = a.time_limit;
  opt.node_limit = static_cast<std::uint64_t>(a.node_limit);
  opt.progress_interval = a.progress_interval;
  opt.threads = a.threads;
  opt.shared_queue = a.shared_queue;
  opt.profile = a.profile;
  opt.interrupt = interrupt;

  // Checkpoint/restart (docs/decisions/003-checkpoints.md).
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
  if (!a.checkpoint.empty()) {
    const std::filesystem::path parent = std::filesystem::path(a.checkpoint).parent_path();
    std::error_code ec;
    if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
      throw input_error("--checkpoint " + a.checkpoint + ": directory '" + parent.string() + "' does not exist");
  }

  // The solver log (docs/solver_log.md): on stderr unless --quiet or --no-progress (stdout has
  // the result either way), and in full to --log FILE.
  if (!a.gantt.empty()) check_output_directory("--gantt", a.gantt);
  solver_log log(a.quiet || a.no_progress ? nullptr : &err, a.log);
  if (log.active()) opt.on_progress = [&log](const progress_info& p) { log.row(p); };

  std::string backend = a.backend;
  if (backend == "auto") backend = gpu_available() ? "gpu" : "cpu-mt";
  // Default branching: the fastest measured for each backend (LB1 + MinBranch on the CPU,
  // docs/benchmarks.md; MinMin as measured for the GPU, docs/gpu_backend.md).
  if (!a.branch_given && !resumed) opt.branch = backend == "gpu" ? branching::min_min : branching::min_branch;
  // Default bound and LB2 pairs: the fastest measured (docs/benchmarks.md): LB1 on the CPU and
  // the host loop; on the GPU device loop the LB1 -> LB2 chain over the m-1 pairs learned before
  // the run (ta021-ta030: about half LB1's time to proof; 50x20: the same tree share closed in a
  // slice, a global lower bound as high or higher).
  bool device_loop = false;
#if defined(PFSP_HAVE_GPU)
  if (backend == "gpu") {
    gpu_cli_options g = gpu_args;
    g.strategy = strategy;
    device_loop = gpu_cli_device_loop(g);
  }
#endif
  if (a.bound == "auto" && !resumed) opt.bound = device_loop ? bound_kind::lb1_lb2 : bound_kind::lb1;
  // Checkpoints record the pairs (binary format): a resumed run evaluates the checkpoint's. The
  // text format cannot record them, so auto does not learn when it writes text.
  const bool text_checkpoint = !a.checkpoint.empty() && a.checkpoint_format == "text";
  std::string lb2_pairs = a.lb2_pairs;
  if (lb2_pairs == "auto")
    lb2_pairs = device_loop && opt.bound != bound_kind::lb1 && !text_checkpoint && !resumed ? "learn" : "all";
  if (backend == "gpu" && !gpu_available()) {
#if defined(PFSP_HAVE_GPU)
    throw input_error("--backend gpu: no CUDA device is available on this machine");
#else
    throw input_error("--backend gpu: this pfsp was built without CUDA (nvcc was not found at configure time)");
#endif
  }

  // The GPU's context is created on a thread while the host computes the start heuristic
  // (about 0.1 s on an H200 that would otherwise count in the solve's time).
  std::thread gpu_warm_up;
#if defined(PFSP_HAVE_GPU)
  if (backend == "gpu") gpu_warm_up = std::thread([&gpu_args] { gpu_cli_warm_up(gpu_args); });
#endif
  struct joiner {
    std::thread& t;
    ~joiner() {
      if (t.joinable()) t.join();
    }
  } join_warm_up{gpu_warm_up};

  run_info info;
  info.command = command;
  info.backend_opt = backend;
  info.threads = a.threads;
  info.resume_file = a.resume;
  info.checkpoint_file = a.checkpoint;
  info.instance_spec = a.instance_spec;
  incumbent start;
  info.initial_ub_source = "none";
  int improvers = a.improver_threads;
  if (improvers < 0)
    improvers = device_loop ? std::clamp(static_cast<int>(std::thread::hardware_concurrency()) - 1, 0, 8) : 0;
  // auto: NEH where iterated greedy runs beside the search anyway (the device loop's improver
  // threads: ta021-ta030 prove in 6.1 s of wall time from NEH against 9.1 s from a 0.4 s IG
  // start, docs/benchmarks.md), IG before the search elsewhere.
  std::string heuristic = a.no_neh ? "none" : a.heuristic;
  if (heuristic == "auto") heuristic = improvers > 0 ? "neh" : "ig";
  opt.use_neh = heuristic != "none";
  double heuristic_seconds = 0;
  if (resumed) {
    // The checkpoint's incumbent is at least as good as a fresh heuristic run's start was.
    if (!resumed->best_schedule.empty()) start = incumbent(resumed->best_makespan, resumed->best_schedule);
    info.initial_ub = std::min(resumed->threshold, start.value());
    info.initial_ub_source = "checkpoint";
  } else if (heuristic != "none") {
    const auto t0 = std::chrono::steady_clock::now();
    ig_options ig;
    ig.iterations = a.ig_iterations >= 0 ? a.ig_iterations : auto_ig_iterations(inst);
    const neh_result h = heuristic == "ig" ? iterated_greedy(inst, ig) : neh(inst);
    heuristic_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    info.heuristic_seconds = heuristic_seconds;
    start = incumbent(h.makespan, h.schedule);
    info.initial_ub = h.makespan;
    info.initial_ub_source = heuristic;
  }
  if (!resumed && opt.initial_ub && (info.initial_ub == 0 || *opt.initial_ub < info.initial_ub)) {
    info.initial_ub = *opt.initial_ub;
    info.initial_ub_source = "--ub";
  }

  if (!a.quiet) {
    print_header(out, inst);
    out << "options      backend " << backend
        << (backend == "cpu-mt" ? " (" + std::to_string(a.threads) + " threads)" : "") << ", bound "
        << to_string(opt.bound) << ", branching " << to_string(opt.branch) << ", selection " << a.select
        << ", initial ub ";
    if (info.initial_ub)
      out << info.initial_ub << " (" << info.initial_ub_source
          << (info.initial_ub_source == "--ub" || resumed
                  ? std::string()
                  : ", " + std::to_string(heuristic_seconds).substr(0, 5) + " s")
          << ")";
    else
      out << "none";
    out << '\n';
    if (resumed)
      out << "resume       " << a.resume << ": " << resumed->open() << " open nodes, " << resumed->stats.branched
          << " nodes branched in " << std::fixed << std::setprecision(1) << resumed->stats.total_seconds << " s before"
          << (resumed->complete ? " (search complete)" : "") << '\n'
          << std::defaultfloat;
    out << std::flush;
  }

  // Checkpoints: a failed periodic write is a warning (the search goes on, the previous file is
  // intact); a failed final write is an error after the result has been printed.
  bool last_write_ok = true;
  std::size_t last_open = 0;
  std::string last_write_error;
  if (!a.checkpoint.empty()) {
    opt.checkpoint_interval = a.checkpoint_interval;
    opt.on_checkpoint = [&](const search_state& s) {
      try {
        write_file_atomically(a.checkpoint, a.checkpoint_format == "text" ? to_text(s) : to_binary(s));
        last_write_ok = true;
        last_open = s.open();
      } catch (const std::exception& e) {
        last_write_ok = false;
        last_write_error = e.what();
        err << "pfsp: warning: checkpoint not written: " << e.what() << '\n' << std::flush;
      }
    };
  }

  // LB2's machine pairs: all, Nabeshima's adjacent ones, or a subset learned by a short search.
  std::vector<std::pair<int, int>> pairs;
  std::string pair_note;
  if (resumed && opt.bound != bound_kind::lb1) {
    // The checkpoint's pairs, which --lb2-pairs, if given, must describe (learned pairs are not
    // learned again: the learning's start, the heuristic's schedule, is not the checkpoint's).
    pairs = resumed->lb2_pairs;
    if (a.lb2_pairs_given && a.lb2_pairs != "auto") {
      const std::size_t all = static_cast<std::size_t>(inst.m) * static_cast<std::size_t>(inst.m - 1) / 2;
      std::size_t want = static_cast<std::size_t>(std::max(1, inst.m - 1));
      if (a.lb2_pairs.rfind("learn:", 0) == 0) want = std::strtoull(a.lb2_pairs.c_str() + 6, nullptr, 10);
      const bool match = a.lb2_pairs == "all"        ? pairs.empty()
                         : a.lb2_pairs == "adjacent" ? pairs == bound_data::adjacent_pairs(inst.m)
                                                     : (pairs.empty() ? want >= all : pairs.size() == want);
      if (!match)
        throw file_error(a.resume, 0,
                         "cannot resume: the checkpoint was made with LB2 machine pairs " +
                             describe_lb2_pairs(pairs, inst.m) + ", this run asks for --lb2-pairs " + a.lb2_pairs);
    }
    if (text_checkpoint && !pairs.empty())
      throw input_error("--checkpoint-format text cannot record the checkpoint's LB2 machine pairs (" +
                        describe_lb2_pairs(pairs, inst.m) + "); use --checkpoint-format binary");
    if (!pairs.empty()) {
      info.lb2_pairs = "checkpoint:";
      for (const auto& [k, l] : pairs) info.lb2_pairs += " " + std::to_string(k + 1) + "-" + std::to_string(l + 1);
    }
  } else if (lb2_pairs != "all") {
    if (opt.bound == bound_kind::lb1)
      throw input_error("--lb2-pairs " + lb2_pairs + " needs --bound lb2 or lb1-lb2 (LB1 has no machine pairs)");
    if (text_checkpoint)
      throw input_error("--lb2-pairs " + lb2_pairs +
                        " cannot be combined with --checkpoint-format text (version 1 does not record the pairs); use "
                        "--checkpoint-format binary");
    if (lb2_pairs == "adjacent") {
      pairs = bound_data::adjacent_pairs(inst.m);
    } else {
      int k = std::max(1, inst.m - 1);
      if (lb2_pairs.size() > 6) {
        const std::string ks = lb2_pairs.substr(6);
        std::size_t used = 0;
        try {
          k = std::stoi(ks, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != ks.size() || k < 1 || k > inst.m * (inst.m - 1) / 2)
          throw input_error("--lb2-pairs " + lb2_pairs + ": expected learn:K with K in 1.." +
                            std::to_string(inst.m * (inst.m - 1) / 2) + " (the instance's machine pairs)");
      }
      const pair_learning learned = learn_pairs(inst, k, initial_threshold(opt, start));
      pairs = learned.pairs;
      info.learn_seconds = learned.seconds;
      std::ostringstream note;
      note << "lb2 pairs learned from " << learned.evaluations << " children in " << std::fixed << std::setprecision(2)
           << learned.seconds << " s:";
      for (std::size_t i = 0; i < pairs.size(); ++i)
        note << ' ' << pairs[i].first + 1 << '-' << pairs[i].second + 1 << " (" << learned.wins[i] << ')';
      pair_note = note.str();
    }
    info.lb2_pairs = lb2_pairs + ":";
    for (const auto& [k, l] : pairs) info.lb2_pairs += " " + std::to_string(k + 1) + "-" + std::to_string(l + 1);
  }
  const bound_data data(inst, pairs);
  log.header(log_setup(inst, opt, info, backend, a, device_loop, heuristic_seconds, resumed.has_value()));
  // Iterated greedy on the idle CPU cores while the GPU searches (heuristic/improver.hpp).
  if (improvers > 0 && !device_loop)
    throw input_error(
        "--improver-threads runs beside the GPU device loop only (the CPU backends and the host loop use the cores)");
  std::unique_ptr<concurrent_improver> improver;
  if (improvers > 0 && !(resumed && resumed->complete)) {
    improver = std::make_unique<concurrent_improver>(inst, start.schedule(), improvers);
    opt.feed = improver.get();
  }
  solve_result r;
  if (resumed) opt.resume = &*resumed;
  if (resumed && resumed->complete) {
    // Nothing left to explore: the checkpoint's result is final.
    r = finish_result(solve_status::optimal, start, resumed->threshold, INT_MAX, resumed->stats,
                      resumed->stats.total_seconds);
    r.backend = resumed->backend;
    if (opt.on_checkpoint) opt.on_checkpoint(*resumed);
  } else if (backend == "cpu") {
    r = solve_sequential(data, opt, start);
  } else if (backend == "cpu-mt") {
    r = solve_parallel(data, opt, start);
  } else {
#if defined(PFSP_HAVE_GPU)
    if (gpu_warm_up.joinable()) gpu_warm_up.join();
    gpu_cli_options g = gpu_args;
    g.strategy = strategy;
    r = gpu_cli_solve(data, opt, g, start);
#else
    (void)strategy;
#endif
  }

  if (improver) {
    improver->stop();
    // The improver threads' best may be better than the schedule the search reports and still not
    // below the initial upper bound (--ub), where the search never takes it: reported instead
    // (re-evaluated below like every schedule).
    if (improver->best_value() < (r.schedule.empty() ? INT_MAX : r.makespan)) {
      r.schedule = improver->best_schedule();
      r.makespan = evaluate_schedule(inst, r.schedule);
      r.notes.push_back("the schedule is the improver threads' best (not below the initial upper bound)");
    }
  }
  if (!pair_note.empty()) r.notes.insert(r.notes.begin(), pair_note);
  // Exactness: the schedule's makespan is recomputed from scratch before it is printed.
  if (!r.schedule.empty()) {
    const int check = evaluate_schedule(inst, r.schedule);
    if (check != r.makespan)
      throw error("internal error: reported makespan " + std::to_string(r.makespan) +
                  " but the schedule evaluates to " + std::to_string(check));
  }
  info.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  log.summary(r, info.wall_seconds);
  if (resumed)
    r.notes.push_back("resumed from " + a.resume + " (" + std::to_string(resumed->stats.branched) +
                      " nodes branched before" + (resumed->complete ? "; the search was already complete" : "") + ")");
  if (!a.checkpoint.empty() && last_write_ok)
    r.notes.push_back(
        "checkpoint written to " + a.checkpoint +
        (r.status == solve_status::optimal || r.status == solve_status::proven_bound
             ? std::string(" (search complete)")
             : " (" + std::to_string(last_open) + " open nodes; continue with --resume " + a.checkpoint + ")"));
  if (a.quiet) {
    out << to_string(r.status) << ' ' << (r.schedule.empty() ? 0 : r.makespan) << ' ' << r.lower_bound << '\n';
  } else {
    print_result(out, inst, opt, r, info);
  }
  if (!a.json.empty()) write_file_atomically(a.json, result_json(inst, opt, r, info));
  if (!a.gantt.empty()) {
    if (r.schedule.empty())
      err << "pfsp: warning: --gantt " << a.gantt << " not written: no schedule was found\n";
    else
      write_gantt(a.gantt, inst, r.schedule);
  }
  if (!last_write_ok)
    throw input_error("--checkpoint " + a.checkpoint + ": the final state was not saved: " + last_write_error);
  return exit_code_for(r.status);
}

int do_info(const std::string& spec, std::ostream& out) {
  const instance inst = load_instance(spec);
  print_header(out, inst);
  const bound_data data(inst);
  std::vector<job_t> perm(inst.n);
  for (int j = 0; j < inst.n; ++j) perm[j] = static_cast<job_t>(j);
  expander e1(data, bound_kind::lb1, branching::forward);
  expander e2(data, bound_kind::lb2, branching::forward);
  const int lb1 = e1.root_bound(perm.data(), -1, inst.n, INT_MAX);
  const int lb2 = e2.root_bound(perm.data(), -1, inst.n, INT_MAX);
  const neh_result h = neh(inst);
  long long total = 0;
  int pmin = INT_MAX, pmax = 0;
  for (int v : inst.p) {
    total += v;
    pmin = std::min(pmin, v);
    pmax = std::max(pmax, v);
  }
  out << "times        " << pmin << " .. " << pmax << ", total " << total << '\n';
  out << "root LB1     " << lb1 << '\n';
  out << "root LB2     " << lb2 << "   (" << data.view().npairs << " machine pairs)\n";
  out << "NEH          " << h.makespan << '\n';
  if (inst.known)
    out << "best known   lb " << inst.known->lb << ", ub " << inst.known->ub
        << (inst.known->optimal ? " (optimal)" : " (open)") << '\n';
  return exit_ok;
}

}  // namespace

int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err, const std::atomic<bool>* interrupt) {
  CLI::App app{"pfsp: exact branch-and-bound for the permutation flow-shop problem (n jobs, m machines, makespan)"};
  app.footer(
      "INSTANCE is ta001..ta120 (Taillard, generated from the seeds), random:N,M,SEED, or a file in\n"
      "Taillard's format or the OR-Library/VRF job-per-row format (detected automatically).\n"
      "Exit codes: 0 optimal (or bound proven), 1 internal error, 2 bad input or option,\n"
      "3 time limit, 4 node limit, 130 interrupted (Ctrl-C prints the best schedule and bound so far).");
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("pfsp ") + PFSP_VERSION + " (commit " + git_commit() + ")");

  solve_args a;
  auto* solve = app.add_subcommand("solve", "Solve an instance to proven optimality");
  solve->add_option("instance", a.instance_spec, "ta001..ta120, random:N,M,SEED, or a file")->required();
  solve->add_option("--backend", a.backend, "auto (gpu if there is one, else cpu-mt), cpu, cpu-mt or gpu")
      ->check(CLI::IsMember({"auto", "cpu", "cpu-mt", "gpu"}))
      ->capture_default_str();
  solve->add_option("--threads", a.threads, "threads for cpu-mt (and host threads for gpu)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  solve
      ->add_option("--bound", a.bound,
                   "lower bound: lb1 (one-machine), lb2 (two-machine Johnson), lb1-lb2 (chain), auto (the fastest "
                   "measured: lb1-lb2 on the GPU device loop, lb1 elsewhere)")
      ->check(CLI::IsMember({"auto", "lb1", "lb2", "lb1-lb2"}))
      ->capture_default_str();
  solve
      ->add_option("--improver-threads", a.improver_threads,
                   "gpu: CPU threads running iterated greedy beside the device loop, feeding it better incumbents "
                   "(-1 = auto: the cores but one, at most 8; 0 = none)")
      ->check(CLI::Range(-1, 256))
      ->capture_default_str();
  solve
      ->add_option("--lb2-pairs", a.lb2_pairs,
                   "machine pairs of LB2: all (m(m-1)/2), adjacent (Nabeshima's m-1 pairs k,k+1), learn[:K] (the K "
                   "pairs that most often give the maximum in a short search before the run; default K = m-1), or "
                   "auto (learn on the GPU device loop, all elsewhere; with --resume: the checkpoint's pairs)")
      ->check([](const std::string& v) {
        return v == "auto" || v == "all" || v == "adjacent" || v == "learn" || v.rfind("learn:", 0) == 0
                   ? std::string()
                   : "'" + v + "': expected auto, all, adjacent, learn or learn:K";
      })
      ->capture_default_str();
  solve
      ->add_option("--branching", a.branch,
                   "forward, backward, min-branch or min-min (dynamic bidirectional); default min-branch on the CPU, "
                   "min-min on the GPU")
      ->check(CLI::IsMember({"forward", "backward", "min-branch", "min-min"}));
  solve->add_option("--selection", a.select, "depth-first, breadth-first or best-first (cpu only)")
      ->check(CLI::IsMember({"depth-first", "breadth-first", "best-first"}))
      ->capture_default_str();
  solve->add_option("--ub", a.ub,
                    "initial upper bound: prune nodes with bound >= UB (e.g. the optimum, as in the papers), or "
                    "best-known: the best known makespan of a Taillard instance (from Taillard's table)");
  solve
      ->add_option("--heuristic", a.heuristic,
                   "first incumbent: ig (iterated greedy, Ruiz-Stuetzle 2007, from NEH), neh, none, or auto (neh "
                   "where improver threads run iterated greedy beside the search, ig elsewhere)")
      ->check(CLI::IsMember({"auto", "ig", "neh", "none"}))
      ->capture_default_str();
  solve
      ->add_option("--ig-iterations", a.ig_iterations,
                   "iterated greedy rounds (deterministic, seed 1); -1 = auto, about 4e7/(n^2 m), at most 5000")
      ->check(CLI::Range(-1, 100000000))
      ->capture_default_str();
  solve->add_flag("--no-neh", a.no_neh, "same as --heuristic none");
  solve->add_option("--time-limit", a.time_limit, "stop after this many seconds (0 = none)")
      ->check(CLI::Range(0.0, 1e9));
  solve->add_option("--node-limit", a.node_limit, "stop after this many branched nodes (0 = none)")
      ->check(CLI::Range(0LL, 4000000000000000000LL));
  solve->add_option("--json", a.json, "write the result as JSON to this file (atomically)");
  solve->add_option("--gantt", a.gantt,
                    "draw the schedule found as a Gantt chart (SVG: machines as rows, the critical path and the "
                    "makespan marked) to this file (atomically)");
  solve->add_option("--log", a.log,
                    "write the solver log (header, a row per progress interval, summary; docs/solver_log.md) to this "
                    "file too, flushed per line, whatever --quiet and --no-progress say");
  solve->add_flag("-q,--quiet", a.quiet, "print only 'status makespan lower_bound'; no solver log on stderr");
  solve->add_flag("--no-progress", a.no_progress, "no solver log on stderr (stdout keeps the result)");
  solve
      ->add_option("--progress-interval", a.progress_interval,
                   "seconds between rows of the solver log and progress-trace snapshots in the JSON")
      ->check(CLI::Range(0.01, 1e6))
      ->capture_default_str();
  solve->add_flag("--profile", a.profile, "time spent bounding versus the rest (the papers' Table I)");
  solve->add_flag("--shared-queue", a.shared_queue, "cpu-mt: the papers' baseline, one mutex-protected queue");
  solve->add_option(
      "--checkpoint", a.checkpoint,
      "cpu, cpu-mt, gpu (--gpu-loop device): save the search state to this file (atomically) periodically "
      "and when the run stops");
  solve
      ->add_option("--checkpoint-format", a.checkpoint_format,
                   "binary (version 2: compact, checksummed, records the LB2 pairs) or text (version 1); --resume "
                   "reads either")
      ->check(CLI::IsMember({"binary", "text"}))
      ->capture_default_str();
  solve->add_option("--checkpoint-interval", a.checkpoint_interval, "seconds between checkpoints")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str();
  solve->add_option("--resume", a.resume,
                    "continue the search saved in this checkpoint (same instance; bound, branching and --ub are taken "
                    "from it unless given; backend and threads may differ)");
  // Registered in every build, so that bad values are exit code 2 with CUDA or without.
  solve
      ->add_option("--gpu-strategy", a.gpu_strategy,
                   "gpu: divergence strategy of the bounding step: plain (one thread per child), persistent (Frey "
                   "task pools), context-switch (Frey; the LB2 pair loop as managed branch), split (LB1, "
                   "compaction, LB2 on the survivors), remap (Zhang's LAM); docs/gpu_strategies.md")
      ->check(CLI::IsMember(gpu::strategy_names()))
      ->capture_default_str()
      ->group("GPU backend");
  solve
      ->add_option("--strategy-params", a.strategy_params,
                   "gpu: key=value,... for --gpu-strategy. persistent: pool=global|local|hybrid|persistent, "
                   "fetch=any|all|ballot|atomic, k=1..32, chunk=0..65536, interval=1..64; context-switch: "
                   "contexts=32..1024 (multiple of 32), vote=1..64; remap: classes=2..1024, control=on|off")
      ->group("GPU backend");
#if defined(PFSP_HAVE_GPU)
  gpu_cli_options gpu_args;
  add_gpu_cli_options(*solve, gpu_args);
#endif

  std::string info_spec;
  auto* info = app.add_subcommand("info", "Sizes, root bounds, NEH value and best known bounds of an instance");
  info->add_option("instance", info_spec, "ta001..ta120, random:N,M,SEED, or a file")->required();

  std::string gantt_result, gantt_svg_path, gantt_instance;
  auto* gantt = app.add_subcommand("gantt", "Draw the schedule of a result (pfsp solve --json) as a Gantt chart (SVG)");
  gantt->add_option("result", gantt_result, "a result JSON written by pfsp solve --json")->required();
  gantt->add_option("-o,--output", gantt_svg_path, "the SVG file to write (atomically)")->required();
  gantt->add_option("--instance", gantt_instance,
                    "the instance (name, random:N,M,SEED or file) when the result's cannot be loaded (a file moved)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      out << (dynamic_cast<const CLI::CallForHelp*>(&e) || dynamic_cast<const CLI::CallForAllHelp*>(&e)
                  ? app.help(dynamic_cast<const CLI::CallForHelp*>(&e) && solve->parsed() ? "pfsp solve" : "")
                  : std::string(e.what()) + "\n");
      if (dynamic_cast<const CLI::CallForHelp*>(&e) && solve->parsed()) out << solve->help();
      return exit_ok;
    }
    err << "pfsp: " << e.what() << "\n";
    return exit_input;
  }
  a.bound_given = solve->count("--bound") > 0;
  a.branch_given = solve->count("--branching") > 0;
  a.ub_given = solve->count("--ub") > 0;
  a.lb2_pairs_given = solve->count("--lb2-pairs") > 0;
  try {
    if (solve->parsed())
      return do_solve(a, join_args(argc, argv), out, err, interrupt
#if defined(PFSP_HAVE_GPU)
                      ,
                      gpu_args
#endif
      );
    if (gantt->parsed()) return gantt_from_result(gantt_result, gantt_svg_path, gantt_instance, out);
    return do_info(info_spec, out);
  } catch (const input_error& e) {
    err << "pfsp: " << e.what() << "\n";
    return exit_input;
  } catch (const std::exception& e) {
    err << "pfsp: " << e.what() << "\n";
    return exit_internal;
  }
}

}  // namespace pfsp

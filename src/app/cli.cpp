#include "app/cli.hpp"

#include <CLI/CLI.hpp>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>

#include "app/gantt_cli.hpp"
#include "app/solve_api.hpp"
#include "app/solver_log.hpp"
#include "bound/bound_data.hpp"
#include "gpu/strategy.hpp"
#include "heuristic/neh.hpp"
#include "base/error.hpp"
#include "problem/io.hpp"
#include "search/expander.hpp"
#if defined(PFSP_HAVE_GPU)
#include "app/gpu_cli.hpp"
#endif

namespace pfsp {
namespace {

std::string join_args(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) s += (i ? " " : "") + std::string(argv[i]);
  return s;
}

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
             const std::atomic<bool>* interrupt) {
  gpu::parse_strategy(a.gpu_strategy, a.strategy_params);  // its errors before the instance's
  const instance inst = load_instance(a.instance_spec);
  // The solver log (docs/solver_log.md): on stderr unless --quiet or --no-progress (stdout has
  // the result either way), and in full to --log FILE; opened once the options are checked.
  std::optional<solver_log> log;
  solve_hooks hooks;
  hooks.on_checked = [&] {
    if (!a.gantt.empty()) check_output_directory("--gantt", a.gantt);
    log.emplace(a.quiet || a.no_progress ? nullptr : &err, a.log);
  };
  if (!(a.quiet || a.no_progress) || !a.log.empty())  // log->active()
    hooks.on_progress = [&log](const progress_info& p) { log->row(p); };
  if (!a.quiet) {
    hooks.on_start = [&](const solve_plan& plan) {
      const std::string& backend = plan.backend;
      const solve_options& opt = plan.opt;
      const run_info& info = plan.info;
      const search_state* resumed = plan.resumed;
      print_header(out, inst);
      out << "options      backend " << backend
          << (backend == "cpu-mt" ? " (" + std::to_string(a.threads) + " threads)" : "") << ", bound "
          << to_string(opt.bound) << ", branching " << to_string(opt.branch) << ", selection " << a.select
          << ", initial ub ";
      if (info.initial_ub)
        out << info.initial_ub << " (" << info.initial_ub_source
            << (info.initial_ub_source == "--ub" || resumed
                    ? std::string()
                    : ", " + std::to_string(info.heuristic_seconds).substr(0, 5) + " s")
            << ")";
      else
        out << "none";
      out << '\n';
      if (resumed)
        out << "resume       " << a.resume << ": " << resumed->open() << " open nodes, " << resumed->stats.branched
            << " nodes branched in " << std::fixed << std::setprecision(1) << resumed->stats.total_seconds
            << " s before" << (resumed->complete ? " (search complete)" : "") << '\n'
            << std::defaultfloat;
      out << std::flush;
    };
  }
  hooks.on_search = [&](const solve_plan& plan) {
    log->header(log_setup(inst, plan.opt, plan.info, plan.backend, a, plan.device_loop, plan.info.heuristic_seconds,
                          plan.resumed != nullptr));
  };
  hooks.on_warning = [&err](const std::string& w) { err << "pfsp: warning: " << w << '\n' << std::flush; };

  solve_outcome o = solve_instance(inst, a, hooks, interrupt);
  const solve_options& opt = o.opt;
  const solve_result& r = o.result;
  run_info& info = o.info;
  info.command = command;
  log->summary(r, info.wall_seconds);
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
  if (!o.checkpoint_error.empty()) throw input_error(o.checkpoint_error);
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
      ->check(CLI::IsMember(enum_choices<bound_kind>({"auto"})))
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
      ->check(CLI::IsMember(enum_choices<branching>()));
  solve->add_option("--selection", a.select, "depth-first, breadth-first or best-first (cpu only)")
      ->check(CLI::IsMember(enum_choices<selection>()))
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
  add_gpu_cli_options(*solve, a.gpu);
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
    if (solve->parsed()) return do_solve(a, join_args(argc, argv), out, err, interrupt);
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
